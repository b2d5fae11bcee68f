package main

import (
	"fmt"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/infer"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// progressInterval is the least time between two progress redraws (at most
// ten a second).
const progressInterval = 100 * time.Millisecond

// openDecode is pipeline.Open for the capture named on the command line: a
// file, or "-" for the command's standard input (injected in tests).
func openDecode(s *streams, o pipeline.Options) (*pipeline.Decode, error) {
	o.Stdin = s.in
	return pipeline.Open(o)
}

// readCapture decodes the capture at path under the profile p, with
// payloads decoded with the schemas set (nil: none) and ULinkRPC into rp
// (nil: ULinkRPC connections get one note each), drawing progress on a
// terminal's stderr, and returns the index. stream, when not nil, gives
// the session.Stream of the new Index (issue 18: dump and tables keep no
// per-message history); a Stream that prints (Settled) draws no progress
// on the terminal it prints to, and its error stops the read. A streaming
// Index keeps no messages for the profile hint (pipeline.Hint) to score at
// the end, so the hint's score is tallied from the stream's messages as
// they are handed out (infer.Tally). A capture that cannot be opened is an
// error; one that breaks off part-way keeps what was decoded and reports
// the break as a capture finding and a one-line warning on stderr.
func readCapture(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, path string, stream func(*session.Index) session.Stream) (*session.Index, error) {
	return readCaptureOpts(s, p, set, rp, path, nil, stream)
}

// readCaptureOpts is readCapture of several captures read as one when
// several is not nil (path then names them in messages).
func readCaptureOpts(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, path string, several []pipeline.Capture, stream func(*session.Index) session.Stream) (*session.Index, error) {
	prints := false
	var tally *infer.Tally
	o := pipeline.Options{Profile: p, Schemas: set, RPC: rp, Path: path, Several: several}
	if stream != nil {
		o.Stream = func(dc *session.Index) session.Stream {
			st := stream(dc)
			prints = st.Settled != nil
			if path != "-" && several == nil {
				tally = &infer.Tally{}
				st.Heads = func(h *session.Head) { tally.Head(dc, h) }
			}
			return st
		}
	}
	d, err := openDecode(s, o)
	if err != nil {
		return nil, err
	}
	defer d.Source.Close()
	dc := d.Index
	// A dump streaming to the same terminal shows its own progress; a
	// progress line would only tangle with its lines.
	var progress func(capture.Stats)
	var bar *progressLine
	if !prints || !isTerminal(s.out) {
		bar = newProgress(s.err)
		if bar != nil {
			progress = bar.update
		}
	}
	ferr := d.Feed(progress)
	bar.done()
	stop := dc.StreamErr()
	if ferr == nil && stop == nil && several == nil {
		switch {
		case tally != nil:
			pipeline.Hint(p, path, dc, tally.Score(dc))
		case stream == nil:
			pipeline.HintIndex(p, path, dc)
		}
		// A stream from standard input gets no hint (pipeline.Hint): it
		// cannot be read again for the hint's sample.
	}
	if stop != nil {
		return dc, stop
	}
	if ferr != nil {
		if dc.Len() == 0 && len(dc.Connections()) == 0 && (rp == nil || len(rp.Sessions()) == 0) {
			return nil, ferr
		}
		dc.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Bit: -1, Text: termsafe.Escape(ferr.Error())})
		fmt.Fprintf(s.err, "usmnscope: warning: %s: %v (showing what was read before)\n", termsafe.Escape(path), ferr)
	}
	return dc, nil
}
