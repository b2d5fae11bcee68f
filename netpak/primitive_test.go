package netpak

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fx builds a field from a typed writer, reader and wanted value.
func fx[T any](name string, write func(*Writer), read func(*Reader) T, want T) field {
	return field{name, write, func(r *Reader) any { return read(r) }, want}
}

var (
	long2048 = strings.Repeat("a", 2048)
	guid     = GUID{0x33, 0x22, 0x11, 0x00, 0x55, 0x44, 0x77, 0x66, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}
	// 2024-01-01T00:00:00Z: 638396640000000000 ticks, UTC kind (bit 62).
	newYear = DateTime(638396640000000000 | 1<<62)
)

// primitives lists each primitive of wire.md 1.3 at its edge values with
// the bytes worked out by hand from the table there (LSB-first, 64-bit
// values high dword first, last byte zero-padded).
var primitives = []struct {
	f    field
	wire string
}{
	{fBits(0, 0), ""},
	{fBits(0xffffffff, 32), "ff ff ff ff"},
	{fBits(0, 32), "00 00 00 00"},
	{fBits(1, 1), "01"},
	{fBits(0x155, 9), "55 01"},
	{fx("UInt8(255)", func(w *Writer) { w.UInt8(255) }, (*Reader).UInt8, uint8(255)), "ff"},
	{fx("UInt16 after a bit", func(w *Writer) { w.Bit(true); w.UInt16(0xffff) },
		func(r *Reader) uint16 { r.Bit(); return r.UInt16() }, 0xffff), "ff ff 01"},
	{fx("UInt64 order", func(w *Writer) { w.UInt64(0x0102030405060708) }, (*Reader).UInt64, uint64(0x0102030405060708)),
		"04 03 02 01 08 07 06 05"},
	{fx("UInt64 max", func(w *Writer) { w.UInt64(math.MaxUint64) }, (*Reader).UInt64, uint64(math.MaxUint64)),
		"ff ff ff ff ff ff ff ff"},
	{fx("Int8(-128)", func(w *Writer) { w.Int8(-128) }, (*Reader).Int8, int8(-128)), "80"},
	{fx("Int16(-2)", func(w *Writer) { w.Int16(-2) }, (*Reader).Int16, int16(-2)), "fe ff"},
	{fx("Int32(min)", func(w *Writer) { w.Int32(math.MinInt32) }, (*Reader).Int32, int32(math.MinInt32)), "00 00 00 80"},
	{fx("Int64(-2)", func(w *Writer) { w.Int64(-2) }, (*Reader).Int64, int64(-2)), "ff ff ff ff fe ff ff ff"},
	{fx("Int64(min)", func(w *Writer) { w.Int64(math.MinInt64) }, (*Reader).Int64, int64(math.MinInt64)), "00 00 00 80 00 00 00 00"},
	{fx("Float(1)", func(w *Writer) { w.Float(1) }, (*Reader).Float, float32(1)), "00 00 80 3f"},
	{fx("Float(-2.5)", func(w *Writer) { w.Float(-2.5) }, (*Reader).Float, float32(-2.5)), "00 00 20 c0"},
	{fString("", 11), "01"},
	{fString("x", 0), "00 78"},
	{fString("ab", 7), "02 61 62"},
	{fString("é", 11), "02 00 c3 a9"},
	{field{"String(2048 bytes)", func(w *Writer) { w.String(long2048, 11) },
		func(r *Reader) any { return r.String(11) }, long2048}, "fe 0f" + strings.Repeat("61", 2048)},
	{field{"String(2049 bytes) is cut to 2048", func(w *Writer) { w.String(long2048+"b", 11) },
		func(r *Reader) any { return r.String(11) }, long2048}, "fe 0f" + strings.Repeat("61", 2048)},
	{fx("Bytes after a bit", func(w *Writer) { w.Bit(true); w.RawBytes([]byte{0xab}) },
		func(r *Reader) []byte { r.Bit(); return r.Bytes(1) }, []byte{0xab}), "01 ab"},
	{fx("Bytes(0)", func(w *Writer) { w.RawBytes(nil) }, func(r *Reader) []byte { return r.Bytes(0) }, []byte{}), ""},
	{fx("NetID(0)", func(w *Writer) { w.NetID(0) }, (*Reader).NetID, uint32(0)), "00 00 00 00"},
	{fx("SteamID", func(w *Writer) { w.SteamID(76561197960265728) }, (*Reader).SteamID, uint64(76561197960265728)),
		"01 00 10 01 00 00 00 00"},
	// GUID 00112233-4455-6677-8899-aabbccddeeff: wire g[4..7] g[0..3] g[12..15] g[8..11].
	{fx("GUID", func(w *Writer) { w.GUID(guid) }, (*Reader).GUID, guid),
		"55 44 77 66 33 22 11 00 cc dd ee ff 88 99 aa bb"},
	{fx("DateTime", func(w *Writer) { w.DateTime(newYear) }, (*Reader).DateTime, newYear),
		"5c 0a dc 48 00 c0 00 99"},
	{fx("SignedInt(-1,4)", func(w *Writer) { w.SignedInt(-1, 4) }, func(r *Reader) int32 { return r.SignedInt(4) }, int32(-1)), "07"},
	{fx("SignedInt(-8,4)", func(w *Writer) { w.SignedInt(-8, 4) }, func(r *Reader) int32 { return r.SignedInt(4) }, int32(-8)), "00"},
	{fx("SignedInt(7,4)", func(w *Writer) { w.SignedInt(7, 4) }, func(r *Reader) int32 { return r.SignedInt(4) }, int32(7)), "0f"},
	{fx("SignedInt(100,4) clamps", func(w *Writer) { w.SignedInt(100, 4) }, func(r *Reader) int32 { return r.SignedInt(4) }, int32(7)), "0f"},
	{fx("SignedInt(min,32)", func(w *Writer) { w.SignedInt(math.MinInt32, 32) }, func(r *Reader) int32 { return r.SignedInt(32) }, int32(math.MinInt32)), "00 00 00 00"},
	{fx("SignedInt(max,32)", func(w *Writer) { w.SignedInt(math.MaxInt32, 32) }, func(r *Reader) int32 { return r.SignedInt(32) }, int32(math.MaxInt32)), "ff ff ff ff"},
	{fx("SignedInt(0 bits)", func(w *Writer) { w.SignedInt(5, 0) }, func(r *Reader) int32 { return r.SignedInt(0) }, int32(0)), ""},
	// 1.5: int 1+4096 = 0x1001 in 13 bits, fraction 0.5·128 = 64 in 7 bits.
	{fx("ClampedFloat(1.5,13,7)", func(w *Writer) { w.ClampedFloat(1.5, 13, 7) }, func(r *Reader) float32 { return r.ClampedFloat(13, 7) }, float32(1.5)), "01 10 08"},
	{fx("ClampedFloat(-4096,13,7)", func(w *Writer) { w.ClampedFloat(-4096, 13, 7) }, func(r *Reader) float32 { return r.ClampedFloat(13, 7) }, float32(-4096)), "00 00 00"},
	// −0.25: floor −1 → 4095, fraction 0.75·128 = 96.
	{fx("ClampedFloat(-0.25,13,7)", func(w *Writer) { w.ClampedFloat(-0.25, 13, 7) }, func(r *Reader) float32 { return r.ClampedFloat(13, 7) }, float32(-0.25)), "ff 0f 0c"},
	{fx("ClampedFloat(5000,13,7) clamps", func(w *Writer) { w.ClampedFloat(5000, 13, 7) }, func(r *Reader) float32 { return r.ClampedFloat(13, 7) }, float32(4096-1.0/128)), "ff ff 0f"},
	{fx("ClampedFloat(-5000,13,7) clamps", func(w *Writer) { w.ClampedFloat(-5000, 13, 7) }, func(r *Reader) float32 { return r.ClampedFloat(13, 7) }, float32(-4096)), "00 00 00"},
	{fx("ClampedFloat(NaN) is 0", func(w *Writer) { w.ClampedFloat(float32(math.NaN()), 13, 7) }, func(r *Reader) float32 { return r.ClampedFloat(13, 7) }, float32(0)), "00 10 00"},
	// 40 bits: wider than one 32-bit read.
	{fx("ClampedFloat(3.25,20,20)", func(w *Writer) { w.ClampedFloat(3.25, 20, 20) }, func(r *Reader) float32 { return r.ClampedFloat(20, 20) }, float32(3.25)), "03 00 08 00 40"},
	{fx("ClampedVector3(13,7)", func(w *Writer) { w.ClampedVector3(Vector3{1.5, -4096, 4096 - 1.0/128}, 13, 7) },
		func(r *Reader) Vector3 { return r.ClampedVector3(13, 7) }, Vector3{1.5, -4096, 4096 - 1.0/128}),
		"01 10 08 00 00 ff ff 0f"},
	{fx("UnsignedClampedFloat(2.5,4,4)", func(w *Writer) { w.UnsignedClampedFloat(2.5, 4, 4) }, func(r *Reader) float32 { return r.UnsignedClampedFloat(4, 4) }, float32(2.5)), "82"},
	{fx("UnsignedClampedFloat(-1) clamps", func(w *Writer) { w.UnsignedClampedFloat(-1, 4, 4) }, func(r *Reader) float32 { return r.UnsignedClampedFloat(4, 4) }, float32(0)), "00"},
	{fx("UnsignedNormalizedFloat(1,8)", func(w *Writer) { w.UnsignedNormalizedFloat(1, 8) }, func(r *Reader) float32 { return r.UnsignedNormalizedFloat(8) }, float32(1)), "ff"},
	{fx("UnsignedNormalizedFloat(0.5,8)", func(w *Writer) { w.UnsignedNormalizedFloat(0.5, 8) }, func(r *Reader) float32 { return r.UnsignedNormalizedFloat(8) }, float32(128.0/255)), "80"},
	{fx("SignedNormalizedFloat(-1,9)", func(w *Writer) { w.SignedNormalizedFloat(-1, 9) }, func(r *Reader) float32 { return r.SignedNormalizedFloat(9) }, float32(-1)), "ff 01"},
	{fx("SignedNormalizedFloat(0.5,9)", func(w *Writer) { w.SignedNormalizedFloat(0.5, 9) }, func(r *Reader) float32 { return r.SignedNormalizedFloat(9) }, float32(128.0/255)), "80 00"},
	// Regression (FuzzRoundTrip): one bit holds only the sign; it reads as 0.
	{fx("SignedNormalizedFloat(-1.1,1)", func(w *Writer) { w.SignedNormalizedFloat(-1.1, 1) }, func(r *Reader) float32 { return r.SignedNormalizedFloat(1) }, float32(0)), "01"},
	// Regression (FuzzRoundTrip): a small negative value keeps its sign bit.
	{fx("SignedNormalizedFloat(-0.05,4)", func(w *Writer) { w.SignedNormalizedFloat(-0.05, 4) }, func(r *Reader) float32 { return r.SignedNormalizedFloat(4) }, float32(0)), "08"},
	{fx("SignedNormalizedFloat(0 bits)", func(w *Writer) { w.SignedNormalizedFloat(-1, 0) }, func(r *Reader) float32 { return r.SignedNormalizedFloat(0) }, float32(0)), ""},
	{fx("Quaternion identity", func(w *Writer) { w.Quaternion(Quaternion{0, 0, 0, 1}, 9) }, func(r *Reader) Quaternion { return r.Quaternion(9) }, Quaternion{0, 0, 0, 1}), "03 00 00 00"},
	{fx("Quaternion −identity", func(w *Writer) { w.Quaternion(Quaternion{0, 0, 0, -1}, 9) }, func(r *Reader) Quaternion { return r.Quaternion(9) }, Quaternion{0, 0, 0, 1}), "03 00 00 00"},
	{fx("Quaternion x", func(w *Writer) { w.Quaternion(Quaternion{1, 0, 0, 0}, 9) }, func(r *Reader) Quaternion { return r.Quaternion(9) }, Quaternion{1, 0, 0, 0}), "00 00 00 00"},
	{fx("NormalVector3 up", func(w *Writer) { w.NormalVector3(Vector3{0, 1, 0}, 9) }, func(r *Reader) Vector3 { return r.NormalVector3(9) }, Vector3{0, 1, 0}), "01 00 00"},
	{fx("NormalVector3 −z", func(w *Writer) { w.NormalVector3(Vector3{0, 0, -1}, 9) }, func(r *Reader) Vector3 { return r.NormalVector3(9) }, Vector3{0, 0, -1}), "06 00 00"},
	{fx("Radians(π,8)", func(w *Writer) { w.Radians(math.Pi, 8) }, func(r *Reader) float32 { return r.Radians(8) }, float32(math.Pi)), "80"},
	{fx("Degrees(90,8)", func(w *Writer) { w.Degrees(90, 8) }, func(r *Reader) float32 { return r.Degrees(8) }, float32(90)), "40"},
	{fx("Degrees(-90,8) wraps", func(w *Writer) { w.Degrees(-90, 8) }, func(r *Reader) float32 { return r.Degrees(8) }, float32(270)), "c0"},
	{fx("Degrees(359.9,8) rounds to 0", func(w *Writer) { w.Degrees(359.9, 8) }, func(r *Reader) float32 { return r.Degrees(8) }, float32(0)), "00"},
	{fx("VectorAsYaw(+z)", func(w *Writer) { w.VectorAsYaw(Vector3{0, 0, 2}, 8) }, func(r *Reader) Vector3 { return r.VectorAsYaw(8) }, Vector3{0, 0, 2}), "00 00 00 40 00"},
	{fx("Color32RGB", func(w *Writer) { w.Color32RGB(Color32{1, 2, 3, 9}) }, (*Reader).Color32RGB, Color32{1, 2, 3, 255}), "01 02 03"},
	{fx("Color32RGBA", func(w *Writer) { w.Color32RGBA(Color32{1, 2, 3, 4}) }, (*Reader).Color32RGBA, Color32{1, 2, 3, 4}), "01 02 03 04"},
	{fx("Transform none", func(w *Writer) { w.Transform(Transform{}) }, (*Reader).Transform, Transform{}), "00"},
	// has-value 1, NetID 5 in bits 1..32, empty bit 0, len−1 = 0 in 7 bits, align, "a".
	{fx("Transform", func(w *Writer) { w.Transform(Transform{true, 5, "a"}) }, (*Reader).Transform, Transform{true, 5, "a"}),
		"0b 00 00 00 00 00 61"},
	{fx("ListCount(3,255)", func(w *Writer) { w.ListCount(3, 255) }, func(r *Reader) int { return r.ListCount(255) }, 3), "03"},
	{fx("ListCount(0,0)", func(w *Writer) { w.ListCount(0, 0) }, func(r *Reader) int { return r.ListCount(0) }, 0), ""},
	{fx("Enum(8,8)", func(w *Writer) { w.Enum(8, 8) }, func(r *Reader) uint32 { return r.Enum(8) }, uint32(8)), "08"},
}

func TestPrimitives(t *testing.T) {
	for _, p := range primitives {
		want := mustHex(p.wire)
		w := NewWriter()
		p.f.write(w)
		if got := w.Bytes(); !bytes.Equal(got, want) {
			t.Errorf("write %s = % x; want % x", p.f.name, got, want)
		}
		r := NewReader(want)
		got := p.f.read(r)
		if !reflect.DeepEqual(got, p.f.want) && !near(got, p.f.want) {
			t.Errorf("read %s from % x = %v; want %v", p.f.name, want, got, p.f.want)
		}
		if err := r.Err(); err != nil {
			t.Errorf("read %s from % x: Err() = %v", p.f.name, want, err)
		}
		if r.Remaining() >= 8 {
			t.Errorf("read %s: %d bits left", p.f.name, r.Remaining())
		}
		// Every shorter cut must fail as a short read and leave a sane Pos.
		for k := 0; k < len(want); k++ {
			r := NewReader(want[:k])
			p.f.read(r)
			if !errors.Is(r.Err(), ErrShort) {
				t.Errorf("read %s from % x: Err() = %v; want ErrShort", p.f.name, want[:k], r.Err())
			}
			if r.Pos() > 8*k {
				t.Errorf("read %s from % x: Pos() = %d past the end", p.f.name, want[:k], r.Pos())
			}
		}
	}
}

// near compares the float-valued results of lossy primitives to within one
// part in 10^6, for values that are computed through sin, cos and sqrt.
func near(got, want any) bool {
	f := func(v any) []float64 {
		switch v := v.(type) {
		case float32:
			return []float64{float64(v)}
		case Vector3:
			return []float64{float64(v.X), float64(v.Y), float64(v.Z)}
		case Quaternion:
			return []float64{float64(v.X), float64(v.Y), float64(v.Z), float64(v.W)}
		}
		return nil
	}
	g, w := f(got), f(want)
	if g == nil || len(g) != len(w) {
		return false
	}
	for i := range g {
		if math.Abs(g[i]-w[i]) > 1e-6 {
			return false
		}
	}
	return true
}

func TestCountBits(t *testing.T) {
	for _, c := range []struct {
		in   uint32
		want int
	}{{0, 0}, {1, 1}, {7, 3}, {8, 4}, {150, 8}, {255, 8}, {256, 9}, {272, 9}, {101, 7}, {math.MaxUint32, 32}} {
		if got := CountBits(c.in); got != c.want {
			t.Errorf("CountBits(%d) = %d; want %d", c.in, got, c.want)
		}
	}
}

func TestGUIDString(t *testing.T) {
	if got, want := guid.String(), "00112233-4455-6677-8899-aabbccddeeff"; got != want {
		t.Errorf("GUID.String() = %s; want %s", got, want)
	}
}

func TestDateTime(t *testing.T) {
	want := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := newYear.Time(); !got.Equal(want) {
		t.Errorf("DateTime.Time() = %v; want %v", got, want)
	}
	if got := newYear.Kind(); got != KindUTC {
		t.Errorf("DateTime.Kind() = %v; want Utc", got)
	}
	if got := DateTimeOf(want); got != newYear {
		t.Errorf("DateTimeOf(%v) = %#x; want %#x", want, int64(got), int64(newYear))
	}
	if got, want := newYear.String(), "2024-01-01T00:00:00Z (Utc)"; got != want {
		t.Errorf("DateTime.String() = %q; want %q", got, want)
	}
	if got := DateTimeKind(3).String(); got != "Unknown(3)" {
		t.Errorf("DateTimeKind(3).String() = %q; want Unknown(3)", got)
	}
	// 0001-01-01 is tick 0; before the Unix epoch the remainder is negative.
	if got := DateTime(1).Time(); !got.Equal(time.Date(1, 1, 1, 0, 0, 0, 100, time.UTC)) {
		t.Errorf("DateTime(1).Time() = %v; want 0001-01-01 00:00:00.0000001", got)
	}
}
