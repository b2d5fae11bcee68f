package pipeline

import (
	"fmt"
	"io"
	"os"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

// InferSample bounds the event data profile infer holds in memory and
// decodes (twice: under the active profile and the inferred one; the
// search reads a sample of its messages, infer.RunBounded): the start of a
// capture, where the handshake and the definitions are, is what decides
// the constants. 512 KiB is some 50,000 small messages.
const InferSample = 512 << 10

// Replay decodes a recording under any profile (infer.Decoder): a new
// index without ULinkRPC, fed the recorded events.
func Replay(rec *Recording) infer.Decoder {
	return func(p *unturned.Profile) infer.Decoded {
		ix := NewIndex(p, -1)
		_ = Feed(rec.Source(), ix, nil)
		return Inferred(ix)
	}
}

// Infer records the start of the capture o names (at most InferSample
// bytes of its data, o.Profile's capture options, no ULinkRPC) and
// searches the profile constants that explain it best (infer.Run). A
// capture that cannot be opened, or that breaks before its first event,
// is an error naming it.
func Infer(o Options) (*infer.Result, *Recording, error) {
	src, err := OpenSource(o)
	if err != nil {
		return nil, nil, err
	}
	rec := Record(src, InferSample)
	src.Close()
	if rec.Err != nil && len(rec.Events) == 0 {
		return nil, rec, fmt.Errorf("profile infer: %s: %w", termsafe.Escape(o.Path), rec.Err)
	}
	p := o.Profile
	if p == nil {
		p = unturned.Default()
	}
	return infer.Run(p, Replay(rec)), rec, nil
}

// WriteInferReport writes the text report of profile infer (infer.WriteReport)
// of res, which Infer found for o from rec: the capture, the profile o
// decodes under, and what of the capture was searched.
func WriteInferReport(w io.Writer, o Options, rec *Recording, res *infer.Result) {
	p := o.Profile
	if p == nil {
		p = unturned.Default()
	}
	infer.WriteReport(w, o.Path, p.Name, SearchedKiB(rec), res)
}

// SearchedKiB is what the report of profile infer says of a recording
// Infer made: the KiB of the capture's data searched when the recording
// stopped at InferSample, else 0 (all of it was).
func SearchedKiB(rec *Recording) int {
	if rec.Truncated {
		return InferSample >> 10
	}
	return 0
}

// Hint bounds: the sample a dump or tables spends, only when the active
// profile decodes a capture badly, on finding whether another profile
// decodes it cleanly, and the candidate profiles the search reads it under
// (infer.RunBounded: two decodes of the sample's start, each candidate
// reading at most a few thousand messages of it).
const (
	hintSample     = 256 << 10
	hintCandidates = 5000
)

// The hint's time is bounded by the work it may do (issue 29: at most a
// tenth of the load and 1 s), counted in message decodes as
// infer.RunBudget counts them. The search reads a message 3–5 times
// faster than a load decodes one (measured on this 2-core machine: 1.3–2.9
// million readings a second; dump --json 0.57 million messages, tables
// --json more), so 3/10 of the load's messages stay within a tenth of its
// time, and 1,000,000 readings within 1 s. A capture the profile decodes
// badly hands out few messages for its bytes (the 19.5 MB load of 200,000
// messages gives 26,807 under a wrong profile, in the same 0.9 s of CPU),
// so the load is also counted by its bytes: a reading per 128 bytes of
// the file, under a tenth of the load's time at the rates above. Below
// 30,000 readings (10–25 ms, less than starting the process) a small
// capture is searched as before. The sample it records is at most a
// twentieth of the file: its two decodes count in the bound too.
const (
	HintMaxDecodes = 1_000_000
	HintMinDecodes = 30_000
	hintMinSample  = 64 << 10
)

// HintBudget is the message decodes the hint may spend after a load that
// handed out messages from a file of size bytes.
func HintBudget(messages int, size int64) int {
	return min(HintMaxDecodes, max(HintMinDecodes, messages*3/10, int(min(size/128, HintMaxDecodes))))
}

// hintSampleBytes is the capture data the hint records from a file of
// size bytes.
func hintSampleBytes(size int64) int {
	return int(min(hintSample, max(hintMinSample, size/20)))
}

// HintRun is the hint's search (a test counts the work it is given and
// spends).
var HintRun = infer.RunBudget

// HintIndex adds a capture finding when the active profile p decodes the
// capture at path badly and an inferred one decodes its start cleanly,
// with the command that prints that profile (issue 13 point 5), judging
// the decode by the whole index dc (ScoreHeads). Standard input
// cannot be read again, so it gets no hint.
func HintIndex(p *unturned.Profile, path string, dc *session.Index) {
	if path == "-" {
		return
	}
	Hint(p, path, dc, ScoreHeads(dc))
}

// Hint is HintIndex with the decode's score given (a streaming Index
// tallies it as it goes: infer.Tally, streamHint); a nil p is the default
// profile.
func Hint(p *unturned.Profile, path string, dc *session.Index, h infer.Hint) {
	if path == "-" || !h.Bad() {
		return
	}
	if p == nil {
		p = unturned.Default()
	}
	src, err := capture.Open(path, CaptureOptions(p, nil))
	if err != nil {
		return
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	rec := Record(src, hintSampleBytes(size))
	src.Close()
	res := HintRun(p, Replay(rec), hintCandidates, HintBudget(dc.Len(), size))
	if res.Best.Broken > 0 || res.Best.Flagged >= res.Active.Flagged && res.Best.Bad >= res.Active.Bad || len(res.Keys) == 0 || *res.Profile == *p {
		return
	}
	dc.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
		Text: fmt.Sprintf("profile %s decodes %d of %d messages with findings; a profile inferred from the capture decodes them without errors and with fewer findings: `usmnscope profile infer %s > inferred.toml`, then --profile inferred.toml",
			termsafe.Escape(p.Name), res.Active.Flagged, res.Active.Messages, termsafe.Escape(path))})
}

// streamHint is the profile hint of a streaming read of the file at path
// into dc under p (nil: the default): a streaming Index keeps no messages
// to score at the end, so heads tallies those the stream hands out
// (infer.Tally), and hint, once the read ends, gives the Hint of that
// score.
func streamHint(p *unturned.Profile, path string, dc *session.Index) (heads func(*session.Head), hint func()) {
	t := &infer.Tally{}
	d := Inferred(dc)
	heads = func(h *session.Head) {
		ih := InferHead(h)
		t.Head(d, &ih)
	}
	return heads, func() { Hint(p, path, dc, t.Score(Inferred(dc))) }
}

// ScoreHeads is the Hint of a full Index (every message kept), tallied
// from each message's Head as infer.Tally does for a stream: the index
// records say the kind and the worst severity without decoding, so only
// workshop messages are decoded (for their trailer note). The TUI scores
// its million-message index this way before it says loaded (issue 18).
func ScoreHeads(dc *session.Index) infer.Hint {
	var t infer.Tally
	d := Inferred(dc)
	buf := make([]session.Head, 0, 4096)
	for n := 1; ; {
		hs := dc.Heads(buf, n)
		if len(hs) == 0 {
			return t.Score(d)
		}
		for i := range hs {
			h := InferHead(&hs[i])
			t.Head(d, &h)
		}
		n += len(hs)
	}
}

// Inferred is ix as the profile search reads a decode (infer.Decoded):
// the inference sits on Unturned's side and names no session type, so
// the host hands it its index through this adapter.
func Inferred(ix *session.Index) infer.Decoded { return inferred{ix} }

type inferred struct{ ix *session.Index }

func (d inferred) Len() int { return d.ix.Len() }

// Head is Index.Head; a message with a hosted record is another
// protocol's.
func (d inferred) Head(n int) (infer.Head, bool) {
	h, ok := d.ix.Head(n)
	if !ok {
		return infer.Head{}, false
	}
	out := InferHead(&h)
	out.Other = h.Record() != nil
	return out, true
}

func (d inferred) Message(n int) (infer.Message, bool) {
	m := d.ix.Message(n)
	if m == nil {
		return infer.Message{}, false
	}
	return InferMessage(m), true
}

// Findings are those of the connections no hosted protocol holds (Proto
// empty): the Unturned ones.
func (d inferred) Findings() []dissect.Finding {
	var out []dissect.Finding
	for _, ci := range d.ix.Connections() {
		if ci.Proto == "" {
			out = append(out, ci.Findings...)
		}
	}
	return out
}

// InferHead is h as the search reads a head. A Head from Index.Heads
// carries no record, only Hosted, so either says another protocol's.
func InferHead(h *session.Head) infer.Head {
	return infer.Head{N: h.N, Conn: h.Conn, Dir: h.Dir, Kind: h.Kind,
		Flagged: h.HasFinding && h.Worst >= dissect.Warn, Other: h.Hosted || h.Record() != nil}
}

// InferMessage is m as the search reads a message.
func InferMessage(m *session.Message) infer.Message {
	h := infer.Head{N: m.N, Conn: m.Conn, Dir: m.Dir, Kind: m.Kind, Other: m.Record() != nil}
	if w, ok := m.Worst(); ok && w >= dissect.Warn {
		h.Flagged = true
	}
	return infer.Message{Head: h, Data: m.Data, Findings: m.Findings,
		Unresolved: m.Listener != nil && !m.Listener.Resolved}
}
