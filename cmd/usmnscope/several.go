package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/internal/pipeline"
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
// pipeline.Options (nil for one capture; pipeline.Captures): what is
// wrong is a usage error of cmd.
func (sf *severalFlags) captures(cmd string, paths []string) ([]pipeline.Capture, error) {
	caps, err := pipeline.Captures(paths, sf.hosts, sf.shifts)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", cmd, err)}
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
