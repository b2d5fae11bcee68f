package netpak

import "math"

// Writer builds an LSB-first NetPak bit stream exactly as the game writes it
// (wire.md 1.1): bits fill each byte from its least significant end and the
// unused high bits of the last byte are zero.
//
// The zero Writer is ready to use.
type Writer struct {
	buf []byte
	pos int // bits written
}

// NewWriter returns an empty Writer.
func NewWriter() *Writer { return &Writer{} }

// Reset empties w, keeping its buffer.
func (w *Writer) Reset() { w.buf = w.buf[:0]; w.pos = 0 }

// Len returns the number of bits written.
func (w *Writer) Len() int { return w.pos }

// Bytes returns the stream as whole bytes, the last one zero-padded. The
// slice aliases the writer's buffer until the next write.
func (w *Writer) Bytes() []byte { return w.buf }

// Bits writes the low n bits (0 to 32) of v, least significant first. Bits
// of v above n are ignored.
func (w *Writer) Bits(v uint32, n int) {
	if n <= 0 {
		return
	}
	if n > 32 {
		n = 32
	}
	x := uint64(v) & (1<<uint(n) - 1)
	for n > 0 {
		off := w.pos & 7
		if off == 0 {
			w.buf = append(w.buf, 0)
		}
		take := 8 - off
		if take > n {
			take = n
		}
		w.buf[len(w.buf)-1] |= byte(x&(1<<uint(take)-1)) << uint(off)
		x >>= uint(take)
		n -= take
		w.pos += take
	}
}

// Bit writes one bit.
func (w *Writer) Bit(b bool) {
	if b {
		w.Bits(1, 1)
	} else {
		w.Bits(0, 1)
	}
}

// UInt8 writes 8 bits.
func (w *Writer) UInt8(v uint8) { w.Bits(uint32(v), 8) }

// UInt16 writes 16 bits.
func (w *Writer) UInt16(v uint16) { w.Bits(uint32(v), 16) }

// UInt32 writes 32 bits.
func (w *Writer) UInt32(v uint32) { w.Bits(v, 32) }

// UInt64 writes the high 32 bits, then the low 32 bits (wire.md 1.3).
func (w *Writer) UInt64(v uint64) {
	w.Bits(uint32(v>>32), 32)
	w.Bits(uint32(v), 32)
}

// Int8 writes v in two's complement.
func (w *Writer) Int8(v int8) { w.Bits(uint32(uint8(v)), 8) }

// Int16 writes v in two's complement.
func (w *Writer) Int16(v int16) { w.Bits(uint32(uint16(v)), 16) }

// Int32 writes v in two's complement.
func (w *Writer) Int32(v int32) { w.Bits(uint32(v), 32) }

// Int64 writes v as a UInt64.
func (w *Writer) Int64(v int64) { w.UInt64(uint64(v)) }

// Float writes the IEEE-754 bit pattern of v.
func (w *Writer) Float(v float32) { w.Bits(math.Float32bits(v), 32) }

// AlignToByte writes zero bits up to the next byte boundary.
func (w *Writer) AlignToByte() {
	if pad := (8 - w.pos&7) & 7; pad != 0 {
		w.pos += pad // the byte was appended zeroed
	}
}

// RawBytes aligns, then writes b.
func (w *Writer) RawBytes(b []byte) {
	w.AlignToByte()
	w.buf = append(w.buf, b...)
	w.pos += 8 * len(b)
}

// String writes s with a (byteCount − 1) length of lenBits bits (wire.md
// 1.3). An empty s is the single bit 1. A string longer than 1<<lenBits
// bytes is cut to that length, as the game's writer refuses longer ones.
func (w *Writer) String(s string, lenBits int) {
	w.StringBytes([]byte(s), lenBits)
}

// StringBytes is String for a byte slice; it writes b as given, valid UTF-8
// or not, so tests can build hostile strings.
func (w *Writer) StringBytes(b []byte, lenBits int) {
	if len(b) == 0 {
		w.Bit(true)
		return
	}
	if max := 1 << uint(lenBits); len(b) > max {
		b = b[:max]
	}
	w.Bit(false)
	w.Bits(uint32(len(b)-1), lenBits)
	w.RawBytes(b)
}
