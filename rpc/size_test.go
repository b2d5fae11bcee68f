package rpc

import (
	"testing"
	"unsafe"
)

// TestRecordSize: a Record fits the heap's 512-byte size class, eight
// cache lines (at 520 bytes it took 576, nine lines that a Lazy session
// clears for every frame, on a record the encoding goroutine read last),
// and what the JSON of a bare record with a payload reads lies in its
// first five lines, its last fields Transform and lazy (issue 28).
func TestRecordSize(t *testing.T) {
	var r Record
	for _, c := range []struct {
		name      string
		got, most uintptr
	}{
		{"Sizeof(Record{})", unsafe.Sizeof(r), 512},
		{"Offsetof(Record{}.Transform) + 8", unsafe.Offsetof(r.Transform) + unsafe.Sizeof(r.Transform), 5 * 64},
		{"Offsetof(Record{}.lazy) + 8", unsafe.Offsetof(r.lazy) + unsafe.Sizeof(r.lazy), 5 * 64},
	} {
		if c.got > c.most {
			t.Errorf("unsafe.%s = %d; want ≤ %d", c.name, c.got, c.most)
		}
	}
}
