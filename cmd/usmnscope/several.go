package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/internal/pipeline"
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
