package ulinkrpc

import (
	"encoding/binary"
	"fmt"
)

// reader reads one layer's bytes. It never panics: the first failed read
// sets a sticky *Error (compress/flate's f.err) and every later read returns
// zero values, so a decoder reads a whole header and checks err once. pos is
// relative to the layer's input; base is that input's offset in the message
// (the envelope), used for the byte spans of the fields.
type reader struct {
	b     []byte
	pos   int
	base  int
	layer string
	err   error
	// quiet fails with errGuess, saying nothing of where or why: a
	// MemoryPack guess only asks whether its bytes fit (issue 28: the
	// errors of the guesses that did not were a tenth of what `dump
	// --json` allocated).
	quiet bool
}

// errGuess is the error of every failed read of a quiet reader.
var errGuess = &Error{Layer: "memorypack", Err: ErrFormat, Detail: "does not fit the guessed shape"}

// failQuiet fails a quiet reader, and reports whether r is one: its
// caller then leaves the error it would set unmade.
func (r *reader) failQuiet() bool {
	if r.quiet && r.err == nil {
		r.err = errGuess
	}
	return r.quiet
}

func newReader(layer string, b []byte, base int) *reader {
	return &reader{b: b, layer: layer, base: base}
}

func (r *reader) left() int { return len(r.b) - r.pos }

// need checks that n bytes are left for field, failing the reader if not.
func (r *reader) need(field string, n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || r.left() < n {
		if r.failQuiet() {
			return false
		}
		r.err = &Error{Layer: r.layer, Field: field, Offset: r.pos, Need: n, Have: r.left(), Err: ErrShort}
		return false
	}
	return true
}

// fail sets the sticky error at byte off unless one is already set.
func (r *reader) fail(field string, off int, sentinel error, format string, args ...any) {
	if r.err == nil && !r.failQuiet() {
		r.err = &Error{Layer: r.layer, Field: field, Offset: off, Err: sentinel, Detail: fmt.Sprintf(format, args...)}
	}
}

func (r *reader) bytes(field string, n int) []byte {
	if !r.need(field, n) {
		return nil
	}
	v := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return v
}

func (r *reader) u8(field string) uint8 {
	if !r.need(field, 1) {
		return 0
	}
	r.pos++
	return r.b[r.pos-1]
}

func (r *reader) u32be(field string) uint32 {
	if b := r.bytes(field, 4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64be(field string) uint64 {
	if b := r.bytes(field, 8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (r *reader) u16le(field string) uint16 {
	if b := r.bytes(field, 2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) u32le(field string) uint32 {
	if b := r.bytes(field, 4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *reader) u64le(field string) uint64 {
	if b := r.bytes(field, 8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}
