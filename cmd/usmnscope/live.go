package main

import (
	"context"
	"errors"
	"fmt"

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

// liveOptions are what a live command line asks for.
type liveOptions struct {
	IO      *streams
	ctx     context.Context // the command's, for the headless capture
	profile func() (*unturned.Profile, error)
	schemas func() (*schema.Set, error)

	iface   string
	write   string
	snaplen int
	promisc bool
	arena   int64 // --max-arena, in MiB
	hl      headless
}

// newCmdLive returns the live command; runF, when not nil, runs instead of
// runLive with the parsed options (tests).
func newCmdLive(s *streams, runF func(*liveOptions) error) *cobra.Command {
	o := &liveOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "live -i IFACE",
		Short: "Capture on an interface and browse it live in the terminal UI",
		Long: `Capture the game's traffic on a network interface (Linux, needs CAP_NET_RAW)
and show it in the terminal UI as it arrives. The message list follows the
tail until you move; f resumes following, space pauses. The status bar shows
packets per second and kernel drops. --write also saves every packet to a
pcapng file (buffered, flushed every 100 ms and on exit).

--stats, --count N or --duration D capture without the TUI: the traffic is
decoded the same way until Ctrl-C, N packets or D, and one line of totals
is printed (packets, messages, pkt/s, msg/s, kernel packets and drops).

Memory: every decoded message keeps an index record (36 bytes) for as long
as live runs, so it always lists. Its bytes are kept in memory only up to
--max-arena MiB (default 64) of the most recent traffic: an older message
still lists but shows "bytes of message N are no longer in memory", and the
tables as of it may be shown as of an earlier message. With --write the
bytes are read back from the file instead, so nothing is lost and little
memory is used; open the file later for the whole session.`,
		Example: "  sudo usmnscope live -i lo\n  sudo usmnscope live -i eth0 --write session.pcapng\n  sudo usmnscope live -i lo --duration 30s",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx = cmd.Context()
			o.profile = profileLoader(cmd)
			o.schemas = schemaLoader(cmd)
			if runF != nil {
				return runF(o)
			}
			return runLive(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.iface, "interface", "i", "", "network interface to capture on (\"any\" for all)")
	f.StringVar(&o.write, "write", "", "also save every captured packet to this pcapng `FILE`")
	f.IntVar(&o.snaplen, "snaplen", 0, "bytes kept per packet (default 262144)")
	f.BoolVar(&o.promisc, "promisc", false, "put the interface in promiscuous mode")
	f.Int64Var(&o.arena, "max-arena", liveArenaMiB, "keep the bytes of at most `MiB` of recent messages in memory (0: all); older ones are read back from --write or shown without bytes")
	f.BoolVar(&o.hl.stats, "stats", false, "no TUI: capture and decode until Ctrl-C (or --count/--duration), then print one line of totals")
	f.Int64Var(&o.hl.count, "count", 0, "no TUI: stop after `N` packets (implies --stats)")
	f.DurationVar(&o.hl.duration, "duration", 0, "no TUI: stop after `D`, e.g. 10s (implies --stats)")
	return cmd
}

func runLive(o *liveOptions) error {
	s, iface := o.IO, o.iface
	if iface == "" {
		return usageError{errors.New("live: -i IFACE is required")}
	}
	if o.snaplen < 0 {
		return usageError{fmt.Errorf("live: --snaplen %d: must be positive", o.snaplen)}
	}
	if o.arena < 0 || o.arena > 1<<30 {
		return usageError{fmt.Errorf("live: --max-arena %d: cannot be negative or above 1073741824 MiB", o.arena)}
	}
	if o.hl.count < 0 || o.hl.duration < 0 {
		return usageError{errors.New("live: --count and --duration cannot be negative")}
	}
	if !o.hl.on() && !isTerminal(s.out) {
		return errors.New("live: standard output is not a terminal; use `tcpdump -U -w - | usmnscope dump -` for text output")
	}
	p, err := o.profile()
	if err != nil {
		return err
	}
	set, err := loadWith(o.schemas)
	if err != nil {
		return err
	}
	opt := capture.DefaultLiveOptions(iface)
	opt.Options = captureOptions(p)
	opt.TCPPorts = pipeline.DecodeAsPorts(p.DecodeAs)
	if o.snaplen > 0 {
		opt.SnapLen = o.snaplen
	}
	opt.Promiscuous = o.promisc
	opt.Write = o.write
	src, err := capture.OpenLive(opt)
	if err != nil {
		return err
	}
	dc := newLiveDecoder(p, o.arena<<20)
	dc.SetSchemas(set)
	attachLive(dc, o.write, src)
	if o.hl.on() {
		return o.hl.run(o.ctx, s, iface, src, dc)
	}
	err = runTUI(s, s.in, src, dc, nil, views.Config{Name: "live " + iface, Parse: parseFilter, Live: true, Words: append(filter.FieldNames(), filter.MessageNames()...)}, nil)
	// q, Ctrl-C (a key on the terminal), and SIGINT, SIGTERM or SIGHUP
	// from elsewhere (stopSignals) are all a normal stop. runTUI has
	// closed src, which flushed --write; Close returns its error again,
	// so that a failed --write is reported after the screen is gone.
	if errors.Is(err, tea.ErrInterrupted) {
		err = nil
	}
	if cerr := src.Close(); err == nil {
		err = cerr
	}
	return err
}

// liveArenaMiB is live's default bound on message bytes in memory
// (unturned.Limits.MaxArena): live runs without end, so without --write the
// oldest messages' bytes go (their index records stay); 64 MiB is about
// half a million typical messages.
const liveArenaMiB = 64

// newLiveDecoder is newDecoder with the arena bounded to arena bytes.
func newLiveDecoder(p *unturned.Profile, arena int64) *session.Index {
	if p == nil {
		p = unturned.Default()
	}
	lim := p.Bounds.Limits()
	lim.MaxArena = arena
	return session.NewIndexLimits(p, lim)
}
