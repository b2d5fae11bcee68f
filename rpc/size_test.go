package rpc

import (
	"testing"
	"unsafe"
)

// TestRecordSize: a Record fits the heap's 512-byte size class, eight
// cache lines: at 520 bytes it took 576, nine lines that a Lazy session
// clears for every frame, on a record the encoding goroutine read last
// (issue 28).
func TestRecordSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"Record", unsafe.Sizeof(Record{}), 512},
	} {
		if c.got > c.want {
			t.Errorf("unsafe.Sizeof(%s{}) = %d; want ≤ %d", c.name, c.got, c.want)
		}
	}
}
