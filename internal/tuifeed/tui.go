package tuifeed

import (
	"errors"
	"io"
	"math"
	"os"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views"
)

// Config is what the TUI shows of a capture file, or of standard input
// ("-": named stdin in the status bar, and without w: there is no file to
// copy packets from); the caller adds the columns and theme.
func Config(path string, dc *session.Index) views.Config {
	cfg := views.Config{Name: path, Parse: ParseFilter, Head: HeadFilter,
		Words: append(filter.FieldNames(), filter.MessageNames()...)}
	if path == "-" {
		cfg.Name = "stdin"
		return cfg
	}
	cfg.Export = func(nums []int, to string) (int, error) {
		ex, err := pipeline.Export(path, dc, nums, to)
		return ex.Packets, err
	}
	cfg.ExportPath = capture.ExportPath(path)
	return cfg
}

// LiveConfig is what the TUI shows of a live capture on iface, with the
// config file's part (FileConfig).
func LiveConfig(iface string) views.Config {
	cfg := views.Config{Name: "live " + iface, Parse: ParseFilter, Head: HeadFilter, Live: true, Words: append(filter.FieldNames(), filter.MessageNames()...)}
	FileConfig(&cfg)
	return cfg
}

// RunTUI runs the terminal UI over d's index while a goroutine feeds d
// into it (tuifeed). IO reaches the UI only as messages (Program.Send):
// progress while reading, live counters, and a final message when the
// input ends.
func RunTUI(out io.Writer, keys io.Reader, d *pipeline.Decode, cfg views.Config, after func()) error {
	return runTUI(out, keys, d, cfg, after, nil)
}

// runTUI is RunTUI telling read (nil: none) the share of a file the feed
// read as it goes.
func runTUI(out io.Writer, keys io.Reader, d *pipeline.Decode, cfg views.Config, after func(), read *readShare) error {
	// The feed starts before the UI is built, its messages relayed to the
	// program once it runs (relay).
	msgs := make(relay, relayed)
	done := Run(read.feeding(d.Feed), msgs.send, WallClock{}, cfg.Live, after)
	// SIGINT, SIGTERM and SIGHUP are handled here, not by bubbletea: each
	// quits as q does (stopSignals).
	prog := tea.NewProgram(views.New(d.Index, cfg), tea.WithInput(keys), tea.WithOutput(out), tea.WithoutSignalHandler(), colorProfile(out))
	go msgs.forward(prog.Send, done)
	ran := make(chan struct{})
	defer close(ran)
	defer stopSignals(prog, d.Source, ran)()
	_, err := prog.Run()
	d.Source.Close() // stops a live capture; the feeder then returns
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	return err
}

// colorProfile is the program's color profile when out is standard
// output: the one lipgloss's Writer detected for it when the process
// started (colorprofile.Detect of standard output under the process's
// environment, which nothing here changes), which bubbletea would detect
// again the same way. Inside tmux, detecting it runs `tmux info`, a
// process of its own and some 12 ms of the TUI's start (issue 28: the
// TUI's full load of a 100k-frame capture is measured against `tables
// --json`'s 0.14 s). Another output keeps bubbletea's own detection.
func colorProfile(out io.Writer) tea.ProgramOption {
	if f, ok := out.(*os.File); ok && f == os.Stdout {
		return tea.WithColorProfile(lipgloss.Writer.Profile)
	}
	return func(*tea.Program) {}
}

// HeadFilter is ParseFilter's test of a message's index record for an
// expression that reads nothing more (filter.Filter.HeadOnly: n, conn, dir,
// msg, severity and a hosted record's fields), else nil: the list's scan
// then decodes no message, as dump's filter does (filter.Select).
func HeadFilter(expr string) func(session.Head) bool {
	f, err := filter.Parse(expr)
	if err != nil || f == nil || !f.HeadOnly() {
		return nil
	}
	return f.MatchHead
}

// ParseFilter adapts the CLI's filter language (filter.Parse) to the
// views: the filter bar needs the error's position to point at it.
func ParseFilter(expr string) (func(*session.Message) bool, int, error) {
	f, err := filter.Parse(expr)
	if err != nil {
		var fe *filter.Error
		if errors.As(err, &fe) {
			return nil, fe.Pos, errors.New(fe.Msg)
		}
		return nil, 0, err
	}
	if f == nil {
		return func(*session.Message) bool { return true }, 0, nil
	}
	return f.Match, 0, nil
}

// readShare is the share of a capture file the feed read (Fraction), for
// the collector's tuning while the TUI loads it (gctune.Tuning.Reading):
// written by the feeder, read after each collection.
type readShare struct{ bits atomic.Uint64 }

func (r *readShare) set(st capture.Stats) {
	if st.Size > 0 {
		r.bits.Store(math.Float64bits(Fraction(st)))
	}
}

// feeding is feed telling r the share read as it goes; r nil, feed.
func (r *readShare) feeding(feed func(func(capture.Stats)) error) func(func(capture.Stats)) error {
	if r == nil {
		return feed
	}
	return func(progress func(capture.Stats)) error {
		return feed(func(st capture.Stats) {
			r.set(st)
			progress(st)
		})
	}
}

// get is the share read, 0 before the first event.
func (r *readShare) get() float64 { return math.Float64frombits(r.bits.Load()) }
