package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// captureOptions derives the capture options from the profile: the TCP
// port of SystemSockets traffic (wire.md 6 "transport_port"), the A2S
// query port (wire.md 2) and the reassembly bounds of [limits] (limits.go).
func captureOptions(p *unturned.Profile) capture.Options {
	if p == nil {
		p = unturned.Default()
	}
	return boundOptions(capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort}, p.Bounds)
}

// levelSeverity maps a capture note's level to a finding severity.
var levelSeverity = [...]dissect.Severity{
	capture.LevelNote:  dissect.Note,
	capture.LevelWarn:  dissect.Warn,
	capture.LevelError: dissect.Error,
}

func severityOf(l capture.Level) dissect.Severity {
	if int(l) < len(levelSeverity) {
		return levelSeverity[l]
	}
	return dissect.Error
}

// conn converts a capture flow to the decoder's connection key.
func conn(f capture.Flow) dissect.Conn { return dissect.Conn{Client: f.Client, Server: f.Server} }

func dirOf(fromServer bool) dissect.Dir {
	if fromServer {
		return dissect.S2C
	}
	return dissect.C2S
}

// feed reads every event of src into dc and then calls dc.Finish. It is the
// one wiring of capture to decode that both the CLI and the TUI use.
//
// progress, when not nil, is called with the source's statistics after
// each event; it decides itself how often to draw (see progressLine).
//
// A read error ends the feed: what was decoded before it is kept (dc is
// finished) and the error is returned. A panic in the decoder or in the
// capture code, which is a bug, does not crash the terminal: it becomes an
// error finding on the capture and an error return (style.md "one recover
// at the top of the pipeline").
func feed(src capture.Source, dc *session.Index, progress func(capture.Stats)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
			dc.Note(dissect.Conn{}, dissect.Finding{
				Severity: dissect.Error, Group: dissect.Malformed, Bit: -1,
				Text: fmt.Sprintf("usmnscope bug: %v; decoding stopped here (please report it with the capture)", r),
			})
			finishSafely(dc)
		}
	}()
	for {
		ev, rerr := src.Next()
		if rerr != nil {
			dc.Finish()
			if errors.Is(rerr, io.EOF) {
				return nil
			}
			return rerr
		}
		apply(dc, ev)
		if progress != nil {
			progress(src.Stats())
		}
	}
}

// finishSafely finishes dc after a panic, ignoring a second panic from the
// same broken state.
func finishSafely(dc *session.Index) {
	defer func() { _ = recover() }()
	dc.Finish()
}

// apply hands one capture event to the decoder.
func apply(dc *session.Index, ev capture.Event) {
	c := conn(ev.Flow)
	switch ev.Kind {
	case capture.EventOpen:
		dc.Open(c, ev.Rule.String(), ev.Time, ev.Frame)
	case capture.EventData:
		// Offset ≥ 0: Data is one run of the capture file, so its whole
		// messages are recorded by where they are (attachStore).
		dc.DataAt(c, dirOf(ev.FromServer), ev.Data, ev.Time, ev.Frame, ev.Offset)
	case capture.EventGap:
		dc.Gap(c, dirOf(ev.FromServer), ev.Lost, ev.Time, ev.Frame)
	case capture.EventClose:
		dc.Close(c, ev.Time, ev.Frame)
	case capture.EventNote:
		dc.Note(c, noteFinding(ev))
	default:
		dc.Note(c, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
			Text: fmt.Sprintf("capture: unexpected event %v", ev.Kind)})
	}
}

// noteFinding turns a capture note into a finding. Notes about a flow
// (gaps, retransmissions, buffer caps) are about sequence; capture-wide
// notes (link types, non-game traffic) are about the protocol.
func noteFinding(ev capture.Event) dissect.Finding {
	g := dissect.Protocol
	if ev.Flow != (capture.Flow{}) {
		g = dissect.Sequence
	}
	return dissect.Finding{Severity: severityOf(ev.Level), Group: g, Text: ev.Text, Bit: -1}
}

// progressInterval is the least time between two progress redraws (at most
// ten a second).
const progressInterval = 100 * time.Millisecond

// openSource opens the capture named on the command line: a file, or "-"
// for the command's standard input (injected in tests).
func openSource(s *streams, path string, p *unturned.Profile) (capture.Source, error) {
	if path == "-" {
		return capture.NewReader(s.in, "stdin", captureOptions(p))
	}
	return capture.Open(path, captureOptions(p))
}

// readCapture opens path, decodes all of it with the profile of cmd and
// returns the result, drawing progress on a terminal's stderr. each, when
// not nil, runs after every event (dump prints settled messages from it);
// its error stops the read. A capture that cannot be opened is an error;
// one that breaks off part-way keeps what was decoded and reports the break
// as a capture finding and a one-line warning on stderr.
func readCapture(cmd *cobra.Command, s *streams, path string, each func(*session.Index) error) (*session.Index, error) {
	p, err := loadProfile(cmd)
	if err != nil {
		return nil, err
	}
	src, err := openSource(s, path, p)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	dc := newDecoder(p)
	attachStore(dc, path)
	// A dump streaming to the same terminal shows its own progress; a
	// progress line would only tangle with its lines.
	var bar *progressLine
	if each == nil || !isTerminal(s.out) {
		bar = newProgress(s.err)
	}
	var stop error
	progress := func(st capture.Stats) {
		bar.update(st)
		if each != nil && stop == nil {
			stop = each(dc)
		}
	}
	if bar == nil && each == nil {
		// Nothing to draw or run: do not gather statistics per event.
		progress = nil
	}
	ferr := feed(src, dc, progress)
	bar.done()
	if stop != nil {
		return dc, stop
	}
	if ferr != nil {
		if dc.Len() == 0 && len(dc.Connections()) == 0 {
			return nil, ferr
		}
		dc.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Bit: -1, Text: termsafe.Escape(ferr.Error())})
		fmt.Fprintf(s.err, "usmnscope: warning: %s: %v (showing what was read before)\n", termsafe.Escape(path), ferr)
	}
	return dc, nil
}
