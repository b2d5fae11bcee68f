package netpak

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// Sentinel errors that callers branch on with errors.Is. The detailed errors
// returned by a Reader wrap one of these.
var (
	// ErrShort: a read wanted more bits than the input has (wire.md 1.3,
	// "source overflow").
	ErrShort = errors.New("netpak: short read")
	// ErrPadding: AlignToByte found non-zero padding bits (wire.md 1.2).
	ErrPadding = errors.New("netpak: non-zero alignment padding")
	// ErrUTF8: a String's bytes are not valid UTF-8 (wire.md 1.3).
	ErrUTF8 = errors.New("netpak: invalid UTF-8")
	// ErrRange: a value is out of range, such as an enum above its maximum or
	// a bit width outside 0..32.
	ErrRange = errors.New("netpak: value out of range")
)

// ShortError reports a read past the end of the input: where it started,
// how many bits it wanted and how many were left.
type ShortError struct {
	Bit  int // stream bit at which the read started
	Want int // bits the read needed
	Have int // bits left in the input
}

func (e *ShortError) Error() string {
	return fmt.Sprintf("need %d bits at bit %d, have %d", e.Want, e.Bit, e.Have)
}

// Is makes errors.Is(err, ErrShort) hold.
func (e *ShortError) Is(target error) bool { return target == ErrShort }

// BitError reports a non-short failure at a bit offset, wrapping one of the
// sentinels (ErrPadding, ErrUTF8, ErrRange).
type BitError struct {
	Bit    int
	Err    error
	Detail string
}

func (e *BitError) Error() string {
	msg := e.Err.Error()
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return fmt.Sprintf("%s at bit %d", msg, e.Bit)
}

func (e *BitError) Unwrap() error { return e.Err }

// Reader reads the LSB-first NetPak bit stream of wire.md section 1.1.
//
// A Reader never panics and never reads past its end. Its error is sticky,
// as in compress/flate: the first failed read sets Err, leaves the position
// at the start of that read, and every later read returns zero values. A
// decoder therefore reads a whole header and checks Err once.
type Reader struct {
	buf   []byte
	pos   int // absolute stream bit of the next read
	start int // first bit of this reader's range (for sub-readers)
	end   int // one past the last readable bit
	err   error
}

// NewReader returns a Reader over all of b.
func NewReader(b []byte) *Reader {
	return &Reader{buf: b, end: len(b) * 8}
}

// Reset makes r read b from its start, clearing any error. It lets a hot
// loop reuse one Reader without allocating.
func (r *Reader) Reset(b []byte) {
	*r = Reader{buf: b, end: len(b) * 8}
}

// Pos returns the stream bit of the next read, counted from bit 0 of the
// underlying buffer (a sub-reader reports positions in its parent's terms).
func (r *Reader) Pos() int { return r.pos }

// Start returns the first bit of the reader's range.
func (r *Reader) Start() int { return r.start }

// End returns one past the last bit the reader may read.
func (r *Reader) End() int { return r.end }

// Remaining returns the number of bits left to read.
func (r *Reader) Remaining() int { return r.end - r.pos }

// Err returns the first error the reader met, or nil.
func (r *Reader) Err() error { return r.err }

// Bytes returns the whole underlying buffer (not only the reader's range).
func (r *Reader) Buffer() []byte { return r.buf }

// Sub returns a reader bounded to the bit range [bit, bit+n) of the same
// buffer, for listener payloads and other length-limited parts. A range
// outside r's own is clipped to it, so a sub-reader can never see more than
// its parent.
func (r *Reader) Sub(bit, n int) *Reader {
	if bit < r.start {
		bit = r.start
	}
	if bit > r.end {
		bit = r.end
	}
	end := bit + n
	if n < 0 || end > r.end {
		end = r.end
	}
	return &Reader{buf: r.buf, pos: bit, start: bit, end: end}
}

// Seek moves the reader to absolute stream bit, clipped to its range. It
// does not clear an error.
func (r *Reader) Seek(bit int) {
	if bit < r.start {
		bit = r.start
	}
	if bit > r.end {
		bit = r.end
	}
	r.pos = bit
}

// SetErr records err as the reader's sticky error if it has none yet. Decoders
// use it for semantic failures (an enum out of range) found above the reader.
func (r *Reader) SetErr(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *Reader) short(want int) {
	if r.err == nil {
		r.err = &ShortError{Bit: r.pos, Want: want, Have: r.end - r.pos}
	}
}

// peek returns the n (0..32) bits at r.pos without moving. The caller has
// checked that they exist.
func (r *Reader) peek(n int) uint32 {
	if n == 0 {
		return 0
	}
	i := r.pos >> 3
	sh := uint(r.pos & 7)
	var w uint64
	if i+8 <= len(r.buf) {
		w = binary.LittleEndian.Uint64(r.buf[i:])
	} else {
		for k := 0; i+k < len(r.buf) && k < 8; k++ {
			w |= uint64(r.buf[i+k]) << (8 * k)
		}
	}
	return uint32((w >> sh) & (1<<uint(n) - 1))
}

// Bits reads n bits (0 to 32), least significant first (wire.md 1.1). Zero
// bits read the value 0 and always succeed.
func (r *Reader) Bits(n int) uint32 {
	if r.err != nil {
		return 0
	}
	if n < 0 || n > 32 {
		r.err = &BitError{Bit: r.pos, Err: ErrRange, Detail: fmt.Sprintf("bit width %d", n)}
		return 0
	}
	if r.end-r.pos < n {
		r.short(n)
		return 0
	}
	v := r.peek(n)
	r.pos += n
	return v
}

// Bit reads one bit; 1 is true.
func (r *Reader) Bit() bool { return r.Bits(1) == 1 }

// Skip moves past n bits, failing like a read when fewer are left.
func (r *Reader) Skip(n int) {
	if r.err != nil {
		return
	}
	if n < 0 || r.end-r.pos < n {
		r.short(n)
		return
	}
	r.pos += n
}

// UInt8 reads 8 bits.
func (r *Reader) UInt8() uint8 { return uint8(r.Bits(8)) }

// UInt16 reads 16 bits (little-endian when aligned; wire.md 1.3).
func (r *Reader) UInt16() uint16 { return uint16(r.Bits(16)) }

// UInt32 reads 32 bits.
func (r *Reader) UInt32() uint32 { return r.Bits(32) }

// UInt64 reads two 32-bit words, the high one first (wire.md 1.3). Either
// both words are read or neither is.
func (r *Reader) UInt64() uint64 {
	if r.err == nil && r.end-r.pos < 64 {
		r.short(64)
	}
	hi := r.Bits(32)
	lo := r.Bits(32)
	return uint64(hi)<<32 | uint64(lo)
}

// Int8 reads 8 bits as a two's-complement value.
func (r *Reader) Int8() int8 { return int8(r.Bits(8)) }

// Int16 reads 16 bits as a two's-complement value.
func (r *Reader) Int16() int16 { return int16(r.Bits(16)) }

// Int32 reads 32 bits as a two's-complement value.
func (r *Reader) Int32() int32 { return int32(r.Bits(32)) }

// Int64 reads a UInt64 as a two's-complement value.
func (r *Reader) Int64() int64 { return int64(r.UInt64()) }

// Float reads an IEEE-754 single from its 32-bit pattern.
func (r *Reader) Float() float32 { return math.Float32frombits(r.Bits(32)) }

// AlignToByte skips to the next byte boundary. Non-zero padding is reported
// as ErrPadding (wire.md 1.2); the reader still ends up aligned so that a
// decoder may go on and show what follows.
func (r *Reader) AlignToByte() {
	if r.err != nil {
		return
	}
	pad := (8 - r.pos&7) & 7
	if pad == 0 {
		return
	}
	if r.end-r.pos < pad {
		r.short(pad)
		return
	}
	at := r.pos
	v := r.peek(pad)
	r.pos += pad
	if v != 0 {
		r.err = &BitError{Bit: at, Err: ErrPadding, Detail: fmt.Sprintf("%d padding bits are %#x", pad, v)}
	}
}

// Bytes aligns, then returns the next n raw bytes (wire.md 1.3). The slice
// aliases the input.
func (r *Reader) Bytes(n int) []byte {
	r.AlignToByte()
	if r.err != nil {
		return nil
	}
	if n < 0 || r.end-r.pos < n*8 {
		r.short(n * 8)
		return nil
	}
	i := r.pos >> 3
	r.pos += n * 8
	return r.buf[i : i+n : i+n]
}

// DefaultStringBits is the length width of a String when the caller names
// none (wire.md 1.3).
const DefaultStringBits = 11

// String reads a NetPak string whose (byteCount − 1) is lenBits wide: an
// isEmpty bit (1 = empty, nothing follows), the length, alignment and the
// UTF-8 bytes (wire.md 1.3). Invalid UTF-8 sets ErrUTF8 but still returns the
// bytes as a string so a caller can show them escaped.
func (r *Reader) String(lenBits int) string {
	b := r.StringBytes(lenBits)
	if b == nil {
		return ""
	}
	return string(b)
}

// StringBytes is String without the conversion: it returns the bytes,
// aliasing the input, and allocates nothing.
func (r *Reader) StringBytes(lenBits int) []byte {
	if r.err != nil {
		return nil
	}
	if r.Bit() || r.err != nil {
		return nil
	}
	n := int(r.Bits(lenBits)) + 1
	b := r.Bytes(n)
	if r.err == nil && !utf8.Valid(b) {
		r.err = &BitError{Bit: r.pos - n*8, Err: ErrUTF8, Detail: fmt.Sprintf("%d-byte string", n)}
	}
	return b
}
