package ulinkrpc

import (
	"errors"
	"testing"
)

// TestWSHeaderSize checks wsHeaderSize against ParseWSHeader for every
// second byte (each length form, masked or not) and both a data and a
// control opcode: the header is whole at exactly that size, and one byte
// less is ErrShort.
func TestWSHeaderSize(t *testing.T) {
	for _, b0 := range []byte{0x82, 0x89} {
		for b1 := range 256 {
			b := []byte{b0, byte(b1), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
			switch b1 & 0x7f {
			case 126:
				b[2], b[3] = 0x01, 0x00 // 256: the shortest form
			case 127:
				b[7] = 0x01 // 1<<24
			}
			n := wsHeaderSize(b)
			if got := wsHeaderSize(b[:1]); got != 2 {
				t.Fatalf("wsHeaderSize(%x) = %d; want 2", b[:1], got)
			}
			if _, err := ParseWSHeader(b[:n-1]); !errors.Is(err, ErrShort) {
				t.Errorf("ParseWSHeader(%x), one short of wsHeaderSize %d = %v; want ErrShort", b[:n-1], n, err)
			}
			h, err := ParseWSHeader(b[:n])
			if errors.Is(err, ErrShort) || err == nil && h.Size != n {
				t.Errorf("ParseWSHeader(%x) = size %d, %v; want size wsHeaderSize %d", b[:n], h.Size, err, n)
			}
		}
	}
}
