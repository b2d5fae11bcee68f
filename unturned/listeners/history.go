package listeners

import (
	"sort"

	"github.com/usmnscope/usmnscope/unturned"
)

// History is one connection's listener tables over time: the live State,
// made with the first Op, and copies of it (checkpoints) taken as the Ops
// of the connection's messages are applied (ApplyAt), so that the tables
// as of an earlier message are the nearest checkpoint (Checkpoint) with
// the Ops after it applied again. The Ops themselves are not kept: a host
// takes them again from its messages. Its zero value is empty.
type History struct {
	live *State
	ops  int // Ops applied so far
	// checkpoints are the states after the connection's first pos
	// messages, in order; before the first, the tables are empty.
	checkpoints []checkpoint
}

// checkpoint is the state after the connection's first pos messages,
// which held its first ops Ops.
type checkpoint struct {
	pos   int
	ops   int
	state *State
}

// empty is the state of every History before its first Op: a
// checkpoint's state is only ever cloned, and ten thousand connections
// that never define a listener should not hold ten thousand empty copies
// (issue 29's partial-frame shape).
var empty = New()

// Current returns the live tables to read: empty ones before the first Op.
func (h *History) Current() *State {
	if h.live == nil {
		return empty
	}
	return h.live
}

// Apply applies o to the live tables and keeps no checkpoint (a host
// without history).
func (h *History) Apply(o *Op, lim *unturned.Limits, res *Result) {
	if h.live == nil {
		h.live = New()
	}
	h.live.Apply(o, lim, res)
	h.ops++
}

// ApplyAt applies o, the Op of the connection's message at position pos
// (from 0) of its messages, to the live tables and takes a checkpoint when
// enough Ops passed since the last one. The interval grows with the
// tables, so that checkpoints never cost more memory than the replays they
// save.
func (h *History) ApplyAt(o *Op, lim *unturned.Limits, pos int, res *Result) {
	h.Apply(o, lim, res)
	last := 0
	if n := len(h.checkpoints); n > 0 {
		last = h.checkpoints[n-1].ops
	}
	if since := h.ops - last; since >= lim.CheckpointEvery && since >= h.live.Size()/4 {
		h.checkpoints = append(h.checkpoints, checkpoint{pos: pos + 1, ops: h.ops, state: h.live.Clone()})
	}
}

// Checkpoint returns a copy of the nearest state at or before the
// connection's first k messages, and how many messages it is after.
func (h *History) Checkpoint(k int) (pos int, st *State) {
	j := sort.Search(len(h.checkpoints), func(i int) bool { return h.checkpoints[i].pos > k })
	if j == 0 {
		return 0, empty.Clone()
	}
	cp := h.checkpoints[j-1]
	return cp.pos, cp.state.Clone()
}

// Checkpoints counts the checkpoints taken.
func (h *History) Checkpoints() int { return len(h.checkpoints) }
