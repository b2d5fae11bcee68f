package pipeline

import (
	"errors"
	"fmt"
	"io"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// Feed reads every event of src into ix and then calls ix.Finish. Only
// the TCP connections that are SystemSockets reach ix as messages (wire.md
// section 2; route.go): the rest get one connection note each.
//
// progress, when not nil, is called with the source's statistics after each
// event; it decides itself how often to draw.
//
// A read error ends the feed: what was decoded before it is kept (ix is
// finished) and the error is returned. A panic in the decoder or in the
// capture code, which is a bug, does not crash the terminal: it becomes an
// error finding on the capture and an error return (style.md "one recover at
// the top of the pipeline").
func Feed(src capture.Source, ix *session.Index, progress func(capture.Stats)) (err error) {
	return FeedRPC(src, ix, nil, progress)
}

// FeedRPC is Feed that also decodes ULinkRPC (ulinkrpc.md 1) into rp's
// sessions: connections to rp's ports, those --decode-as names ulinkrpc
// and those whose first client bytes are a ULinkRPC frame or a WebSocket
// upgrade carrying one. With rp nil it is Feed.
//
// The feed stops early, without Finish, once ix is cut (a session.Stream
// with Cut, `tables --at N`: ix.Cut after an event): the rest of src is
// not read, and no end-of-capture finding is made, since the capture did
// not end there. The caller closes src.
func FeedRPC(src capture.Source, ix *session.Index, rp *RPC, progress func(capture.Stats)) (err error) {
	var as map[uint16]Proto
	if p := ix.Profile(); p != nil {
		as = decodeAsMap(p.DecodeAs)
	}
	return feed(src, ix, rp, as, progress)
}

// feed is FeedRPC with the --decode-as map read (Open reads it once).
func feed(src capture.Source, ix *session.Index, rp *RPC, as map[uint16]Proto, progress func(capture.Stats)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			ix.EndBatch()
			err = fmt.Errorf("internal error: %v", r)
			ix.Note(dissect.Conn{}, dissect.Finding{
				Severity: dissect.Error, Group: dissect.Malformed, Bit: -1,
				Text: fmt.Sprintf("usmnscope bug: %v; decoding stopped here (please report it with the capture)", r),
			})
			finishSafely(ix)
		}
	}()
	r := newRouter(ix, rp, as)
	r.claimFrom(src)
	several, _ := src.(inputOf)
	// A full Index, which a reader may share (the TUI's), is fed a file in
	// batches of feedBatch events under one lock (session.Index.Batch),
	// progress told once a batch, out of it. Only a file: a source that
	// may wait for traffic (standard input, live) must not keep the reader
	// out while it waits.
	n := 1
	file := src.Stats().Size > 0
	if !ix.Streams() && file {
		n = feedBatch
	}
	// A file is read ahead on a goroutine of its own (ahead.go), unless
	// the feed may stop early at a cut (what the source counted is then
	// what was read up to the cut, as before) or the source is several
	// captures merged, whose state the index reads while it decodes
	// (attachSeveral's sight of a hosted record).
	next, stats := src.Next, src.Stats
	if file && several == nil && !ix.MayCut() {
		a := readAhead(src, r.mayClaim())
		defer a.close()
		next, stats = a.next, a.stats
	}
	for {
		if n > 1 {
			ix.Batch()
		}
		var rerr error
		for range n {
			var ev *capture.Event
			if ev, rerr = next(); rerr != nil {
				break
			}
			if several != nil {
				ix.SetInput(several.Input())
			}
			r.apply(ev)
			if n == 1 && progress != nil {
				progress(stats())
			}
		}
		if n > 1 {
			ix.EndBatch()
			if progress != nil {
				progress(stats())
			}
		}
		if errors.Is(rerr, capture.ErrQuiet) {
			// The input paused (QuietOptions): what arrived is shown.
			ix.Quiet()
			if ix.Cut() {
				return nil
			}
			continue
		}
		if rerr != nil {
			r.finish()
			ix.Finish()
			if errors.Is(rerr, io.EOF) {
				return nil
			}
			return rerr
		}
		if ix.Cut() {
			return nil
		}
	}
}

// feedBatch is how many events of a file FeedRPC feeds a full Index under
// one lock: some 30 µs of work, which a reader waits for at most.
const feedBatch = 64

// finishSafely finishes ix after a panic, ignoring a second panic from the
// same broken state.
func finishSafely(ix *session.Index) {
	defer func() { _ = recover() }()
	ix.Finish()
}

// Apply hands one capture event to the decoder. It takes the event by
// pointer: the events of every packet go through the router to here, and
// each copy of 160 bytes was a measurable part of tables --json (issue 18).
func Apply(ix *session.Index, ev *capture.Event) { applyTo(ix, ev, nil) }

// applyTo is Apply with the caller's ConnRef of the event's connection
// (nil: none), which the router keeps per route so that data reaches the
// index without DataAt's lookup by the 64-byte Conn (issue 18).
func applyTo(ix *session.Index, ev *capture.Event, ref *session.ConnRef) {
	if ev.Kind == capture.EventData && ref != nil && ref.Valid() {
		ix.DataOn(*ref, Dir(ev.FromServer), ev.Data, ev.Time, ev.Frame, ev.Offset)
		return
	}
	c := Conn(ev.Flow)
	switch ev.Kind {
	case capture.EventOpen:
		ix.Open(c, Rule(ev.Rule), ev.Time, ev.Frame)
	case capture.EventData:
		// Offset ≥ 0: Data is one run of the capture file, so its whole
		// messages are recorded by where they are (Index.SetStore).
		if ref == nil {
			ix.DataAt(c, Dir(ev.FromServer), ev.Data, ev.Time, ev.Frame, ev.Offset)
			return
		}
		*ref = ix.Ref(c) // the first data: the route keeps it
		ix.DataOn(*ref, Dir(ev.FromServer), ev.Data, ev.Time, ev.Frame, ev.Offset)
	case capture.EventGap:
		ix.Gap(c, Dir(ev.FromServer), ev.Lost, ev.Time, ev.Frame)
	case capture.EventClose:
		ix.Close(c, ev.Time, ev.Frame)
	case capture.EventNote:
		ix.Note(c, NoteFinding(*ev))
	default:
		ix.Note(c, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
			Text: fmt.Sprintf("capture: unexpected event %v", ev.Kind)})
	}
}

// Conn converts a capture flow to the decoder's connection key.
//
// The two types have the same fields, so this is a conversion, a plain
// copy: building the Conn field by field and copying it whole stalled the
// store buffer on every event (issue 18).
func Conn(f capture.Flow) dissect.Conn { return dissect.Conn(f) }

// Dir is the direction of bytes the server sent (fromServer) or received.
func Dir(fromServer bool) dissect.Dir {
	if fromServer {
		return dissect.S2C
	}
	return dissect.C2S
}

// rules maps capture's server rules to the decoder's.
var rules = [...]session.Rule{
	capture.RuleSYN:       session.RuleSYN,
	capture.RulePort:      session.RulePort,
	capture.RuleLowerPort: session.RuleLowerPort,
}

// Rule maps a capture server rule to the session's; a rule capture may add
// later is unknown, which the session treats as a mid-connection join.
func Rule(r capture.ServerRule) session.Rule { return lookup(rules[:], int(r), session.RuleUnknown) }

// levelSeverity maps a capture note's level to a finding severity.
var levelSeverity = [...]dissect.Severity{
	capture.LevelNote:  dissect.Note,
	capture.LevelWarn:  dissect.Warn,
	capture.LevelError: dissect.Error,
}

// Severity maps a capture note level to a finding severity; an unknown
// level is an error.
func Severity(l capture.Level) dissect.Severity {
	return lookup(levelSeverity[:], int(l), dissect.Error)
}

// lookup is table[i], or unknown for an i past the table: the one rule of
// the mappings above for values capture may add later.
func lookup[T any](table []T, i int, unknown T) T {
	if i >= 0 && i < len(table) {
		return table[i]
	}
	return unknown
}

// NoteFinding turns a capture note into a finding. Notes about a flow (gaps,
// retransmissions, buffer caps) are about sequence; capture-wide notes (link
// types, non-game traffic) are about the protocol.
func NoteFinding(ev capture.Event) dissect.Finding {
	g := dissect.Protocol
	if ev.Flow != (capture.Flow{}) {
		g = dissect.Sequence
	}
	return dissect.Finding{Severity: Severity(ev.Level), Group: g, Text: ev.Text, Bit: -1}
}
