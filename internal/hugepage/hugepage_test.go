package hugepage

import (
	"testing"
	"unsafe"
)

// TestBytes: whole huge pages, starting on a boundary, zero, and as
// long as asked.
func TestBytes(t *testing.T) {
	for _, pages := range []int{1, 3} {
		b := Bytes(pages)
		if len(b) != pages*Size || cap(b) != pages*Size {
			t.Errorf("Bytes(%d): len %d, cap %d; want %d", pages, len(b), cap(b), pages*Size)
		}
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(b))); p%Size != 0 {
			t.Errorf("Bytes(%d) starts at %#x: not on a huge page boundary", pages, p)
		}
		for i := 0; i < len(b); i += 4096 {
			if b[i] != 0 {
				t.Fatalf("Bytes(%d)[%d] = %d; want 0", pages, i, b[i])
			}
			b[i] = 1
		}
	}
}
