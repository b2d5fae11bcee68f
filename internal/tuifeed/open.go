package tuifeed

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/usmnscope/usmnscope/internal/gctune"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views"
)

// Open runs the TUI (`usmnscope open`) over d, the decode of the captures
// at paths (one file; "-", standard input; or several read as one), with
// the display filter filter in force, on out with keys from in. When
// standard input carries the capture the keys come from /dev/tty. after,
// when not nil, runs once the capture is loaded (a file's profile hint,
// in the expert pane). Open closes d's source when the TUI cannot start.
func Open(out io.Writer, in io.Reader, d *pipeline.Decode, paths []string, filter string, after func()) error {
	if !pipeline.IsTerminal(out) {
		d.Source.Close()
		return errors.New("open: standard output is not a terminal; use `usmnscope dump` for text output")
	}
	keys := in
	if paths[0] == "-" {
		// Standard input carries the capture: keys come from the terminal.
		tty, err := os.Open("/dev/tty")
		if err != nil {
			d.Source.Close()
			return fmt.Errorf("open: reading the capture from standard input needs a terminal for keys: %w", err)
		}
		defer tty.Close()
		keys = tty
	}
	// The TUI's tight headroom (gctune.TUI), larger while the file loads
	// (Reading: the share of it read).
	gctune.Start()
	var read readShare
	gctune.Set(gctune.TUI.Reading(read.get))
	path := paths[0]
	if len(paths) > 1 {
		// Several captures read as one: no file to copy frames from.
		path = "-"
	}
	cfg := FileViews(path, d.Index)
	if len(paths) > 1 {
		cfg.Name = strings.Join(paths, " + ")
	}
	cfg.Filter = filter
	return runTUI(out, keys, d, cfg, after, &read)
}

// FileViews is what the TUI shows of a capture file, or of standard input
// (Config), with the config file's part (FileConfig).
func FileViews(path string, dc *session.Index) views.Config {
	cfg := Config(path, dc)
	FileConfig(&cfg)
	return cfg
}
