package track

import (
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/listeners"
)

// framed is one message a fakeHost was handed.
type framed struct {
	dir dissect.Dir
	msg string
	seq uint64
}

// fakeHost records what a Conn hands its host while it is only fed (no
// message is numbered back to it).
type fakeHost struct {
	msgs     []framed
	findings []dissect.Finding
}

func (h *fakeHost) Message(f *decode.FramedMsg) {
	h.msgs = append(h.msgs, framed{f.Dir, string(f.Msg), f.At.Seq})
}
func (h *fakeHost) Finding(f dissect.Finding) { h.findings = append(h.findings, f) }
func (h *fakeHost) Bytes(int32) []byte        { return nil }
func (h *fakeHost) Decode(int32, dissect.Dir, unturned.State, []byte, bool) *unturned.Decoded {
	return &unturned.Decoded{}
}
func (h *fakeHost) Undecided(int32)                                        {}
func (h *fakeHost) Extra(int32, ...dissect.Finding)                        {}
func (h *fakeHost) Intern(b []byte) string                                 { return string(b) }
func (h *fakeHost) Listener(int32, *listeners.Op, *unturned.Decoded, bool) {}
func (h *fakeHost) Asked(int32)                                            {}
func (h *fakeHost) Link(int32, int32, time.Duration)                       {}
func (h *fakeHost) Time(int32) int64                                       { return 0 }
func (h *fakeHost) Committed(int32)                                        {}
func (h *fakeHost) Summary(*Summary)                                       {}

// TestHoldingAbandonOldest: a connection joined mid-stream holds the bytes
// of each direction until a chain of headers decides them; Holding is the
// earliest event among both directions' held bytes, and Abandon settles
// the direction holding the oldest first, its messages with their chunks'
// events (outputs.md "Ordering").
func TestHoldingAbandonOldest(t *testing.T) {
	lim := unturned.DefaultLimits()
	h := &fakeHost{}
	c := NewCapture(unturned.Default(), &lim, false, func(dissect.Finding) {}).New(h)
	c.MidStream()
	// Two whole messages each, with no third header after them: not yet
	// a chain resynchronisation trusts (wire.md 2).
	two := []byte{0, 3, 'a', 'b', 'c', 0, 2, 'd', 'e'}
	c.Bytes(dissect.S2C, two, decode.Stamp{Frame: 1, Seq: 7})
	c.Bytes(dissect.C2S, two, decode.Stamp{Frame: 2, Seq: 9})
	if seq, ok := c.Holding(); !ok || seq != 7 {
		t.Fatalf("Holding() = %d, %v; want 7, true", seq, ok)
	}
	if len(h.msgs) != 0 {
		t.Fatalf("framed %v before the chain was decided; want none", h.msgs)
	}
	for k, want := range []struct {
		dir      dissect.Dir // the direction Abandon settles
		at       uint64      // the event its messages came in
		holdSeq  uint64      // Holding after it
		holdLeft bool
	}{{dissect.S2C, 7, 9, true}, {dissect.C2S, 9, 0, false}} {
		before := len(h.msgs)
		c.Abandon()
		got := h.msgs[before:]
		if len(got) != 2 || got[0] != (framed{want.dir, "abc", want.at}) || got[1] != (framed{want.dir, "de", want.at}) {
			t.Errorf("Abandon %d framed %v; want abc and de of %v at event %d", k, got, want.dir, want.at)
		}
		if seq, ok := c.Holding(); ok != want.holdLeft || ok && seq != want.holdSeq {
			t.Errorf("after Abandon %d: Holding() = %d, %v; want %d, %v", k, seq, ok, want.holdSeq, want.holdLeft)
		}
	}
}
