package netpak

import (
	"errors"
	"math"
	"testing"
)

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		name    string
		in      string
		read    func(*Reader)
		want    error  // sentinel
		msg     string // full Error() text
		wantPos int    // Pos after the failure
	}{
		{"short Bits", "00", func(r *Reader) { r.Bits(11) }, ErrShort, "need 11 bits at bit 0, have 8", 0},
		{"short after reads", "ff ff", func(r *Reader) { r.Bits(5); r.Bits(12) }, ErrShort, "need 12 bits at bit 5, have 11", 5},
		{"short sub-reader", "ff ff", func(r *Reader) { s := r.Sub(3, 4); s.Bits(5); r.SetErr(s.Err()) },
			ErrShort, "need 5 bits at bit 3, have 4", 0},
		{"width 33", "ffffffffff", func(r *Reader) { r.Bits(33) }, ErrRange, "netpak: value out of range: bit width 33 at bit 0", 0},
		{"width -1", "ff", func(r *Reader) { r.Bit(); r.Bits(-1) }, ErrRange, "netpak: value out of range: bit width -1 at bit 1", 1},
		{"padding", "02", func(r *Reader) { r.Bit(); r.AlignToByte() }, ErrPadding, "netpak: non-zero alignment padding: 7 padding bits are 0x1 at bit 1", 8},
		{"bad UTF-8", "00 ff", func(r *Reader) { r.String(7) }, ErrUTF8, "netpak: invalid UTF-8: 1-byte string at bit 8", 16},
		// The string runs short in its bytes; Pos goes back to its first bit.
		{"short string", "80 00 00 62", func(r *Reader) { r.Bits(5); r.String(11) }, ErrShort, "need 24 bits at bit 24, have 8", 5},
		{"short UInt64", "ff ff ff ff ff", func(r *Reader) { r.Bit(); r.UInt64() }, ErrShort, "need 64 bits at bit 1, have 39", 1},
		{"short GUID", "ff ff ff ff ff ff ff ff", func(r *Reader) { r.GUID() }, ErrShort, "need 128 bits at bit 0, have 64", 0},
		{"short ClampedVector3", "ff ff ff ff ff ff ff", func(r *Reader) { r.ClampedVector3(13, 7) }, ErrShort, "need 60 bits at bit 0, have 56", 0},
		{"short Transform", "0b 00 00 00 00 00", func(r *Reader) { r.Transform() }, ErrShort, "need 8 bits at bit 48, have 0", 0},
		{"huge Bytes", "00", func(r *Reader) { r.Bytes(math.MaxInt) }, ErrShort, "need 9223372036854775807 bits at bit 0, have 8", 0},
		{"negative Bytes", "00", func(r *Reader) { r.Bytes(-1) }, ErrRange, "netpak: value out of range: byte count -1 at bit 0", 0},
		{"negative Skip", "00", func(r *Reader) { r.Skip(-3) }, ErrRange, "netpak: value out of range: skip of -3 bits at bit 0", 0},
		{"short Skip", "00", func(r *Reader) { r.Skip(9) }, ErrShort, "need 9 bits at bit 0, have 8", 0},
		{"enum above max", "09", func(r *Reader) { r.Enum(8) }, ErrRange, "netpak: value out of range: enum value 9 above maximum 8 at bit 0", 4},
		{"list above max", "ff", func(r *Reader) { r.ListCount(100) }, ErrRange, "netpak: value out of range: list count 127 above maximum 100 at bit 0", 7},
		{"NormalVector3 index 3", "03 00 00", func(r *Reader) { r.NormalVector3(9) }, ErrRange, "netpak: value out of range: NormalVector3: largest component index 3 at bit 0", 2},
		{"ClampedFloat width", "ff", func(r *Reader) { r.ClampedFloat(33, 1) }, ErrRange, "netpak: value out of range: ClampedFloat: bit width 33 at bit 0", 0},
		// The first error sticks: later failures neither replace it nor move Pos.
		{"sticky", "00", func(r *Reader) { r.Bits(3); r.Bits(9); r.Bits(33); r.AlignToByte(); r.String(11) }, ErrShort, "need 9 bits at bit 3, have 5", 3},
		{"SetErr first wins", "00", func(r *Reader) { r.SetErr(ErrRange); r.SetErr(ErrUTF8); r.Bits(20) }, ErrRange, "netpak: value out of range", 0},
		{"Seek keeps the error", "00 00", func(r *Reader) { r.Bits(3); r.Bits(20); r.Seek(0) }, ErrShort, "need 20 bits at bit 3, have 13", 0},
	} {
		r := NewReader(mustHex(c.in))
		c.read(r)
		err := r.Err()
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Err() = %v; want %v", c.name, err, c.want)
			continue
		}
		if err.Error() != c.msg {
			t.Errorf("%s: Err().Error() = %q; want %q", c.name, err.Error(), c.msg)
		}
		if r.Pos() != c.wantPos {
			t.Errorf("%s: Pos() = %d; want %d", c.name, r.Pos(), c.wantPos)
		}
		if v := r.Bits(1); v != 0 {
			t.Errorf("%s: Bits(1) after an error = %d; want 0", c.name, v)
		}
	}
}

func TestSub(t *testing.T) {
	r := NewReader(mustHex("ab cd ef 01 23 45 67 89 ab"))
	for _, c := range []struct {
		bit, n          int
		start, end, rem int
	}{
		{4, 8, 4, 12, 8},
		{-5, 8, 0, 8, 8},      // clipped to the parent's start
		{60, 100, 60, 72, 12}, // clipped to the parent's end
		{80, 4, 72, 72, 0},    // past the end: empty
		{8, -1, 8, 72, 64},    // negative n: to the end
		{0, math.MaxInt, 0, 72, 72},
	} {
		s := r.Sub(c.bit, c.n)
		if s.Start() != c.start || s.End() != c.end || s.Pos() != c.start || s.Remaining() != c.rem {
			t.Errorf("Sub(%d, %d) = start %d end %d pos %d rem %d; want %d %d %d %d",
				c.bit, c.n, s.Start(), s.End(), s.Pos(), s.Remaining(), c.start, c.end, c.start, c.rem)
		}
	}
	// A sub-reader reads its parent's bits in place and reports positions
	// in the parent's terms.
	s := r.Sub(4, 8)
	if v := s.Bits(8); v != 0xda || s.Pos() != 12 || s.Err() != nil {
		t.Errorf("Sub(4,8).Bits(8) = %#x at %d (%v); want 0xda at 12", v, s.Pos(), s.Err())
	}
	// Seek stays inside the sub-reader's range.
	s.Seek(0)
	if s.Pos() != 4 {
		t.Errorf("Seek(0) on Sub(4,8): Pos() = %d; want 4", s.Pos())
	}
	s.Seek(99)
	if s.Pos() != 12 {
		t.Errorf("Seek(99) on Sub(4,8): Pos() = %d; want 12", s.Pos())
	}
	// A sub-reader of a sub-reader is clipped to the inner range.
	if ss := s.Sub(0, 100); ss.Start() != 4 || ss.End() != 12 {
		t.Errorf("Sub(0,100) of Sub(4,8) = [%d,%d); want [4,12)", ss.Start(), ss.End())
	}
}

// TestBitsEverywhere reads every width at every offset of a buffer and
// compares with a bit-by-bit reference, to cover the loads near the end:
// below bit (size−7)·8 Bits loads 8 bytes, from there on it rotates the
// cached tail word, and inputs under 8 bytes use only the tail.
func TestBitsEverywhere(t *testing.T) {
	for _, size := range []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 23, 24, 40} {
		buf := make([]byte, size)
		for i := range buf {
			buf[i] = byte(i*151 + 7)
		}
		var r Reader
		for n := 0; n <= 32; n++ {
			for at := 0; at <= 8*size; at++ {
				r.Reset(buf)
				r.Skip(at)
				got := r.Bits(n)
				if at+n > 8*size {
					if !errors.Is(r.Err(), ErrShort) || got != 0 {
						t.Errorf("size %d: Bits(%d) at bit %d = %#x, %v; want ErrShort", size, n, at, got, r.Err())
					}
					continue
				}
				if want := refBits(buf, at, n); got != want || r.Err() != nil || r.Pos() != at+n {
					t.Errorf("size %d: Bits(%d) at bit %d = %#x, %v, pos %d; want %#x", size, n, at, got, r.Err(), r.Pos(), want)
				}
			}
		}
	}
}

// TestSubEverywhere reads every width at every offset of sub-readers
// cut at arbitrary bits of a buffer, against the bit-by-bit reference: a
// read that would cross the sub-reader's end fails even though the buffer
// has the bits, and one inside it sees the parent's bytes, whether they
// come from an 8-byte load or from the tail word.
func TestSubEverywhere(t *testing.T) {
	buf := make([]byte, 21)
	for i := range buf {
		buf[i] = byte(i*97 + 13)
	}
	parent := NewReader(buf)
	for from := 0; from <= 8*len(buf); from += 7 {
		for end := from; end <= 8*len(buf); end += 5 {
			for n := 0; n <= 32; n++ {
				for at := from; at <= end; at++ {
					s := parent.Sub(from, end-from)
					s.Seek(at)
					got := s.Bits(n)
					if at+n > end {
						var se *ShortError
						if !errors.As(s.Err(), &se) || se.Bit != at || se.Want != n || se.Have != end-at || got != 0 || s.Pos() != at {
							t.Fatalf("Sub(%d,%d): Bits(%d) at bit %d = %#x, %v, pos %d; want need %d bits at bit %d, have %d", from, end-from, n, at, got, s.Err(), s.Pos(), n, at, end-at)
						}
						continue
					}
					if want := refBits(buf, at, n); got != want || s.Err() != nil || s.Pos() != at+n {
						t.Fatalf("Sub(%d,%d): Bits(%d) at bit %d = %#x, %v, pos %d; want %#x", from, end-from, n, at, got, s.Err(), s.Pos(), want)
					}
				}
			}
		}
	}
}

// TestAlignEverywhere checks AlignToByte's padding check at every offset,
// including the last bytes, where the padding comes from the tail word.
func TestAlignEverywhere(t *testing.T) {
	for _, size := range []int{1, 7, 8, 9, 16} {
		for at := 0; at <= 8*size; at++ {
			for _, fill := range []byte{0x00, 0xff} {
				buf := make([]byte, size)
				for i := range buf {
					buf[i] = fill
				}
				r := NewReader(buf)
				r.Skip(at)
				r.AlignToByte()
				pad := (8 - at%8) % 8
				wantPos := at + pad
				wantErr := fill != 0 && pad > 0
				if r.Pos() != wantPos || errors.Is(r.Err(), ErrPadding) != wantErr || (!wantErr && r.Err() != nil) {
					t.Errorf("size %d fill %#x: AlignToByte at bit %d: pos %d, err %v; want pos %d, padding error %v", size, fill, at, r.Pos(), r.Err(), wantPos, wantErr)
				}
			}
		}
	}
}

// TestReaderCopy checks that a Reader copied by value reads like the
// original: its loads point at the caller's input, not into the Reader.
func TestReaderCopy(t *testing.T) {
	buf := []byte{0x1d, 0x7f, 0x01}
	r := NewReader(buf)
	r.Bits(3)
	c := *r
	r.Reset(nil)
	if got := c.Bits(13); got != refBits(buf, 3, 13) || c.Err() != nil {
		t.Errorf("copy: Bits(13) at bit 3 = %#x, %v; want %#x", got, c.Err(), refBits(buf, 3, 13))
	}
}

// refBits reads n bits at stream bit at one bit at a time (wire.md 1.1:
// stream bit k is bit k mod 8 of byte k/8, values least significant first).
func refBits(b []byte, at, n int) uint32 {
	var v uint32
	for k := 0; k < n; k++ {
		p := at + k
		v |= uint32(b[p/8]>>(p%8)&1) << k
	}
	return v
}

func TestWriterReset(t *testing.T) {
	w := NewWriter()
	w.Bits(0x1ff, 9)
	w.Reset()
	w.Bits(1, 1)
	if got := w.Bytes(); len(got) != 1 || got[0] != 1 || w.Len() != 1 {
		t.Errorf("after Reset, Bits(1,1) = % x (len %d); want 01 (len 1)", got, w.Len())
	}
	// Bits above n are ignored; widths outside 0..32 are clamped.
	w.Reset()
	w.Bits(0xff, 3)
	w.Bits(0xffffffff, 40)
	w.Bits(1, -2)
	if got, want := w.Bytes(), mustHex("ff ff ff ff 07"); string(got) != string(want) || w.Len() != 35 {
		t.Errorf("Bits(0xff,3) Bits(max,40) = % x (len %d); want % x (len 35)", got, w.Len(), want)
	}
}
