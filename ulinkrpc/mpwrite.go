package ulinkrpc

import (
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// MemoryPack encoders for fixtures (ulinkrpc.md 6): each returns one
// value's bytes; MPEncodeObject joins members into an object.

// MPInt32 and the other fixed-width writers are little-endian.
func MPInt32(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

// MPInt64 writes a long.
func MPInt64(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }

// MPFloat64 writes a double.
func MPFloat64(v float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)) }

// MPBool writes a bool.
func MPBool(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}

// MPString writes a UTF-8 string: i32 ~byteCount, i32 UTF-16 length, the
// bytes; "" is the single i32 0.
func MPString(s string) []byte {
	if s == "" {
		return MPInt32(0)
	}
	b := MPInt32(^int32(len(s)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(utf16.Encode([]rune(s)))))
	return append(b, s...)
}

// MPNullString writes a null string (and a null collection): i32 −1.
func MPNullString() []byte { return MPInt32(-1) }

// MPList writes a collection: i32 count, then the items.
func MPList(items ...[]byte) []byte {
	b := MPInt32(int32(len(items)))
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

// MPNullObject is a null object's header.
func MPNullObject() []byte { return []byte{mpNullObject} }

// MPEncodeObject writes an object of the members in order; versionTolerant adds
// the varint byte length of each member after the count.
func MPEncodeObject(versionTolerant bool, members ...[]byte) []byte {
	b := []byte{byte(len(members))}
	if versionTolerant {
		for _, m := range members {
			b = appendVarint(b, int64(len(m)))
		}
	}
	for _, m := range members {
		b = append(b, m...)
	}
	return b
}

// appendVarint writes MemoryPack's varint: −120..127 as the byte itself,
// else a type code and the integer.
func appendVarint(b []byte, v int64) []byte {
	switch {
	case v >= -120 && v <= 127:
		return append(b, byte(int8(v)))
	case v >= 0 && v <= math.MaxUint8:
		return append(b, byte(0x100-121), byte(v))
	case v >= 0 && v <= math.MaxUint16:
		return binary.LittleEndian.AppendUint16(append(b, byte(0x100-123)), uint16(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return binary.LittleEndian.AppendUint32(append(b, byte(0x100-126)), uint32(v))
	}
	return binary.LittleEndian.AppendUint64(append(b, byte(0x100-128)), uint64(v))
}
