package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/views"
)

func init() { subcommands = append(subcommands, newLiveCmd) }

func newLiveCmd(s *streams) *cobra.Command {
	var (
		iface   string
		write   string
		snaplen int
		promisc bool
		arena   int64
		hl      headless
	)
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
			if iface == "" {
				return usageError{errors.New("live: -i IFACE is required")}
			}
			if snaplen < 0 {
				return usageError{fmt.Errorf("live: --snaplen %d: must be positive", snaplen)}
			}
			if arena < 0 || arena > 1<<30 {
				return usageError{fmt.Errorf("live: --max-arena %d: cannot be negative or above 1073741824 MiB", arena)}
			}
			if hl.count < 0 || hl.duration < 0 {
				return usageError{errors.New("live: --count and --duration cannot be negative")}
			}
			if !hl.on() && !isTerminal(s.out) {
				return errors.New("live: standard output is not a terminal; use `tcpdump -U -w - | usmnscope dump -` for text output")
			}
			p, err := loadProfile(cmd)
			if err != nil {
				return err
			}
			opt := capture.DefaultLiveOptions(iface)
			opt.Options = captureOptions(p)
			if snaplen > 0 {
				opt.SnapLen = snaplen
			}
			opt.Promiscuous = promisc
			opt.Write = write
			src, err := capture.OpenLive(opt)
			if err != nil {
				return err
			}
			dc := newLiveDecoder(p, arena<<20)
			attachLive(dc, write, src)
			if hl.on() {
				return hl.run(cmd.Context(), s, iface, src, dc)
			}
			defer saveOnHangup(src)()
			err = runTUI(s, s.in, src, dc, views.Config{Name: "live " + iface, Parse: parseFilter, Live: true})
			// q, Ctrl-C (a key on the terminal), SIGTERM and a SIGINT
			// sent from elsewhere (bubbletea's ErrInterrupted) are all a
			// normal stop. runTUI has closed src, which flushed --write;
			// Close returns its error again, so that a failed --write is
			// reported after the screen is gone.
			if errors.Is(err, tea.ErrInterrupted) {
				err = nil
			}
			if cerr := src.Close(); err == nil {
				err = cerr
			}
			return err
		},
	}
	cmd.Flags().StringVarP(&iface, "interface", "i", "", "network interface to capture on (\"any\" for all)")
	cmd.Flags().StringVar(&write, "write", "", "also save every captured packet to this pcapng `FILE`")
	cmd.Flags().IntVar(&snaplen, "snaplen", 0, "bytes kept per packet (default 262144)")
	cmd.Flags().BoolVar(&promisc, "promisc", false, "put the interface in promiscuous mode")
	cmd.Flags().Int64Var(&arena, "max-arena", liveArenaMiB, "keep the bytes of at most `MiB` of recent messages in memory (0: all); older ones are read back from --write or shown without bytes")
	cmd.Flags().BoolVar(&hl.stats, "stats", false, "no TUI: capture and decode until Ctrl-C (or --count/--duration), then print one line of totals")
	cmd.Flags().Int64Var(&hl.count, "count", 0, "no TUI: stop after `N` packets (implies --stats)")
	cmd.Flags().DurationVar(&hl.duration, "duration", 0, "no TUI: stop after `D`, e.g. 10s (implies --stats)")
	return cmd
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

// saveOnHangup makes SIGHUP (the terminal closed under the TUI, which
// bubbletea leaves to its default: death) close src first, which flushes
// and closes the --write file, then exit 0 as q would: the terminal is
// gone, there is no screen to restore. The returned func stops it.
func saveOnHangup(src capture.Source) (stop func()) {
	hup := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		select {
		case <-hup:
			src.Close()
			os.Exit(exitOK)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
	}
}
