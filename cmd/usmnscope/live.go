package main

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/headless"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/tuifeed"
	"github.com/usmnscope/usmnscope/session"
)

// liveOptions are what a live command line asks for.
type liveOptions struct {
	IO   *streams
	ctx  context.Context  // the command's, for the headless capture
	load pipeline.Loaders // the profile, schemas and ULinkRPC decoded under

	iface   string
	write   string
	snaplen int
	promisc bool
	arena   int64 // --max-arena, in MiB
	anyPort bool  // --any-port
	hl      headless.Options
	// decoded, when not nil, is given the index once the capture has
	// stopped and the feed ended (tests: what live decoded, record by
	// record).
	decoded func(*session.Index)
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
is printed (packets, messages, pkt/s, msg/s, kernel packets and drops, then
the messages per protocol).

Memory: every decoded message keeps an index record (36 bytes) for as long
as live runs, so it always lists. Its bytes are kept in memory only up to
--max-arena MiB (default 64) of the most recent traffic: an older message
still lists but shows "bytes of message N are no longer in memory", and the
tables as of it may be shown as of an earlier message. With --write the
bytes are read back from the file instead for every message that lies whole
in one captured packet (most; one cut across TCP segments stays in memory,
under the same bound), so little memory is used; open the file later for
the whole session.

ULinkRPC is decoded as dump decodes it (--ulinkrpc-key, --contracts): over
TCP, WebSocket and KCP (UDP) on the profile's [ulinkrpc] ports and the ports
--decode-as PORT=ulinkrpc names (KCP on the first four), which the kernel
filter keeps besides the game's. Finding ULinkRPC by content on other ports
(a TCP connection or a KCP handshake on any port, or a KCP session moved to
another port) needs --any-port: the kernel filter then keeps all TCP and
all UDP of the interface, so every such packet is copied to user space,
reassembled or probed (up to 4096 UDP flows; see --max-flows for TCP) and
saved by --write. Without it, only the ports above are seen. A ULinkRPC
record is kept whole in memory (its fields and envelope bytes, not only an
index record) for as long as live runs: --max-arena does not bound it.`,
		Example: "  sudo usmnscope live -i lo\n  sudo usmnscope live -i eth0 --write session.pcapng\n  sudo usmnscope live -i lo --duration 30s",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx = cmd.Context()
			o.load = decodeLoaders(cmd)
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
	f.BoolVar(&o.anyPort, "any-port", false, "keep all TCP and UDP in the kernel filter, to find ULinkRPC (TCP, WebSocket, KCP) on any port as dump does; costs every TCP and UDP packet of the interface")
	f.BoolVar(&o.hl.Stats, "stats", false, "no TUI: capture and decode until Ctrl-C (or --count/--duration), then print one line of totals")
	f.Int64Var(&o.hl.Count, "count", 0, "no TUI: stop after `N` packets (implies --stats)")
	f.DurationVar(&o.hl.Duration, "duration", 0, "no TUI: stop after `D`, e.g. 10s (implies --stats)")
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
	if o.hl.Count < 0 || o.hl.Duration < 0 {
		return usageError{errors.New("live: --count and --duration cannot be negative")}
	}
	if !o.hl.On() && !pipeline.IsTerminal(s.out) {
		return errors.New("live: standard output is not a terminal; use `tcpdump -U -w - | usmnscope dump -` for text output")
	}
	lv, err := openLive(o)
	if err != nil {
		return err
	}
	if o.hl.On() {
		err := o.hl.Run(o.ctx, s.out, iface, lv)
		if o.decoded != nil {
			o.decoded(lv.Index)
		}
		return err
	}
	src := lv.Source
	err = runTUI(s, s.in, lv, tuifeed.LiveConfig(iface), nil)
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
	if o.decoded != nil {
		o.decoded(lv.Index)
	}
	return err
}

// openLive opens o's capture and its decoding, the one wiring of every
// live mode (the TUI, --stats, and the tests): pipeline.Open with the
// profile, the schemas, ULinkRPC as dump decodes it (decodeLoaders), the
// capture and kernel filter options of pipeline.LiveOptions, the bounded
// arena and --write's store.
func openLive(o *liveOptions) (*pipeline.Decode, error) {
	cfg, err := o.load.Load()
	if err != nil {
		return nil, err
	}
	opts := cfg.Options()
	opts.Live = &pipeline.Live{Interface: o.iface, SnapLen: o.snaplen, Promiscuous: o.promisc, Write: o.write, AnyPort: o.anyPort, Arena: o.arena << 20}
	return pipeline.Open(opts)
}

// liveArenaMiB is live's default bound on message bytes in memory
// (unturned.Limits.MaxArena): live runs without end, so without --write the
// oldest messages' bytes go (their index records stay); 64 MiB is about
// half a million typical messages.
const liveArenaMiB = 64
