package netpak

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"
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
	return fmt.Sprintf("need %s at bit %d, have %d", countBits(e.Want), e.Bit, e.Have)
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
// as in compress/flate: the first failed read sets Err and every later read
// returns zero values. A decoder therefore reads a whole header and checks
// Err once.
//
// A read that runs short leaves Pos where that read started; for a composite
// read (String, UInt64, GUID, ClampedVector3, …) that is the start of the
// whole read, while the ShortError names the bit of the part that ran out.
// A read that fails for another reason (ErrPadding, ErrUTF8, ErrRange) leaves
// Pos after the bits it consumed, so a decoder can show what follows.
//
// A Reader holds no pointer into itself, so a copy by value reads on from
// the same bit independently; Sub gives a view bounded to a bit range.
type Reader struct {
	// The fields Bits touches come first, so that they share a cache line.
	pos int // absolute stream bit of the next read
	// lim is end while no error is pending and negative once one is, so
	// that Bits checks the sticky error and the end with one comparison.
	// When Bits itself fails it stores ^width in lim and builds the error
	// only when Err is called, which keeps Bits free of calls and inlinable.
	lim int
	// A read starting below bit fast may load the 8 bytes at ptr+pos/8:
	// fast is (len(buf)−7)·8, or 0 for an input shorter than 8 bytes.
	// Reads from fast on take their bits from tail instead, so no byte past
	// the input is ever touched.
	fast int
	ptr  unsafe.Pointer // the first byte of buf, for the 8-byte loads
	// tail is the last 8 bytes of buf (all of a shorter buf, zero-padded)
	// as a little-endian word, rotated so that stream bit k is word bit
	// k mod 64: rotating right by pos then puts the next bit at bit 0.
	tail  uint64
	buf   []byte // the caller's input
	start int    // first bit of this reader's range (for sub-readers)
	end   int    // one past the last readable bit
	err   error
}

// NewReader returns a Reader over all of b.
func NewReader(b []byte) *Reader {
	r := &Reader{}
	r.Reset(b)
	return r
}

// Reset makes r read b from its start, clearing any error. It lets a hot
// loop reuse one Reader without allocating.
//
// Every field is set one by one: a Reader literal is built on the stack and
// copied whole, and that copy stalled the store buffer on every message
// (issue 18).
func (r *Reader) Reset(b []byte) {
	r.pos, r.lim, r.start, r.end, r.err = 0, len(b)*8, 0, len(b)*8, nil
	r.buf = b
	r.setLoad()
}

// setLoad derives ptr, fast and tail from buf (see Reader).
func (r *Reader) setLoad() {
	b := r.buf
	r.ptr = unsafe.Pointer(unsafe.SliceData(b))
	if at := len(b) - 8; at >= 0 {
		r.fast = (at + 1) * 8
		r.tail = bits.RotateLeft64(binary.LittleEndian.Uint64(b[at:]), at*8)
		return
	}
	// A short input starts at stream bit 0, so its word needs no rotation.
	r.fast = 0
	r.tail = 0
	for i, c := range b {
		r.tail |= uint64(c) << (8 * i)
	}
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
func (r *Reader) Err() error {
	if r.err == nil && r.lim < 0 {
		r.settle()
	}
	return r.err
}

// settle builds the error a failed Bits call left encoded in lim. Bits
// never moves pos when it fails, so pos is still the failed read's bit.
func (r *Reader) settle() {
	n := ^r.lim
	if n <= 32 {
		r.err = &ShortError{Bit: r.pos, Want: n, Have: r.end - r.pos}
		return
	}
	r.err = &BitError{Bit: r.pos, Err: ErrRange, Detail: fmt.Sprintf("bit width %d", int32(uint32(n)))}
}

// failed reports whether an error is pending.
func (r *Reader) failed() bool { return r.lim < 0 }

// Buffer returns the whole underlying buffer (not only the reader's range),
// for hexdumps that highlight spans by their stream bits.
func (r *Reader) Buffer() []byte { return r.buf }

// Sub returns a reader bounded to the bit range [bit, bit+n) of the same
// buffer, for listener payloads and other length-limited parts. A range
// outside r's own is clipped to it, so a sub-reader can never see more than
// its parent. A negative n means "to the end of r". The sub-reader starts
// without an error even if r has one.
func (r *Reader) Sub(bit, n int) *Reader {
	bit = max(r.start, min(bit, r.end))
	end := r.end
	if n >= 0 && n < r.end-bit {
		end = bit + n
	}
	s := &Reader{buf: r.buf, pos: bit, start: bit, end: end, lim: end}
	s.setLoad()
	return s
}

// Seek moves the reader to absolute stream bit, clipped to its range. It
// does not clear an error.
func (r *Reader) Seek(bit int) {
	r.Err() // a pending error names the bit it failed at: fix it first
	r.pos = max(r.start, min(bit, r.end))
}

// SetErr records err as the reader's sticky error if it has none yet. Decoders
// use it for semantic failures (an enum out of range) found above the reader.
func (r *Reader) SetErr(err error) {
	if r.lim >= 0 && err != nil {
		r.err = err
		r.lim = -1
	}
}

// short records a ShortError for a read of want bits at the current bit.
func (r *Reader) short(want int) {
	if r.lim >= 0 {
		r.SetErr(&ShortError{Bit: r.pos, Want: want, Have: r.end - r.pos})
	}
}

// fail records a BitError at bit.
func (r *Reader) fail(bit int, err error, format string, args ...any) {
	if r.lim >= 0 {
		r.SetErr(&BitError{Bit: bit, Err: err, Detail: fmt.Sprintf(format, args...)})
	}
}

// rewind puts the reader back at bit if the pending error is a short read.
// Composite reads call it so that a short read leaves a defined position.
func (r *Reader) rewind(bit int) {
	if _, ok := r.Err().(*ShortError); ok {
		r.pos = bit
	}
}

// masks[n] has the low n bits set.
var masks = func() (m [33]uint64) {
	for n := range m {
		m[n] = 1<<uint(n) - 1
	}
	return m
}()

// peek returns the n (0..32) bits at r.pos without moving. The caller has
// checked that they exist.
func (r *Reader) peek(n int) uint32 {
	return uint32(r.word(r.pos) & masks[n])
}

// word returns the stream bits from bit p on, bit p first: at least 57 of
// them (an 8-byte load shifted by p mod 8) below fast, and every bit up to
// the end of the input from fast on. p must not be past the input's end.
func (r *Reader) word(p int) uint64 {
	if p < r.fast {
		// 0 ≤ p < fast = (len(buf)−7)·8 means p/8+8 ≤ len(buf): the 8
		// bytes are inside the input. The check is ours rather than a
		// slice expression's because the compiler cannot derive it from
		// fast and would add two bounds checks, which measured slower than
		// the whole read. TestNoReadPastEnd puts inputs before an
		// unreadable page to prove the bound; checkptr (-race or
		// -gcflags=-d=checkptr) also checks that the 8 bytes lie in one
		// allocation.
		return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(r.ptr, p>>3))[:]) >> (p & 7)
	}
	return bits.RotateLeft64(r.tail, -p)
}

// Bits reads n bits (0 to 32), least significant first (wire.md 1.1). Zero
// bits read the value 0 and always succeed unless an error is pending.
//
// Bits is the hot path of every decoder. It inlines: one comparison checks
// the width, one the end and the sticky error together, and one whether an
// 8-byte little-endian load at pos/8 stays inside the input; then a load
// and a shift give the value. Reads in the last 7 bytes rotate the cached
// tail word instead, so no byte past the input is touched. Its inline cost
// (go build -gcflags=-m=2) is 74 of the compiler's 80, which leaves room for
// the wrappers Bit, UInt8, UInt32, … to inline too; keep it there.
func (r *Reader) Bits(n int) uint32 {
	p := r.pos
	if uint(n) <= 32 && p+n <= r.lim {
		r.pos = p + n
		// word(p), written out so that each branch masks and returns
		// without a jump to a shared tail.
		if p < r.fast {
			return uint32(binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(r.ptr, p>>3))[:]) >> (p & 7) & masks[n])
		}
		return uint32(bits.RotateLeft64(r.tail, -p) & masks[n])
	}
	if r.lim >= 0 {
		r.lim = ^int(uint32(n))
	}
	return 0
}

// Bit reads one bit; 1 is true.
func (r *Reader) Bit() bool { return r.Bits(1) == 1 }

// Skip moves past n bits, failing like a read when fewer are left.
func (r *Reader) Skip(n int) {
	if r.failed() {
		return
	}
	if n < 0 {
		r.fail(r.pos, ErrRange, "skip of %d bits", n)
		return
	}
	if r.end-r.pos < n {
		r.short(n)
		return
	}
	r.pos += n
}

// need checks that n more bits exist, recording a ShortError if not, so that
// a composite read fails as a whole and says how much it needed.
func (r *Reader) need(n int) bool {
	if r.failed() {
		return false
	}
	if r.end-r.pos < n {
		r.short(n)
		return false
	}
	return true
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
	if !r.need(64) {
		return 0
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
	if r.failed() {
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
		r.fail(at, ErrPadding, "%d padding bits are %#x", pad, v)
	}
}

// Bytes aligns, then returns the next n raw bytes (wire.md 1.3). The slice
// aliases the input. A short read leaves Pos where the call started.
func (r *Reader) Bytes(n int) []byte {
	if r.failed() {
		return nil
	}
	at := r.pos
	r.AlignToByte()
	if r.failed() {
		r.rewind(at)
		return nil
	}
	if n < 0 {
		r.fail(r.pos, ErrRange, "byte count %d", n)
		return nil
	}
	if n > (r.end-r.pos)/8 {
		want := math.MaxInt
		if n <= math.MaxInt/8 {
			want = n * 8
		}
		r.short(want)
		r.pos = at
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
	if r.failed() {
		return nil
	}
	at := r.pos
	if r.Bit() || r.failed() {
		return nil
	}
	n := int(r.Bits(lenBits)) + 1
	b := r.Bytes(n)
	if r.failed() {
		r.rewind(at)
		return nil
	}
	if !utf8.Valid(b) {
		r.fail(r.pos-n*8, ErrUTF8, "%d-byte string", n)
	}
	return b
}

// CountBits returns the number of significant bits of v, the width the game
// gives an enum or list count whose maximum is v (wire.md 1.3): 0→0, 1→1,
// 7→3, 8→4, 255→8, 256→9.
func CountBits(v uint32) int { return bits.Len32(v) }

// Enum reads a generated NetPak enum whose largest value is maxValue:
// CountBits(maxValue) bits. A value above maxValue sets ErrRange, as the vanilla reader rejects it
// (wire.md 1.3); the value is still returned so a caller can show it.
func (r *Reader) Enum(maxValue uint32) uint32 {
	at := r.pos
	v := r.Bits(CountBits(maxValue))
	if v > maxValue {
		r.fail(at, ErrRange, "enum value %d above maximum %d", v, maxValue)
	}
	return v
}

// ListCount reads the item count of a List(maxCount): CountBits(maxCount)
// bits (wire.md 1.3). The game's writer never sends more than maxCount
// items, so a larger count sets ErrRange; it is still returned so a caller
// can show it.
func (r *Reader) ListCount(maxCount int) int {
	if maxCount < 0 || maxCount > math.MaxUint32 {
		r.fail(r.pos, ErrRange, "list maximum %d", maxCount)
		return 0
	}
	at := r.pos
	n := int(r.Bits(CountBits(uint32(maxCount))))
	if n > maxCount {
		r.fail(at, ErrRange, "list count %d above maximum %d", n, maxCount)
	}
	return n
}

// NetID reads a 32-bit network object id; 0 means none (wire.md 1.3).
func (r *Reader) NetID() uint32 { return r.Bits(32) }

// SteamID reads a 64-bit Steam id, a UInt64 (high dword first).
func (r *Reader) SteamID() uint64 { return r.UInt64() }

// GUID reads a .NET GUID: two UInt64s holding ToByteArray()'s bytes 0..7 and
// 8..15 as little-endian numbers (wire.md 1.3).
func (r *Reader) GUID() GUID {
	var g GUID
	if !r.need(128) {
		return g
	}
	binary.LittleEndian.PutUint64(g[0:], r.UInt64())
	binary.LittleEndian.PutUint64(g[8:], r.UInt64())
	return g
}

// DateTime reads a .NET DateTime.ToBinary() value, an Int64 (wire.md 1.3).
func (r *Reader) DateTime() DateTime { return DateTime(r.Int64()) }

// SignedInt reads an n-bit (0 to 32) offset-binary integer: the wire holds
// v + 2^(n−1) (wire.md 1.3).
func (r *Reader) SignedInt(n int) int32 {
	v := r.Bits(n)
	if n <= 0 || n > 32 {
		return 0
	}
	return int32(int64(v) - int64(1)<<(n-1))
}

// Color32RGB reads three UInt8s; alpha is 255 (wire.md 1.3).
func (r *Reader) Color32RGB() Color32 {
	if !r.need(24) {
		return Color32{}
	}
	return Color32{R: r.UInt8(), G: r.UInt8(), B: r.UInt8(), A: 255}
}

// Color32RGBA reads four UInt8s.
func (r *Reader) Color32RGBA() Color32 {
	if !r.need(32) {
		return Color32{}
	}
	return Color32{R: r.UInt8(), G: r.UInt8(), B: r.UInt8(), A: r.UInt8()}
}

// TransformPathBits is the length width of a Transform's path string.
const TransformPathBits = 7

// Transform reads a reference to a scene transform: a has-value bit, then
// if set a NetID and a String(7) path (wire.md 1.3).
func (r *Reader) Transform() Transform {
	if r.failed() {
		return Transform{}
	}
	at := r.pos
	if !r.Bit() {
		return Transform{}
	}
	t := Transform{Valid: true, NetID: r.NetID(), Path: r.String(TransformPathBits)}
	if r.failed() {
		r.rewind(at)
		if r.pos == at {
			return Transform{}
		}
	}
	return t
}

// countBits is "1 bit" or "N bits" (netpak is below dissect's Count).
func countBits(n int) string {
	if n == 1 {
		return "1 bit"
	}
	return strconv.Itoa(n) + " bits"
}
