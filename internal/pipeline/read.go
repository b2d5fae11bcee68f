package pipeline

import (
	"fmt"
	"io"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
)

// Terminal is where a command's read reports: Out is where its output
// goes, Err where the progress line (only on a terminal) and the warning
// of a capture broken part-way go.
type Terminal struct{ Out, Err io.Writer }

// Read decodes the capture o names (Open, then Feed) and returns the
// index, drawing progress on a terminal's Err. o.Stream, when not nil,
// gives the session.Stream of the new Index (issue 18: dump and tables
// keep no per-message history); a Stream that prints (Settled) draws no
// progress on the terminal it prints to, and its error stops the read. The
// profile hint (Hint) follows a read of one file: a streaming Index keeps
// no messages to score at the end, so the hint's score is tallied from the
// stream's messages as they are handed out (streamHint). A capture that
// cannot be opened is an error; one that breaks off part-way keeps what
// was decoded and reports the break as a capture finding and a one-line
// warning on Err (o.Path names the capture in it).
func Read(o Options, t Terminal) (*session.Index, error) {
	prints := false
	var hint func() // a streaming read's hint, tallied as it goes
	path, several := o.Path, o.Several
	if stream := o.Stream; stream != nil {
		o.Stream = func(dc *session.Index) session.Stream {
			st := stream(dc)
			prints = st.Settled != nil
			if path != "-" && several == nil {
				st.Heads, hint = streamHint(o.Profile, path, dc)
			}
			return st
		}
	}
	d, err := Open(o)
	if err != nil {
		return nil, err
	}
	defer d.Source.Close()
	dc := d.Index
	// A dump streaming to the same terminal shows its own progress; a
	// progress line would only tangle with its lines.
	var progress func(capture.Stats)
	var bar *Progress
	if !prints || !IsTerminal(t.Out) {
		bar = NewProgress(t.Err)
		if bar != nil {
			progress = bar.Update
		}
	}
	ferr := d.Feed(progress)
	bar.Done()
	stop := dc.StreamErr()
	if ferr == nil && stop == nil && several == nil {
		switch {
		case hint != nil:
			hint()
		case o.Stream == nil:
			HintIndex(o.Profile, path, dc)
		}
		// A stream from standard input gets no hint (Hint): it cannot be
		// read again for the hint's sample.
	}
	if stop != nil {
		return dc, stop
	}
	if ferr != nil {
		if dc.Len() == 0 && len(dc.Connections()) == 0 && !d.sideDecoded() {
			return nil, ferr
		}
		dc.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Bit: -1, Text: termsafe.Escape(ferr.Error())})
		fmt.Fprintf(t.Err, "usmnscope: warning: %s: %v (showing what was read before)\n", termsafe.Escape(path), ferr)
	}
	return dc, nil
}
