package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/unturned"
)

// genOptions are what a gen command line asks for.
type genOptions struct {
	IO         *streams
	profile    func() (*unturned.Profile, error)
	profileSet bool // --profile was given: it replaces the scenario's profile

	args  []string // the scenario file, if any
	out   string
	pcap  bool
	scale int
	conns int
	seed  uint64
	link  string
	// --protocol ulinkrpc: a ULinkRPC load capture over --transport
	// (issue 15) instead of the Unturned one.
	protocol  string
	transport string
}

// newCmdGen returns the gen command; runF, when not nil, runs instead of
// runGen with the parsed options (tests).
func newCmdGen(s *streams, runF func(*genOptions) error) *cobra.Command {
	o := &genOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "gen SCENARIO.toml -o OUT.pcapng | gen --scale N [--conns K] -o OUT.pcapng",
		Short: "Generate a capture from a scenario file, or a load capture",
		Long: `Plays a scenario file (fixtures/README.md) under USMN's rules and writes the
traffic as TCP/IPv4 or IPv6 packets with correct sequence numbers and
checksums: pcapng, or classic pcap with --pcap or a .pcap file name.

With --scale N it writes instead a load capture of N messages over --conns
connections that all run USMN, in a realistic mix (pings, short-ID invokes,
some definitions and negotiation), for benchmarks and big-capture trials.
With --protocol ulinkrpc the load is N ULinkRPC frames over --transport
(tcp, websocket or kcp) on port 20000: JSON and MemoryPack requests,
responses of every status, pushes and keep-alives.

-o - writes the capture to standard output. The same input always gives the
same file.`,
		Example: `  usmnscope gen fixtures/scenarios/usmn-basic.toml -o usmn-basic.pcapng
  usmnscope gen fixtures/scenarios/vanilla.toml --pcap -o vanilla.pcap
  usmnscope gen --scale 1000000 --conns 64 -o load.pcapng
  usmnscope gen --scale 1000000 --conns 32 --protocol ulinkrpc -o rpc.pcapng`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			o.profile = profileLoader(cmd)
			o.profileSet = profileSet(cmd)
			if runF != nil {
				return runF(o)
			}
			return runGen(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "output", "o", "", "capture file to write (- for standard output)")
	f.BoolVar(&o.pcap, "pcap", false, "write classic pcap instead of pcapng")
	f.IntVar(&o.scale, "scale", 0, "write a load capture of N messages instead of a scenario")
	f.IntVar(&o.conns, "conns", 16, "connections of a --scale capture")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the --scale mix")
	f.StringVar(&o.link, "link", "ethernet", "link layer of a --scale capture: ethernet, vlan-ethernet, sll, sll2, raw, null")
	f.StringVar(&o.protocol, "protocol", "unturned", "protocol of a --scale capture: unturned, or ulinkrpc (N frames)")
	f.StringVar(&o.transport, "transport", "tcp", "transport of a --scale --protocol ulinkrpc capture: tcp, websocket, kcp")
	return cmd
}

func runGen(o *genOptions) error {
	s, args := o.IO, o.args
	if o.out == "" {
		return usageError{fmt.Errorf("gen: -o OUT is required")}
	}
	if (len(args) == 1) == (o.scale > 0) {
		return usageError{fmt.Errorf("gen: give either a scenario file or --scale N")}
	}
	if o.protocol != "unturned" && o.protocol != "ulinkrpc" {
		return usageError{fmt.Errorf("gen: --protocol %s: not unturned or ulinkrpc", termsafe.Escape(o.protocol))}
	}
	if o.transport != "tcp" && (o.protocol != "ulinkrpc" || o.scale == 0) {
		return usageError{fmt.Errorf("gen: --transport is for --scale N --protocol ulinkrpc")}
	}
	format := scenario.PCAPNG
	if o.pcap || strings.EqualFold(filepath.Ext(o.out), ".pcap") {
		format = scenario.PCAP
	}
	var sc *scenario.Scenario
	var rs *scenario.RPC // a ULinkRPC scenario (protocol = "ulinkrpc")
	if len(args) == 1 {
		data, err := os.ReadFile(args[0])
		if err != nil {
			return err
		}
		if scenario.IsRPC(data) {
			if rs, err = scenario.ReadRPCFile(args[0]); err != nil {
				return err
			}
		} else if sc, err = scenario.ReadFile(args[0]); err != nil {
			return err
		}
	}
	if err := applyProfile(sc, o.profileSet, o.profile); err != nil {
		return err
	}
	var scaleProfile *unturned.Profile
	if sc == nil && rs == nil {
		p, err := o.profile()
		if err != nil {
			return err
		}
		scaleProfile = p
	}
	w, closeOut, created, err := create(s, o.out)
	if err != nil {
		return err
	}
	var st scenario.Stats
	switch {
	case rs != nil:
		st, err = rs.Generate(w, format)
	case sc != nil:
		st, err = sc.Generate(w, format)
	case o.protocol == "ulinkrpc":
		st, err = scenario.RPCScale{Frames: o.scale, Conns: o.conns, Seed: o.seed, Transport: o.transport, Link: o.link}.Generate(w, format)
	default:
		st, err = scenario.Scale{Messages: o.scale, Conns: o.conns, Seed: o.seed, Link: o.link, P: scaleProfile}.Generate(w, format)
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		var written int64
		if fi, serr := os.Stat(o.out); serr == nil && o.out != "-" {
			written = fi.Size()
		}
		switch {
		case created && written == 0:
			os.Remove(o.out) // only a new empty regular file of ours, never a device or an old file
		case written > 0:
			// A full disk keeps what was written (issue 8): a capture cut
			// mid-record, which reads up to the cut with a finding.
			err = fmt.Errorf("%w (the %d bytes written before it are kept in %s)", err, written, termsafe.Escape(o.out))
		}
		return err
	}
	// The summary goes to stderr when the capture itself goes to stdout.
	msg := s.out
	if o.out == "-" {
		msg = s.err
	}
	fmt.Fprintf(msg, "wrote %s (%s): %d connections, %d messages, %d packets\n", o.out, format, st.Conns, st.Messages, st.Packets)
	return nil
}

// create opens the output file, or standard output for "-". created says
// whether the file is a new regular file, the only kind gen removes when it
// fails before writing anything.
func create(s *streams, path string) (w io.Writer, closeOut func() error, created bool, err error) {
	if path == "-" {
		return s.out, func() error { return nil }, false, nil
	}
	_, statErr := os.Lstat(path)
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, false, fmt.Errorf("gen: %w", err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && os.IsNotExist(statErr) {
		created = true
	}
	return f, f.Close, created, nil
}

// applyProfile lets --profile, which every command takes, replace the
// profile a scenario file names for the messages it encodes (wire.md 6.1);
// addresses the scenario left to the profile's default port keep the
// scenario's own profile. Without --profile (set), or without a scenario,
// it does nothing.
func applyProfile(sc *scenario.Scenario, set bool, load func() (*unturned.Profile, error)) error {
	if sc == nil || !set {
		return nil
	}
	p, err := load()
	if err != nil {
		return err
	}
	sc.P = p
	return nil
}

// profileSet says whether --profile was given.
func profileSet(cmd *cobra.Command) bool {
	f := cmd.Flag(profileFlag)
	return f != nil && f.Changed
}
