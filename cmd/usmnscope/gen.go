package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/scenario"
)

// genOptions are what a gen command line asks for.
type genOptions struct {
	IO         *streams
	load       pipeline.Loaders // the profile played under (its Profile only)
	profileSet bool             // --profile was given: it replaces the scenario's profile

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
			o.load = pipeline.Loaders{Profile: profileLoader(cmd)}
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
	g := scenario.Gen{Out: o.out, Stdout: o.IO.out, PCAP: o.pcap, Scale: o.scale, Conns: o.conns, Seed: o.seed, Link: o.link,
		Protocol: o.protocol, Transport: o.transport, Profile: o.load.Profile, ProfileSet: o.profileSet}
	if len(o.args) == 1 {
		g.File = o.args[0]
	}
	st, format, err := g.Run()
	if err != nil {
		return usageOf(err)
	}
	// The summary goes to stderr when the capture itself goes to stdout.
	msg := o.IO.out
	if o.out == "-" {
		msg = o.IO.err
	}
	fmt.Fprintf(msg, "wrote %s (%s): %d connections, %d messages, %d packets\n", o.out, format, st.Conns, st.Messages, st.Packets)
	return nil
}

// usageOf makes a scenario.UsageError a usage error (exit 2).
func usageOf(err error) error {
	var u scenario.UsageError
	if errors.As(err, &u) {
		return usageError{u.Err}
	}
	return err
}

// profileSet says whether --profile was given.
func profileSet(cmd *cobra.Command) bool {
	f := cmd.Flag(profileFlag)
	return f != nil && f.Changed
}
