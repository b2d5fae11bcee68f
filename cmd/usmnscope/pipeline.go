package main

import (
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// readCapture decodes the capture at path under the profile p, with
// payloads decoded with the schemas set (nil: none) and ULinkRPC into rp
// (nil: ULinkRPC connections get one note each), as pipeline.Read does:
// progress on a terminal's stderr, the profile hint, a capture broken
// part-way kept. stream, when not nil, gives the session.Stream of the new
// Index.
func readCapture(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, path string, stream func(*session.Index) session.Stream) (*session.Index, error) {
	return readCaptureOpts(s, p, set, rp, path, nil, stream)
}

// readCaptureOpts is readCapture of several captures read as one when
// several is not nil (path then names them in messages).
func readCaptureOpts(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, path string, several []pipeline.Capture, stream func(*session.Index) session.Stream) (*session.Index, error) {
	o := pipeline.Options{Profile: p, Schemas: set, RPC: rp, Path: path, Several: several, Stream: stream, Stdin: s.in}
	return pipeline.Read(o, pipeline.Terminal{Out: s.out, Err: s.err})
}

// isTerminal reports whether w is a terminal (tests' buffers are not).
var isTerminal = pipeline.IsTerminal
