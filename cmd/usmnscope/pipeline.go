package main

import (
	"fmt"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/schema"
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

// progressInterval is the least time between two progress redraws (at most
// ten a second).
const progressInterval = 100 * time.Millisecond

// openSource opens the capture named on the command line: a file, or "-"
// for the command's standard input (injected in tests).
func openSource(s *streams, path string, p *unturned.Profile) (capture.Source, error) {
	return openSourceWith(s, path, captureOptions(p))
}

// openSourceWith is openSource with the capture options given.
func openSourceWith(s *streams, path string, opts capture.Options) (capture.Source, error) {
	if path == "-" {
		return capture.NewReader(s.in, "stdin", opts)
	}
	return capture.Open(path, opts)
}

// readCapture opens path, decodes all of it under the profile p and
// returns the result, drawing progress on a terminal's stderr. each, when
// not nil, runs after every event (dump prints settled messages from it);
// its error stops the read. A capture that cannot be opened is an error;
// one that breaks off part-way keeps what was decoded and reports the break
// as a capture finding and a one-line warning on stderr.
func readCapture(s *streams, p *unturned.Profile, path string, each func(*session.Index) error) (*session.Index, error) {
	return readCaptureFeed(s, p, nil, nil, path, each, nil)
}

// readCaptureRPC is readCaptureFeed for dump and tables: payloads decoded
// with the schemas set (nil: none), ULinkRPC into rp's sessions (nil:
// ULinkRPC connections get one note each), and a streaming Index when
// stream is not nil (readCaptureFeed).
func readCaptureRPC(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, path string, each func(*session.Index) error, stream func(*session.Index) session.Stream) (*session.Index, error) {
	return readCaptureFeed(s, p, set, rp, path, each, stream)
}

// readCaptureWith is readCapture decoding payloads with the schemas set
// (nil: none).
func readCaptureWith(s *streams, p *unturned.Profile, set *schema.Set, path string, each func(*session.Index) error) (*session.Index, error) {
	return readCaptureFeed(s, p, set, nil, path, each, nil)
}

// readCaptureFeed is readCapture decoding payloads with the schemas set
// (nil: none), ULinkRPC into rp (nil: none), and with a streaming decoder
// when stream is not nil: stream gives the session.Stream for the new
// Index (issue 18: dump and tables keep no per-message history). A Stream that prints (Settled) counts as
// each does for the progress line, and its error stops the read as each's
// does. A streaming Index keeps no messages for the profile hint
// (profileHint) to score at the end, so the hint's score is tallied from
// the stream's messages as they are handed out (hintTally).
func readCaptureFeed(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, path string, each func(*session.Index) error, stream func(*session.Index) session.Stream) (*session.Index, error) {
	opts := captureOptions(p)
	if rp != nil {
		// KCP: the ULinkRPC ports' UDP datagrams (ulinkrpc.md 2.3).
		opts.DatagramPorts = rp.DatagramPorts(decodeAsOf(p))
		opts.ProbeDatagrams = pipeline.KCPProbeDatagrams // KCP on any port
	}
	dc := newDecoder(p)
	dc.SetSchemas(set)
	prints := each != nil
	var tally *hintTally
	if stream != nil {
		st := stream(dc)
		prints = prints || st.Settled != nil
		if path != "-" {
			tally = &hintTally{}
			st.Heads = func(h *session.Head) { tally.head(dc, h) }
		}
		if st.Settled != nil || st.Cut {
			// A pipe that pauses: what arrived is shown (issue 24).
			opts.Quiet = pipeline.IdleFlush
		}
		dc.SetStream(st)
	}
	src, err := openSourceWith(s, path, opts)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	attachStore(dc, path)
	// A dump streaming to the same terminal shows its own progress; a
	// progress line would only tangle with its lines.
	var bar *progressLine
	if !prints || !isTerminal(s.out) {
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
	ferr := pipeline.FeedRPC(src, dc, rp, progress)
	bar.done()
	if stop == nil {
		stop = dc.StreamErr()
	}
	if ferr == nil && stop == nil {
		switch {
		case tally != nil:
			profileHintFrom(s, p, path, dc, tally.score(dc))
		case stream == nil:
			profileHint(s, p, path, dc)
		}
		// A stream from standard input gets no hint (profileHint): it
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

// decodeAsOf is p's DecodeAs, "" without a profile.
func decodeAsOf(p *unturned.Profile) string {
	if p == nil {
		return ""
	}
	return p.DecodeAs
}
