package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/tuifeed"
	"github.com/usmnscope/usmnscope/views"
)

// openOptions are what an open command line asks for.
type openOptions struct {
	IO   *streams
	load pipeline.Loaders // the profile, schemas and ULinkRPC decoded under

	capture string // CAPTURE: a file, or - for standard input
	filter  string // --filter: the display filter in force at the start
	// captures are all the CAPTUREs (several: read as one, several.go).
	captures []string
	several  severalFlags
}

// newCmdOpen returns the open command; runF, when not nil, runs instead of
// runOpen with the parsed options (tests).
func newCmdOpen(s *streams, runF func(*openOptions) error) *cobra.Command {
	o := &openOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "open CAPTURE...",
		Short: "Browse a capture in the terminal UI",
		Long: `Open a pcap or pcapng file (or - for standard input) in the terminal UI:
connections, messages, the field tree, a bit-level hexdump and the listener-ID
tables as of the selected message. ULinkRPC connections show beside the game's:
their calls, the layer tree and the per-method tables (--contracts names the
methods, --ulinkrpc-key decrypts). The first screen shows at once and fills in
as the capture is read. Press ? for the keys.`,
		Example: "  usmnscope open capture.pcapng\n  usmnscope open --filter 'latency > 1ms' capture.pcapng\n  usmnscope open --contracts ./Contracts rpc.pcapng\n  tcpdump -U -w - port 27016 | usmnscope open -",
		Args:    argNames("CAPTURE..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.capture, o.captures = args[0], args
			o.load = decodeLoaders(cmd)
			if runF != nil {
				return runF(o)
			}
			return runOpen(o)
		},
	}
	cmd.Flags().StringVar(&o.filter, "filter", "", "open with the display filter `EXPR` applied (the language of dump --filter)")
	addSeveralFlags(cmd, &o.several)
	return cmd
}

func runOpen(o *openOptions) error {
	if o.filter != "" {
		if _, _, err := parseFilter(o.filter); err != nil {
			return usageError{err}
		}
	}
	lf, cfg, err := openFeed(o)
	if err != nil {
		return err
	}
	// A file that decodes badly gets the profile hint dump and tables give
	// (issue 13 point 5); several captures read as one get none (it reads
	// one capture again).
	var hint func()
	if len(o.paths()) == 1 {
		hint = func() { pipeline.HintIndex(cfg.Profile, o.capture, lf.Index) }
	}
	return tuifeed.Open(o.IO.out, o.IO.in, lf, o.paths(), o.filter, hint)
}

// openFeed opens what open decodes (pipeline.Open): the capture with the
// capture options of dump (the KCP ports and the KCP probe of UDP flows on
// other ports), the index with its schemas and store, and the ULinkRPC
// side.
func openFeed(o *openOptions) (*pipeline.Decode, pipeline.Config, error) {
	cfg, err := o.load.Load()
	if err != nil {
		return nil, cfg, err
	}
	caps, err := o.several.captures("open", o.paths())
	if err != nil {
		return nil, cfg, err
	}
	opts := cfg.Options()
	opts.Path, opts.Several, opts.Stdin = o.capture, caps, o.IO.in
	d, err := pipeline.Open(opts)
	return d, cfg, err
}

// runTUI runs the terminal UI over d's index (tuifeed.RunTUI).
func runTUI(s *streams, keys io.Reader, d *pipeline.Decode, cfg views.Config, after func()) error {
	return tuifeed.RunTUI(s.out, keys, d, cfg, after)
}

// parseFilter is the views' filter language (tuifeed.ParseFilter).
var parseFilter = tuifeed.ParseFilter
