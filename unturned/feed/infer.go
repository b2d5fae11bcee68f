package feed

import (
	"runtime"
	"sync"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

// Decoded is ix as the profile search reads a decode (infer.Decoded): the
// search sits on Unturned's side and names no session type, so the host
// hands it its index through this adapter.
func Decoded(ix *session.Index) infer.Decoded { return decoded{ix} }

type decoded struct{ ix *session.Index }

func (d decoded) Len() int { return d.ix.Len() }

// Head is Index.Head; a message with a hosted record is another
// protocol's.
func (d decoded) Head(n int) (infer.Head, bool) {
	h, ok := d.ix.Head(n)
	if !ok {
		return infer.Head{}, false
	}
	out := Head(&h)
	out.Other = h.Record() != nil
	return out, true
}

func (d decoded) Message(n int) (infer.Message, bool) {
	m := d.ix.Message(n)
	if m == nil {
		return infer.Message{}, false
	}
	return Message(m), true
}

// Findings are those of the connections no hosted protocol holds (Proto
// empty): the Unturned ones.
func (d decoded) Findings() []dissect.Finding {
	var out []dissect.Finding
	for _, ci := range d.ix.Connections() {
		if ci.Proto == "" {
			out = append(out, ci.Findings...)
		}
	}
	return out
}

// Head is h as the search reads a head. A Head from Index.Heads carries no
// record, only Hosted, so either says another protocol's.
func Head(h *session.Head) infer.Head {
	return infer.Head{N: h.N, Conn: h.Conn, Dir: h.Dir, Kind: h.Kind,
		Flagged: h.HasFinding && h.Worst >= dissect.Warn, Other: h.Hosted || h.Record() != nil}
}

// Message is m as the search reads a message.
func Message(m *session.Message) infer.Message {
	h := infer.Head{N: m.N, Conn: m.Conn, Dir: m.Dir, Kind: m.Kind, Other: m.Record() != nil}
	if w, ok := m.Worst(); ok && w >= dissect.Warn {
		h.Flagged = true
	}
	return infer.Message{Head: h, Data: m.Data, Findings: m.Findings,
		Unresolved: m.Listener != nil && !m.Listener.Resolved}
}

// Score is the profile hint's score of a full Index (every message kept),
// tallied from each message's Mark as infer.Tally does for a stream: the
// index records say the kind and the worst severity without decoding, so
// only workshop messages are decoded (for their trailer note). The TUI
// scores its million-message index this way before it says loaded (issue
// 18); an index of scoreSplit messages or more is tallied in parts on
// several cores (issue 28).
func Score(dc *session.Index) infer.Hint {
	if !unturnedMessages(dc) {
		// Hosted messages alone (a ULinkRPC capture): each is another
		// protocol's, Unknown, which says nothing of the profile
		// (Tally.Head), so no head is read (issue 28: a million frames'
		// were 40 ms of CPU before the TUI said loaded).
		return infer.Hint{}
	}
	return score(dc)
}

// score is Score tallied from every head.
func score(dc *session.Index) infer.Hint {
	d, n := Decoded(dc), dc.Len()
	parts := 1
	if n >= scoreSplit {
		parts = min(runtime.GOMAXPROCS(0), 4) // the reads share one lock
	}
	ts := make([]infer.Tally, parts)
	var wg sync.WaitGroup
	for i := range ts {
		wg.Go(func() { tallyHeads(dc, d, &ts[i], 1+n*i/parts, 1+n*(i+1)/parts) })
	}
	wg.Wait()
	for i := 1; i < parts; i++ {
		ts[0].Add(&ts[i])
	}
	return ts[0].Score(d)
}

// unturnedMessages reports whether a connection no hosted protocol holds
// (Proto empty) has messages.
func unturnedMessages(dc *session.Index) bool {
	for _, ci := range dc.Connections() {
		if ci.Proto == "" && ci.Messages > 0 {
			return true
		}
	}
	return false
}

// scoreSplit is the index size from which Score tallies parts of it on
// several cores: the last step before the TUI says loaded (issue 28).
var scoreSplit = 1 << 16 // a variable for its test

// tallyHeads tallies the heads of messages from..to-1 of dc into t, read
// as Marks: the tally reads no connection or direction.
func tallyHeads(dc *session.Index, d infer.Decoded, t *infer.Tally, from, to int) {
	buf := make([]session.Mark, 0, 4096)
	for n := from; n < to; {
		ms := dc.Marks(buf[:0:min(cap(buf), to-n)], n)
		if len(ms) == 0 {
			return
		}
		for i := range ms {
			m := &ms[i]
			h := infer.Head{N: m.N, Kind: m.Kind, Flagged: m.HasFinding && m.Worst >= dissect.Warn, Other: m.Hosted}
			t.Head(d, &h)
		}
		n += len(ms)
	}
}
