package netpak

import (
	"encoding/binary"
	"math"
)

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
// of v above n are ignored; n above 32 is taken as 32 and n below 0 as 0.
//
// The buffer always holds exactly ⌈Len/8⌉ bytes and the bits of the last
// byte above Len are zero, which is what makes the final byte zero-padded
// (wire.md 1.1).
func (w *Writer) Bits(v uint32, n int) {
	if n <= 0 {
		return
	}
	n = min(n, 32)
	x := uint64(v&(uint32(1)<<uint(n)-1)) << uint(w.pos&7)
	i := w.pos >> 3
	w.pos += n
	if need := (w.pos + 7) >> 3; need > len(w.buf) {
		w.buf = append(w.buf, make([]byte, need-len(w.buf))...)
	}
	for ; x != 0; i++ {
		w.buf[i] |= byte(x)
		x >>= 8
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
	if limit := 1 << uint(min(max(lenBits, 0), 32)); len(b) > limit {
		b = b[:limit]
	}
	w.Bit(false)
	w.Bits(uint32(len(b)-1), lenBits)
	w.RawBytes(b)
}

// Enum writes v in CountBits(maxValue) bits, as a generated NetPak enum
// whose largest value is maxValue (wire.md 1.3).
func (w *Writer) Enum(v, maxValue uint32) { w.Bits(v, CountBits(maxValue)) }

// ListCount writes the item count n of a List(maxCount) in
// CountBits(maxCount) bits.
func (w *Writer) ListCount(n, maxCount int) {
	w.Bits(uint32(n), CountBits(uint32(min(max(maxCount, 0), math.MaxUint32))))
}

// NetID writes a 32-bit network object id.
func (w *Writer) NetID(v uint32) { w.Bits(v, 32) }

// SteamID writes a 64-bit Steam id as a UInt64.
func (w *Writer) SteamID(v uint64) { w.UInt64(v) }

// GUID writes g as two UInt64s of its little-endian halves (wire.md 1.3).
func (w *Writer) GUID(g GUID) {
	w.UInt64(binary.LittleEndian.Uint64(g[0:]))
	w.UInt64(binary.LittleEndian.Uint64(g[8:]))
}

// DateTime writes a .NET DateTime.ToBinary() value as an Int64.
func (w *Writer) DateTime(d DateTime) { w.Int64(int64(d)) }

// SignedInt writes v in n bits (0 to 32) as v + 2^(n−1), offset binary
// (wire.md 1.3). A v outside [−2^(n−1), 2^(n−1)) is clamped to that range.
func (w *Writer) SignedInt(v int32, n int) {
	n = min(max(n, 0), 32)
	if n == 0 {
		return
	}
	off := offset(n)
	w.Bits(uint32(min(max(int64(v), -off), off-1)+off), n)
}

// Color32RGB writes r, g and b as UInt8s; alpha is not sent.
func (w *Writer) Color32RGB(c Color32) {
	w.UInt8(c.R)
	w.UInt8(c.G)
	w.UInt8(c.B)
}

// Color32RGBA writes r, g, b and a as UInt8s.
func (w *Writer) Color32RGBA(c Color32) {
	w.Color32RGB(c)
	w.UInt8(c.A)
}

// Transform writes a has-value bit, then for a valid t its NetID and its
// path as a String(7) (wire.md 1.3).
func (w *Writer) Transform(t Transform) {
	w.Bit(t.Valid)
	if t.Valid {
		w.NetID(t.NetID)
		w.String(t.Path, TransformPathBits)
	}
}
