package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/scenario"
)

// simulateOptions are what a simulate command line asks for.
type simulateOptions struct {
	IO         *streams
	ctx        context.Context  // the command's; nil is context.Background
	load       pipeline.Loaders // the profile played under (its Profile only)
	profileSet bool             // --profile was given

	scenario string
	sim      scenario.Sim
	inject   bool
	iface    string

	speedSet bool     // --speed was given (it excludes --full-speed)
	ifaceSet bool     // -i was given (it goes with --inject)
	tcpFlags []string // the TCP-only flags given, which --inject refuses
	mixFlags []string // the load mix flags given, which a ULinkRPC scenario refuses
}

// mixFlags are the simulate flags of the Unturned load mix, which a
// ULinkRPC scenario refuses rather than ignores.
var mixFlags = []string{"count", "conns", "rate", "seed"}

// tcpOnlyFlags are the simulate flags for TCP connections, which --inject
// refuses rather than ignores, in the order it names them.
var tcpOnlyFlags = []string{"addr", "speed", "full-speed", "nagle", "congestion"}

// newCmdSimulate returns the simulate command; runF, when not nil, runs
// instead of runSimulate with the parsed options (tests).
func newCmdSimulate(s *streams, runF func(*simulateOptions) error) *cobra.Command {
	o := &simulateOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "simulate [--scenario F] [--addr A] [--speed X | --full-speed] [--count N] [--rate R] | --inject [-i IF] [--rate PPS]",
		Short: "Play a scenario between a real server and client over TCP (ULinkRPC: TCP, WebSocket or KCP)",
		Long: `Starts a server on --addr (default 127.0.0.1:27016) and a client that connects
to it, and plays the scenario's connections one after the other in real time
(--speed scales the scenario's gaps; --full-speed drops them), so that live
capture and the TUI can be tried without the game. --count N then plays N
messages of the load mix of 'gen --scale' over --conns more connections
played at once, at most --rate messages per second in all. Each message is
its own write, sent at once (TCP_NODELAY; --nagle turns that off), but the
kernel still merges writes that wait in the send queue: with BBR congestion
control (a common default) or net.ipv4.tcp_autocorking=1, lo carries far
fewer packets than messages. --congestion cubic (Linux) brings packets nearer
messages; 'usmnscope live -i lo --stats' counts both. At the end every byte
is checked to have arrived.

A ULinkRPC scenario (protocol = "ulinkrpc", fixtures/ulinkrpc) is played
over its transport: TCP, a WebSocket after a real HTTP/1.1 upgrade, or KCP
over UDP after the UKCP/UACK handshake. The server listens on the
scenario's server port (ULinkRPC's 20000 by default) on 127.0.0.1 unless
--addr is given, and answers as the script says: each Request gets its
Response once it has arrived, each Ping its Pong. Every frame is checked to
arrive intact. A capture of lo decodes with 'usmnscope dump --decode-as
PORT=ulinkrpc' (not needed on 20000). The load mix (--count, --conns, --rate, --seed) and --inject are for
Unturned scenarios only and are refused with a ULinkRPC one; so are --nagle
and --congestion over KCP.

--inject replays instead, like tcpreplay: the frames 'gen' would write for
the scenario and --count messages of the load mix over --conns connections
(Ethernet, IPv4, TCP with consistent sequence numbers, the profile's
transport port) go straight onto the interface -i (default lo) through a
packet socket, --rate then counting packets per second (0: as fast as
possible). No TCP stack sends or receives them: on lo, 'usmnscope live -i
lo' reads them as real traffic, so the reader can be measured at rates a
TCP sender on the same machine cannot reach. It needs CAP_NET_RAW.`,
		Example: `  usmnscope simulate --scenario fixtures/scenarios/usmn-basic.toml --speed 0.05
  usmnscope live -i lo        # in another terminal
  usmnscope simulate --scenario fixtures/ulinkrpc/websocket-json.toml --speed 0.01
  usmnscope simulate --full-speed --count 2000000 --conns 8
  usmnscope simulate --inject --rate 200000 --count 2000000 --conns 4 -i lo`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx = cmd.Context()
			o.load = pipeline.Loaders{Profile: profileLoader(cmd)}
			o.profileSet = profileSet(cmd)
			f := cmd.Flags()
			o.speedSet, o.ifaceSet = f.Changed("speed"), f.Changed("interface")
			for _, name := range mixFlags {
				if f.Changed(name) {
					o.mixFlags = append(o.mixFlags, name)
				}
			}
			for _, name := range tcpOnlyFlags {
				if f.Changed(name) {
					o.tcpFlags = append(o.tcpFlags, name)
				}
			}
			if runF != nil {
				return runF(o)
			}
			return runSimulate(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scenario, "scenario", "", "scenario file to play")
	f.StringVar(&o.sim.Addr, "addr", scenario.DefaultAddr, "address the server listens on (ULinkRPC scenario: 127.0.0.1 and its server port)")
	f.Float64Var(&o.sim.Speed, "speed", 1, "time factor: 2 plays twice as fast, 0.1 ten times slower")
	f.BoolVar(&o.sim.FullSpeed, "full-speed", false, "send everything as fast as possible")
	f.IntVar(&o.sim.Count, "count", 0, "load mix messages to play after the scenario")
	f.IntVar(&o.sim.Conns, "conns", 1, "connections the load messages are spread over, played at once")
	f.Float64Var(&o.sim.Rate, "rate", 0, "at most this many load messages per second, packets with --inject (0: no limit)")
	f.BoolVar(&o.sim.Nagle, "nagle", false, "leave Nagle's algorithm on (writes may share segments)")
	f.StringVar(&o.sim.Congestion, "congestion", "", "TCP congestion control `ALG` of the connections, e.g. cubic (Linux; default: the system's)")
	f.Uint64Var(&o.sim.Seed, "seed", 1, "seed of the load mix")
	f.BoolVar(&o.inject, "inject", false, "send generated frames through a packet socket instead of TCP connections (needs CAP_NET_RAW)")
	f.StringVarP(&o.iface, "interface", "i", "lo", "interface --inject sends on")
	return cmd
}

func runSimulate(o *simulateOptions) error {
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	o.sim.Log = o.IO.out
	return usageOf(scenario.Play{Scenario: o.scenario, Sim: o.sim, Inject: o.inject, Iface: o.iface,
		SpeedSet: o.speedSet, IfaceSet: o.ifaceSet, TCPFlags: o.tcpFlags, MixFlags: o.mixFlags,
		Profile: o.load.Profile, ProfileSet: o.profileSet}.Run(ctx))
}
