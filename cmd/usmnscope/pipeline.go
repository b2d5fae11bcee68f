package main

import (
	"strings"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// readCaptures decodes the captures at paths (a file, or "-" for the
// command's standard input) as pipeline.Read does, under the profile p
// with the payload schemas set (nil: none) and ULinkRPC into rp (nil:
// ULinkRPC connections get one note each): progress on a terminal's
// stderr, the profile hint, a capture broken part-way kept. Several
// captures (caps not nil) are read as one, and get no profile hint.
// stream, when not nil, gives the session.Stream of the new Index.
func readCaptures(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, paths []string, caps []pipeline.Capture, stream func(*session.Index) session.Stream) (*session.Index, error) {
	path := paths[0]
	if caps != nil {
		path = strings.Join(paths, ", ")
	}
	o := pipeline.Options{Profile: p, Schemas: set, RPC: rp, Path: path, Several: caps, Stream: stream, Stdin: s.in}
	return pipeline.Read(o, pipeline.Terminal{Out: s.out, Err: s.err})
}

// readCapture is readCaptures of one capture.
func readCapture(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, path string, stream func(*session.Index) session.Stream) (*session.Index, error) {
	return readCaptures(s, p, set, rp, []string{path}, nil, stream)
}
