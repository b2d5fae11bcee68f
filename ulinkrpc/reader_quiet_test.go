package ulinkrpc

import (
	"errors"
	"testing"
)

// TestReaderQuiet: a quiet reader (a MemoryPack guess's) fails with
// errGuess alone, a plain one with the field and offset; both stay failed.
func TestReaderQuiet(t *testing.T) {
	tests := []struct {
		quiet bool
		read  func(r *reader)
		want  string
	}{
		{true, func(r *reader) { r.u32le("n") }, errGuess.Error()},
		{true, func(r *reader) { r.fail("n", 1, ErrInvalidLength, "length %d", 9) }, errGuess.Error()},
		{false, func(r *reader) { r.u8("a"); r.u32le("n") }, "ulinkrpc memorypack: n: need 4 bytes at byte 1, have 2"},
		{false, func(r *reader) { r.fail("n", 1, ErrInvalidLength, "length %d", 9); r.u8("a") }, "ulinkrpc memorypack: n: length 9 at byte 1"},
	}
	for _, tt := range tests {
		r := &reader{b: []byte{1, 2, 3}, layer: "memorypack", quiet: tt.quiet}
		tt.read(r)
		if r.err == nil || r.err.Error() != tt.want {
			t.Errorf("quiet %v: err = %v; want %s", tt.quiet, r.err, tt.want)
		}
		if tt.quiet && !errors.Is(r.err, ErrFormat) {
			t.Errorf("quiet: err = %v; want ErrFormat", r.err)
		}
	}
	// A guess that does not fit leaves the cut's own error as it was.
	if _, err := CutMemoryPack([]byte{1, 5, 3, 0, 0, 0}); err == nil || errors.Is(err, errGuess) {
		t.Errorf("CutMemoryPack(short member) = %v; want its own error", err)
	}
}
