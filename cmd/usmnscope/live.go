package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/views"
)

func init() { subcommands = append(subcommands, newLiveCmd) }

func newLiveCmd(s *streams) *cobra.Command {
	var (
		iface   string
		write   string
		snaplen int
		promisc bool
		hl      headless
	)
	cmd := &cobra.Command{
		Use:   "live -i IFACE",
		Short: "Capture on an interface and browse it live in the terminal UI",
		Long: `Capture the game's traffic on a network interface (Linux, needs CAP_NET_RAW)
and show it in the terminal UI as it arrives. The message list follows the
tail until you move; f resumes following, space pauses. The status bar shows
packets per second and kernel drops. --write also saves every packet to a
pcapng file.`,
		Example: "  sudo usmnscope live -i lo\n  sudo usmnscope live -i eth0 --write session.pcapng",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if iface == "" {
				return usageError{errors.New("live: -i IFACE is required")}
			}
			if snaplen < 0 {
				return usageError{fmt.Errorf("live: --snaplen %d: must be positive", snaplen)}
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
			if hl.on() {
				return hl.run(cmd.Context(), s, iface, src, newDecoder(p))
			}
			return runTUI(s, s.in, src, newDecoder(p), views.Config{Name: "live " + iface, Parse: parseFilter, Live: true})
		},
	}
	cmd.Flags().StringVarP(&iface, "interface", "i", "", "network interface to capture on (\"any\" for all)")
	cmd.Flags().StringVar(&write, "write", "", "also save every captured packet to this pcapng `FILE`")
	cmd.Flags().IntVar(&snaplen, "snaplen", 0, "bytes kept per packet (default 262144)")
	cmd.Flags().BoolVar(&promisc, "promisc", false, "put the interface in promiscuous mode")
	cmd.Flags().BoolVar(&hl.stats, "stats", false, "no TUI: capture and decode until Ctrl-C (or --count/--duration), then print one line of totals")
	cmd.Flags().Int64Var(&hl.count, "count", 0, "no TUI: stop after `N` packets (implies --stats)")
	cmd.Flags().DurationVar(&hl.duration, "duration", 0, "no TUI: stop after `D`, e.g. 10s (implies --stats)")
	return cmd
}
