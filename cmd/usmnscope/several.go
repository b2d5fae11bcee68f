package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// severalFlags are the flags of a command that reads several captures as
// one (docs/json.md "Several captures"): --host and --time-shift.
type severalFlags struct {
	hosts  []string // NAME, or FILE=NAME
	shifts []string // FILE=±D
}

func addSeveralFlags(cmd *cobra.Command, sf *severalFlags) {
	f := cmd.Flags()
	f.StringArrayVar(&sf.hosts, "host", nil, "the host `NAME` of the capture (FILE=NAME with several)")
	f.StringArrayVar(&sf.shifts, "time-shift", nil, "add `FILE=±D` (a duration: -1.5s) to FILE's times instead of the estimated offset (several captures)")
}

// captures turns the command line's captures and sf into the Several of
// pipeline.Options (nil for one capture); a --host or --time-shift naming
// no capture given is a usage error.
func (sf *severalFlags) captures(cmd string, paths []string) ([]pipeline.Capture, error) {
	for _, h := range sf.hosts {
		if file, _, ok := strings.Cut(h, "="); ok && !slicesContainsCapture(paths, file) {
			return nil, usageError{fmt.Errorf("%s: --host %s: %s is not a capture given", cmd, termsafe.Escape(h), termsafe.Escape(file))}
		}
	}
	caps := make([]pipeline.Capture, len(paths))
	for i, p := range paths {
		org := originOf(p, sf.hosts)
		caps[i] = pipeline.Capture{Path: p, Host: org.host, Capture: org.capture}
	}
	for _, s := range sf.shifts {
		file, d, err := merge.ParseShift(s)
		if err != nil {
			return nil, usageError{fmt.Errorf("%s: %s", cmd, termsafe.Escape(err.Error()))}
		}
		if !slicesContainsCapture(paths, file) {
			return nil, usageError{fmt.Errorf("%s: --time-shift %s: %s is not a capture given", cmd, termsafe.Escape(s), termsafe.Escape(file))}
		}
		for i, p := range paths {
			if p == file || caps[i].Capture == file {
				caps[i].Shift, caps[i].HasShift = d, true
			}
		}
	}
	if len(paths) < 2 {
		return nil, nil
	}
	for _, p := range paths {
		if p == "-" {
			return nil, usageError{fmt.Errorf("%s: standard input (-) cannot be one of several captures: it cannot be read again", cmd)}
		}
	}
	return caps, nil
}

// readCaptures is readCapture for one capture or several (caps not nil):
// several are read as one, and get no profile hint.
func readCaptures(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, paths []string, caps []pipeline.Capture, stream func(*session.Index) session.Stream) (*session.Index, error) {
	if caps == nil {
		return readCapture(s, p, set, rp, paths[0], stream)
	}
	return readCaptureOpts(s, p, set, rp, strings.Join(paths, ", "), caps, stream)
}

// paths are the command line's captures (a test's options may set only
// capture).
func (o *dumpOptions) paths() []string   { return pathsOf(o.capture, o.captures) }
func (o *tablesOptions) paths() []string { return pathsOf(o.capture, o.captures) }
func (o *statsOptions) paths() []string  { return pathsOf(o.capture, o.captures) }
func (o *openOptions) paths() []string   { return pathsOf(o.capture, o.captures) }

func pathsOf(capture string, captures []string) []string {
	if len(captures) > 0 {
		return captures
	}
	return []string{capture}
}
