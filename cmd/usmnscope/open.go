package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/views"
)

// openOptions are what an open command line asks for.
type openOptions struct {
	IO      *streams
	profile func() (*unturned.Profile, error)
	schemas func() (*schema.Set, error)
	rpc     func() (*pipeline.RPC, error)

	capture string // CAPTURE: a file, or - for standard input
}

// newCmdOpen returns the open command; runF, when not nil, runs instead of
// runOpen with the parsed options (tests).
func newCmdOpen(s *streams, runF func(*openOptions) error) *cobra.Command {
	o := &openOptions{IO: s}
	return &cobra.Command{
		Use:   "open CAPTURE",
		Short: "Browse a capture in the terminal UI",
		Long: `Open a pcap or pcapng file (or - for standard input) in the terminal UI:
connections, messages, the field tree, a bit-level hexdump and the listener-ID
tables as of the selected message. ULinkRPC connections show beside the game's:
their calls, the layer tree and the per-method tables (--contracts names the
methods, --ulinkrpc-key decrypts). The first screen shows at once and fills in
as the capture is read. Press ? for the keys.`,
		Example: "  usmnscope open capture.pcapng\n  usmnscope open --contracts ./Contracts rpc.pcapng\n  tcpdump -U -w - port 27016 | usmnscope open -",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.capture = args[0]
			o.profile = profileLoader(cmd)
			o.schemas = schemaLoader(cmd)
			o.rpc = rpcLoader(cmd)
			if runF != nil {
				return runF(o)
			}
			return runOpen(o)
		},
	}
}

func runOpen(o *openOptions) error {
	s, path := o.IO, o.capture
	p, err := o.profile()
	if err != nil {
		return err
	}
	set, err := loadWith(o.schemas)
	if err != nil {
		return err
	}
	rp, err := loadRPC(o.rpc)
	if err != nil {
		return err
	}
	src, err := openSourceWith(s, path, tuiCaptureOptions(p, rp))
	if err != nil {
		return err
	}
	if !isTerminal(s.out) {
		src.Close()
		return errors.New("open: standard output is not a terminal; use `usmnscope dump` for text output")
	}
	keys := s.in
	if path == "-" {
		// Standard input carries the capture: keys come from the terminal.
		tty, err := os.Open("/dev/tty")
		if err != nil {
			src.Close()
			return fmt.Errorf("open: reading the capture from standard input needs a terminal for keys: %w", err)
		}
		defer tty.Close()
		keys = tty
	}
	dc := newDecoder(p)
	dc.SetSchemas(set)
	attachStore(dc, path)
	lowGC()
	// A file that decodes badly gets the profile hint dump and tables give
	// (issue 13 point 5), in the expert pane once the capture is loaded.
	return runTUI(s, keys, src, dc, rp, tuiConfig(path), func() { profileHint(s, p, path, dc) })
}

// tuiCaptureOptions are the capture options of the TUI's feed: the
// profile's, with ULinkRPC's KCP on its ports and on any port, as dump's
// (readCaptureFeed): without the probe the TUI listed no message of
// fixtures/ulinkrpc/kcp-otherport.pcapng (issue 24's agreement check).
func tuiCaptureOptions(p *unturned.Profile, rp *pipeline.RPC) capture.Options {
	opts := captureOptions(p)
	opts.DatagramPorts = rp.DatagramPorts(decodeAsOf(p)) // KCP (ulinkrpc.md 2.3)
	opts.ProbeDatagrams = pipeline.KCPProbeDatagrams
	return opts
}

// tuiConfig is what the TUI shows of a capture file, or of standard input
// (named stdin in the status bar, and without w: there is no file to copy
// packets from).
func tuiConfig(path string) views.Config {
	cfg := views.Config{Name: path, Parse: parseFilter,
		Words: append(filter.FieldNames(), filter.MessageNames()...)}
	if path == "-" {
		cfg.Name = "stdin"
		return cfg
	}
	cfg.Export, cfg.ExportPath = exportFunc(path), exportPath(path)
	return cfg
}

// lowGC gives the TUI its tight headroom (tuiHeadroom, least GOGC 1):
// the decoded capture is a large, long-lived and pointer-free index (cheap
// to mark), while showing messages makes short-lived garbage; at the
// default the heap may grow to twice the index before a collection, which
// doubles the resident set for nothing (issue 7: ≤ 64 bytes per message).
// A GOGC or GOMEMLIMIT in the environment wins (tuneGC).
func lowGC() {
	tuneGC()
	setTuning(tuiTuning)
}

// tuiTuning is the TUI's collector tuning (lowGC).
var tuiTuning = gcTuning{headroom: tuiHeadroom, min: 1}

// refreshInterval throttles the progress messages the feeding goroutine
// sends to the UI (20 Hz): the UI redraws on each, so this bounds the
// redraw rate whatever the packet rate.
const refreshInterval = 50 * time.Millisecond

// runTUI runs the terminal UI over dc while a goroutine feeds src into it,
// ULinkRPC connections through rp (nil: none) into the same index.
// IO reaches the UI only as messages (Program.Send): progress while
// reading, live counters, and a final message when the input ends.
func runTUI(s *streams, keys io.Reader, src capture.Source, dc *session.Index, rp *pipeline.RPC, cfg views.Config, after func()) error {
	// SIGINT, SIGTERM and SIGHUP are handled here, not by bubbletea: each
	// quits as q does (stopSignals).
	prog := tea.NewProgram(views.New(dc, cfg), tea.WithInput(keys), tea.WithOutput(s.out), tea.WithoutSignalHandler())
	ran := make(chan struct{})
	defer close(ran)
	defer stopSignals(prog, src, ran)()
	done := feedUI(src, dc, rp, prog.Send, wallClock{}, cfg.Live, after)
	_, err := prog.Run()
	src.Close() // stops a live capture; the feeder then returns
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	return err
}

func fraction(st capture.Stats) float64 {
	if st.Size <= 0 {
		return -1
	}
	return float64(st.Read) / float64(st.Size)
}

// parseFilter adapts the CLI's filter language (filter.Parse) to the
// views: the filter bar needs the error's position to point at it.
func parseFilter(expr string) (func(*session.Message) bool, int, error) {
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
