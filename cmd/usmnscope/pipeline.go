package main

import (
	"strings"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
)

// readCaptures decodes the captures at paths (a file, or "-" for the
// command's standard input) as pipeline.Read does, under the protocols'
// configuration cfg (its ULinkRPC side nil: ULinkRPC connections get one
// note each): progress on a terminal's
// stderr, the profile hint, a capture broken part-way kept. Several
// captures (caps not nil) are read as one, and get no profile hint.
// stream, when not nil, gives the session.Stream of the new Index.
func readCaptures(s *streams, cfg pipeline.Config, paths []string, caps []pipeline.Capture, stream func(*session.Index) session.Stream) (*session.Index, error) {
	path := paths[0]
	if caps != nil {
		path = strings.Join(paths, ", ")
	}
	o := cfg.Options()
	o.Path, o.Several, o.Stream, o.Stdin = path, caps, stream, s.in
	return pipeline.Read(o, pipeline.Terminal{Out: s.out, Err: s.err})
}

// readCapture is readCaptures of one capture.
func readCapture(s *streams, cfg pipeline.Config, path string, stream func(*session.Index) session.Stream) (*session.Index, error) {
	return readCaptures(s, cfg, []string{path}, nil, stream)
}
