package listeners

import (
	"testing"

	"github.com/usmnscope/usmnscope/unturned"
)

// TestHistory: ApplyAt takes a checkpoint every CheckpointEvery Ops, and
// Checkpoint gives a copy of the nearest state at or before a message,
// empty before the first; Apply keeps none.
func TestHistory(t *testing.T) {
	lim := unturned.DefaultLimits()
	lim.CheckpointEvery = 2
	var h History
	if _, ok := h.Current().Server(1); ok || h.Current().Size() != 0 {
		t.Fatal("an empty History has tables")
	}
	// Message k (position k-1) defines server ID k.
	for k := 1; k <= 6; k++ {
		var res Result
		h.ApplyAt(&Op{Kind: OpServerDef, N: k, SID: uint32(k), Type: "T"}, &lim, k-1, &res)
	}
	if h.Checkpoints() != 3 {
		t.Errorf("%d checkpoints; want 3", h.Checkpoints())
	}
	for _, tt := range []struct{ k, pos, size int }{{0, 0, 0}, {1, 0, 0}, {2, 2, 2}, {3, 2, 2}, {5, 4, 4}, {6, 6, 6}, {9, 6, 6}} {
		pos, st := h.Checkpoint(tt.k)
		if pos != tt.pos || st.Size() != tt.size {
			t.Errorf("Checkpoint(%d) = %d, %d entries; want %d, %d", tt.k, pos, st.Size(), tt.pos, tt.size)
		}
		var res Result
		st.Apply(&Op{Kind: OpServerDef, N: 99, SID: 99, Type: "U"}, &lim, &res) // a copy: the History does not change
	}
	if h.Current().Size() != 6 {
		t.Errorf("live tables hold %d entries; want 6", h.Current().Size())
	}
	var s History
	var res Result
	s.Apply(&Op{Kind: OpServerDef, N: 1, SID: 1, Type: "T"}, &lim, &res)
	if s.Checkpoints() != 0 || s.Current().Size() != 1 {
		t.Errorf("Apply: %d checkpoints, %d entries; want 0, 1", s.Checkpoints(), s.Current().Size())
	}
}
