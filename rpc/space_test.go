package rpc

import (
	"bytes"
	"testing"
)

// TestHasSpace: hasSpace, eight bytes at a time, finds JSON's space at
// every position, and nothing in bytes that only look like it.
func TestHasSpace(t *testing.T) {
	for n := range 20 {
		for pos := 0; pos <= n; pos++ {
			for _, c := range []byte{' ', '\t', '\n', '\r', '!', 0x00, 0x1f, 0x80, 0xa0, 0xff, 0x21, 0xa1} {
				b := append(bytes.Repeat([]byte{'a'}, pos), c)
				b = append(b, bytes.Repeat([]byte{0xc3}, n-pos)...)
				want := c == ' ' || c == '\t' || c == '\n' || c == '\r'
				if got := hasSpace(b); got != want {
					t.Fatalf("hasSpace(%q) = %v; want %v", b, got, want)
				}
			}
		}
	}
}
