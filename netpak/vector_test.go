package netpak

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// field is one primitive in a test message: how to write it, how to read
// it back and the value the read must give.
type field struct {
	name  string
	write func(*Writer)
	read  func(*Reader) any
	want  any
}

func fBits(v uint32, n int) field {
	return field{fmt.Sprintf("Bits(%#x,%d)", v, n),
		func(w *Writer) { w.Bits(v, n) },
		func(r *Reader) any { return r.Bits(n) }, v}
}

func fBit(v bool) field {
	return field{fmt.Sprintf("Bit(%v)", v),
		func(w *Writer) { w.Bit(v) },
		func(r *Reader) any { return r.Bit() }, v}
}

func fAlign() field {
	return field{"AlignToByte",
		func(w *Writer) { w.AlignToByte() },
		func(r *Reader) any { r.AlignToByte(); return nil }, nil}
}

func fString(s string, n int) field {
	return field{fmt.Sprintf("String(%.10q,%d)", s, n),
		func(w *Writer) { w.String(s, n) },
		func(r *Reader) any { return r.String(n) }, s}
}

func fBytes(b []byte) field {
	return field{fmt.Sprintf("Bytes(%d)", len(b)),
		func(w *Writer) { w.RawBytes(b) },
		func(r *Reader) any { return r.Bytes(len(b)) }, b}
}

func fUInt32(v uint32) field {
	return field{fmt.Sprintf("UInt32(%#x)", v),
		func(w *Writer) { w.UInt32(v) },
		func(r *Reader) any { return r.UInt32() }, v}
}

func fUInt16(v uint16) field {
	return field{fmt.Sprintf("UInt16(%#x)", v),
		func(w *Writer) { w.UInt16(v) },
		func(r *Reader) any { return r.UInt16() }, v}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// vectors are the official NetPak test vectors and the computed examples of
// wire.md sections 1.1 and 3, written field by field.
var vectors = []struct {
	name   string
	fields []field
	wire   []byte
}{
	{"official bits 1,0,1", []field{fBit(true), fBit(false), fBit(true)}, mustHex("05")},
	{"official align", []field{
		fBits(0b101, 3), fBits(0b11, 2), fAlign(), fBits(0x7f, 7), fAlign(), fBits(1, 1), fAlign(),
	}, mustHex("1d 7f 01")},
	// Kicked = 12 in 5 bits, then String("bye"): empty bit 0, len−1 = 2 in
	// 11 bits, align, "bye".
	{"Kicked(bye)", []field{fBits(12, 5), fString("bye", 11)}, mustHex("8c 00 00 62 79 65")},
	// Rejected = 10 in 5 bits, WRONG_VERSION = 3 in 6 bits, String.
	{"Rejected(3,3.26.3.4)", []field{fBits(10, 5), fBits(3, 6), fString("3.26.3.4", 11)},
		mustHex("6a 70 00 33 2e 32 36 2e 33 2e 34")},
	// Accepted = 9 in 5 bits, UInt32 IPv4, UInt16 port, all unaligned.
	{"Accepted(0x01020304,27015)", []field{fBits(9, 5), fUInt32(0x01020304), fUInt16(27015)},
		mustHex("89 60 40 20 e0 30 0d")},
	// GetWorkshopFiles = 0 in 4 bits, align, 960 zero bytes, "Hello!".
	{"GetWorkshopFiles", []field{fBits(0, 4), fAlign(), fBytes(make([]byte, 960)), fString("Hello!", 11)},
		append(make([]byte, 961), mustHex("0a 00 48 65 6c 6c 6f 21")...)},
}

func writeFields(fs []field) []byte {
	w := NewWriter()
	for _, f := range fs {
		f.write(w)
	}
	return w.Bytes()
}

func TestVectorsWrite(t *testing.T) {
	for _, v := range vectors {
		if got := writeFields(v.fields); !bytes.Equal(got, v.wire) {
			t.Errorf("write %s = % x; want % x", v.name, got, v.wire)
		}
	}
}

func TestVectorsRead(t *testing.T) {
	for _, v := range vectors {
		r := NewReader(v.wire)
		for _, f := range v.fields {
			if got := f.read(r); !reflect.DeepEqual(got, f.want) {
				t.Errorf("%s: %s = %v; want %v", v.name, f.name, got, f.want)
			}
		}
		if err := r.Err(); err != nil {
			t.Errorf("%s: Err() = %v; want nil", v.name, err)
		}
		if r.Remaining() >= 8 {
			t.Errorf("%s: %d bits left after the last field; want < 8", v.name, r.Remaining())
		}
	}
}

// TestVectorsCut reads every shorter cut of each vector: each must fail with
// a ShortError that names a bit, the bits wanted and the bits left, and the
// reader must stay inside its input.
func TestVectorsCut(t *testing.T) {
	for _, v := range vectors {
		for k := 0; k < len(v.wire); k++ {
			in := v.wire[:k]
			r := NewReader(in)
			for _, f := range v.fields {
				f.read(r)
			}
			err := r.Err()
			var se *ShortError
			if !errors.As(err, &se) || !errors.Is(err, ErrShort) {
				t.Errorf("%s cut to %d bytes: Err() = %v; want a ShortError", v.name, k, err)
				continue
			}
			if se.Want <= se.Have || se.Bit+se.Have != 8*k {
				t.Errorf("%s cut to %d bytes: %+v does not describe a read past bit %d", v.name, k, *se, 8*k)
			}
			if r.Pos() < 0 || r.Pos() > 8*k {
				t.Errorf("%s cut to %d bytes: Pos() = %d outside [0, %d]", v.name, k, r.Pos(), 8*k)
			}
		}
	}
}
