//go:build linux

package netpak

import (
	"syscall"
	"testing"
)

// TestNoReadPastEnd puts each input at the very end of a readable page,
// followed by a page that may not be read, so that a load of even one byte
// past the input crashes the test instead of going unnoticed: Bits loads 8
// bytes at a time and must switch to its tail word in the last 7 bytes.
func TestNoReadPastEnd(t *testing.T) {
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	for i := range page {
		mem[i] = byte(i*37 + 11)
	}
	for size := 0; size <= 40; size++ {
		buf := mem[page-size : page : page]
		var r Reader
		for n := 0; n <= 32; n++ {
			for at := 0; at <= 8*size; at++ {
				r.Reset(buf)
				r.Skip(at)
				got := r.Bits(n)
				if at+n <= 8*size && got != refBits(buf, at, n) {
					t.Fatalf("size %d: Bits(%d) at bit %d = %#x; want %#x", size, n, at, got, refBits(buf, at, n))
				}
				r.Reset(buf)
				r.Skip(at)
				r.AlignToByte()
				s := NewReader(buf).Sub(at, -1)
				s.Bits(n)
				s.StringBytes(3)
			}
		}
	}
}
