package netpak

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/usmnscope/usmnscope/internal/enum"
)

// GUID is a .NET System.Guid in the byte order of Guid.ToByteArray(): the
// first three groups little-endian, the last eight bytes as written. On the
// wire its bytes appear as g[4..7] g[0..3] g[12..15] g[8..11] (wire.md 1.3).
type GUID [16]byte

// String formats g as .NET does ("D" format), so it matches what the game
// and its asset files print.
func (g GUID) String() string {
	return fmt.Sprintf("%08x-%04x-%04x-%x-%x",
		binary.LittleEndian.Uint32(g[0:4]),
		binary.LittleEndian.Uint16(g[4:6]),
		binary.LittleEndian.Uint16(g[6:8]),
		g[8:10], g[10:16])
}

// DateTime is the raw .NET DateTime.ToBinary() value (wire.md 1.3): the low
// 62 bits are 100 ns ticks since 0001-01-01 00:00, bits 62..63 the kind
// (0 unspecified, 1 UTC, 2 local). For the local kind .NET stores the ticks
// already converted to UTC, so every kind names an instant in UTC except
// "unspecified", whose zone is not on the wire; Time reads it as UTC.
type DateTime int64

// DateTimeKind is the .NET DateTimeKind held in a DateTime's top two bits.
type DateTimeKind uint8

// The .NET DateTimeKind values.
const (
	KindUnspecified DateTimeKind = 0
	KindUTC         DateTimeKind = 1
	KindLocal       DateTimeKind = 2
)

var kindNames = [...]string{"Unspecified", "Utc", "Local"}

func (k DateTimeKind) String() string { return enum.Name(kindNames[:], k) }

const (
	ticksMask = 1<<62 - 1
	// unixTicks is 1970-01-01 in .NET ticks.
	unixTicks = 621355968000000000
)

// Ticks returns the 100 ns ticks since 0001-01-01.
func (d DateTime) Ticks() int64 { return int64(d) & ticksMask }

// Kind returns the DateTimeKind bits.
func (d DateTime) Kind() DateTimeKind { return DateTimeKind(uint64(d) >> 62) }

// Time returns the instant d names, in UTC.
func (d DateTime) Time() time.Time {
	t := d.Ticks() - unixTicks
	sec, rem := t/1e7, t%1e7
	if rem < 0 {
		sec--
		rem += 1e7
	}
	return time.Unix(sec, rem*100).UTC()
}

// String formats d as RFC 3339 in UTC with its kind, e.g.
// "2024-05-01T12:00:00Z (Utc)".
func (d DateTime) String() string {
	return d.Time().Format(time.RFC3339Nano) + " (" + d.Kind().String() + ")"
}

// DateTimeOf returns t as a UTC-kind DateTime, as .NET's
// DateTime.UtcNow.ToBinary() would. Precision below 100 ns is dropped.
func DateTimeOf(t time.Time) DateTime {
	sec := t.Unix()
	ticks := sec*1e7 + int64(t.Nanosecond())/100 + unixTicks
	return DateTime(ticks&ticksMask | int64(KindUTC)<<62)
}

// Vector3 is a Unity Vector3.
type Vector3 struct{ X, Y, Z float32 }

// Quaternion is a Unity Quaternion.
type Quaternion struct{ X, Y, Z, W float32 }

// Color32 is a Unity Color32.
type Color32 struct{ R, G, B, A uint8 }

// Transform is a reference to a scene transform: when Valid, the network
// object NetID and the Path of the child transform under it (wire.md 1.3).
type Transform struct {
	Valid bool
	NetID uint32
	Path  string
}
