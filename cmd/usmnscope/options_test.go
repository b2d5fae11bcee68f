package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/headless"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/scenario"
)

// parseOptions runs a command built by newCmd over args under a root that
// has the root's flags (--profile, --max-*), with a run function that only
// keeps the options: what a command line parses to, without running the
// command (cli/cli's NewCmdX(f, runF) tests). It returns nil options when
// the command line was refused before the run function.
func parseOptions[O any](t *testing.T, newCmd func(*streams, func(*O) error) *cobra.Command, args string) (*O, error) {
	t.Helper()
	var got *O
	s := &streams{in: strings.NewReader(""), out: &strings.Builder{}, err: &strings.Builder{}}
	root := &cobra.Command{Use: "usmnscope", SilenceUsage: true, SilenceErrors: true}
	addRootFlags(root)
	root.AddCommand(newCmd(s, func(o *O) error { got = o; return nil }))
	root.SetArgs(strings.Fields(args))
	root.SetOut(s.out)
	root.SetErr(s.err)
	err := root.Execute()
	return got, err
}

// same compares parsed options with the wanted ones; the caller has
// cleared what depends on the run (the streams, the profile loader, the
// context), which TestProfileShowOptions checks apart.
func same[O any](t *testing.T, args string, got *O, want O) {
	t.Helper()
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("%q parses to %+v; want %+v", args, *got, want)
	}
}

func TestDumpOptions(t *testing.T) {
	tests := []struct {
		args string
		want dumpOptions
		err  string
	}{
		{"dump c.pcapng", dumpOptions{capture: "c.pcapng"}, ""},
		{"dump -V c.pcapng", dumpOptions{capture: "c.pcapng", verbose: true}, ""},
		{"dump --json --filter msg==PingRequest -", dumpOptions{capture: "-", json: true, filter: "msg==PingRequest"}, ""},
		// Exclusive flags are the run function's to refuse, not the parser's.
		{"dump --json -V c", dumpOptions{capture: "c", json: true, verbose: true}, ""},
		{"dump --max-flows 3 c", dumpOptions{capture: "c"}, ""},
		{"dump", dumpOptions{}, "dump: missing CAPTURE"},
		{"dump --bogus c", dumpOptions{}, "unknown flag: --bogus"},
	}
	for _, tt := range tests {
		got, err := parseOptions(t, newCmdDump, tt.args)
		if tt.err != "" {
			if got != nil || err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q = %+v, %v; want no run and %q", tt.args, got, err, tt.err)
			}
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q = %v; want a run", tt.args, err)
		}
		got.IO, got.load = nil, pipeline.Loaders{} // loaders: funcs
		got.captures = oneCapture(t, tt.args, got.capture, got.captures)
		same(t, tt.args, got, tt.want)
	}
}

func TestTablesOptions(t *testing.T) {
	tests := []struct {
		args string
		want tablesOptions
		err  string
	}{
		{"tables c.pcapng", tablesOptions{capture: "c.pcapng"}, ""},
		{"tables --at 12 c", tablesOptions{capture: "c", at: 12, atGiven: true}, ""},
		{"tables --json --at -1 c", tablesOptions{capture: "c", json: true, at: -1, atGiven: true}, ""},
		// --at 0 is no message; runTables refuses it as it does -1.
		{"tables --at 0 c", tablesOptions{capture: "c", atGiven: true}, ""},
		{"tables --at x c", tablesOptions{}, `invalid argument "x" for "--at" flag`},
		// Several captures are read as one (several.go).
		{"tables a b", tablesOptions{capture: "a", captures: []string{"a", "b"}}, ""},
	}
	for _, tt := range tests {
		got, err := parseOptions(t, newCmdTables, tt.args)
		if tt.err != "" {
			if got != nil || err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q = %+v, %v; want no run and %q", tt.args, got, err, tt.err)
			}
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q = %v; want a run", tt.args, err)
		}
		got.IO, got.load = nil, pipeline.Loaders{}
		if len(tt.want.captures) < 2 {
			got.captures = oneCapture(t, tt.args, got.capture, got.captures)
		}
		same(t, tt.args, got, tt.want)
	}
}

func TestBitsOptions(t *testing.T) {
	tests := []struct {
		args string
		want bitsOptions
		err  string
	}{
		{"bits 8c 00", bitsOptions{hex: []string{"8c", "00"}, dir: "c2s"}, ""},
		{"bits --dir s2c -", bitsOptions{hex: []string{"-"}, dir: "s2c"}, ""},
		{"bits --dir c2s --widened --id-bits 2 --json 31 00", bitsOptions{hex: []string{"31", "00"}, dir: "c2s", widened: true, idBits: 2, json: true}, ""},
		{"bits --dir x --id-bits 99 00", bitsOptions{hex: []string{"00"}, dir: "x", idBits: 99}, ""},
		{"bits", bitsOptions{}, "bits: missing HEX"},
	}
	for _, tt := range tests {
		got, err := parseOptions(t, newCmdBits, tt.args)
		if tt.err != "" {
			if got != nil || err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q = %+v, %v; want no run and %q", tt.args, got, err, tt.err)
			}
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q = %v; want a run", tt.args, err)
		}
		got.IO, got.load = nil, pipeline.Loaders{}
		same(t, tt.args, got, tt.want)
	}
}

func TestGenOptions(t *testing.T) {
	def := genOptions{conns: 16, seed: 1, link: "ethernet", protocol: "unturned", transport: "tcp"}
	with := func(f func(*genOptions)) genOptions { o := def; f(&o); return o }
	tests := []struct {
		args string
		want genOptions
		err  string
	}{
		{"gen s.toml -o out.pcapng", with(func(o *genOptions) { o.args = []string{"s.toml"}; o.out = "out.pcapng" }), ""},
		{"gen s.toml --pcap -o -", with(func(o *genOptions) { o.args = []string{"s.toml"}; o.out = "-"; o.pcap = true }), ""},
		{"gen --scale 1000 --conns 64 --seed 9 --link sll -o l.pcapng", with(func(o *genOptions) {
			o.args = []string{}
			o.scale, o.conns, o.seed, o.link, o.out = 1000, 64, 9, "sll", "l.pcapng"
		}), ""},
		{"gen --profile p.toml s.toml -o x", with(func(o *genOptions) { o.args = []string{"s.toml"}; o.out = "x"; o.profileSet = true }), ""},
		{"gen --scale 9 --protocol ulinkrpc --transport kcp -o k.pcapng", with(func(o *genOptions) {
			o.args = []string{}
			o.scale, o.protocol, o.transport, o.out = 9, "ulinkrpc", "kcp", "k.pcapng"
		}), ""},
		{"gen a b", genOptions{}, "accepts at most 1 arg(s), received 2"},
	}
	for _, tt := range tests {
		got, err := parseOptions(t, newCmdGen, tt.args)
		if tt.err != "" {
			if got != nil || err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q = %+v, %v; want no run and %q", tt.args, got, err, tt.err)
			}
			continue
		}
		if err != nil || got == nil {
			t.Fatalf("%q = %v; want a run", tt.args, err)
		}
		got.IO, got.load = nil, pipeline.Loaders{}
		same(t, tt.args, got, tt.want)
	}
}

func TestSimulateOptions(t *testing.T) {
	def := simulateOptions{sim: scenario.Sim{Addr: scenario.DefaultAddr, Speed: 1, Conns: 1, Seed: 1}, iface: "lo"}
	with := func(f func(*simulateOptions)) simulateOptions { o := def; f(&o); return o }
	tests := []struct {
		args string
		want simulateOptions
	}{
		{"simulate --scenario s.toml --speed 0.05", with(func(o *simulateOptions) {
			o.scenario = "s.toml"
			o.sim.Speed = 0.05
			o.speedSet = true
			o.tcpFlags = []string{"speed"}
		})},
		{"simulate --full-speed --count 2000 --conns 8 --nagle --congestion cubic", with(func(o *simulateOptions) {
			o.sim.FullSpeed, o.sim.Count, o.sim.Conns, o.sim.Nagle, o.sim.Congestion = true, 2000, 8, true, "cubic"
			o.tcpFlags = []string{"full-speed", "nagle", "congestion"}
			o.mixFlags = []string{"count", "conns"}
		})},
		{"simulate --inject --rate 200000 --count 5 -i eth0 --addr 1.2.3.4:5 --seed 3", with(func(o *simulateOptions) {
			o.inject, o.iface, o.ifaceSet = true, "eth0", true
			o.sim.Rate, o.sim.Count, o.sim.Addr, o.sim.Seed = 200000, 5, "1.2.3.4:5", 3
			o.tcpFlags = []string{"addr"}
			o.mixFlags = []string{"count", "rate", "seed"}
		})},
		{"simulate --profile p.toml --count 1", with(func(o *simulateOptions) { o.sim.Count = 1; o.profileSet = true; o.mixFlags = []string{"count"} })},
	}
	for _, tt := range tests {
		got, err := parseOptions(t, newCmdSimulate, tt.args)
		if err != nil || got == nil {
			t.Fatalf("%q = %v; want a run", tt.args, err)
		}
		got.IO, got.load, got.ctx = nil, pipeline.Loaders{}, nil
		same(t, tt.args, got, tt.want)
	}
}

func TestLiveOptions(t *testing.T) {
	def := liveOptions{arena: liveArenaMiB}
	with := func(f func(*liveOptions)) liveOptions { o := def; f(&o); return o }
	tests := []struct {
		args string
		want liveOptions
	}{
		{"live -i lo", with(func(o *liveOptions) { o.iface = "lo" })},
		{"live -i eth0 --write s.pcapng --snaplen 96 --promisc --max-arena 0", with(func(o *liveOptions) {
			o.iface, o.write, o.snaplen, o.promisc, o.arena = "eth0", "s.pcapng", 96, true, 0
		})},
		{"live -i lo --stats --count 10 --duration 30s", with(func(o *liveOptions) {
			o.iface, o.hl = "lo", headless.Options{Stats: true, Count: 10, Duration: 30 * time.Second}
		})},
		{"live -i lo --any-port --stats", with(func(o *liveOptions) {
			o.iface, o.anyPort, o.hl = "lo", true, headless.Options{Stats: true}
		})},
		// Ranges are the run function's to refuse.
		{"live --snaplen -1", with(func(o *liveOptions) { o.snaplen = -1 })},
	}
	for _, tt := range tests {
		got, err := parseOptions(t, newCmdLive, tt.args)
		if err != nil || got == nil {
			t.Fatalf("%q = %v; want a run", tt.args, err)
		}
		if got.load.RPC == nil {
			t.Errorf("%q: no ULinkRPC loader; want live to decode ULinkRPC as dump does", tt.args)
		}
		got.IO, got.load, got.ctx = nil, pipeline.Loaders{}, nil
		same(t, tt.args, got, tt.want)
	}
}

func TestOpenOptions(t *testing.T) {
	got, err := parseOptions(t, newCmdOpen, "open c.pcapng")
	if err != nil || got == nil {
		t.Fatalf("open c.pcapng = %v; want a run", err)
	}
	got.IO, got.load = nil, pipeline.Loaders{} // loaders: funcs
	got.captures = oneCapture(t, "open c.pcapng", got.capture, got.captures)
	same(t, "open c.pcapng", got, openOptions{capture: "c.pcapng"})
	if got, err := parseOptions(t, newCmdOpen, "open"); got != nil || err == nil {
		t.Errorf("open = %+v, %v; want no run and an argument error", got, err)
	}
}

// TestProfileShowOptions: the profile loader the options hold reads the
// root flags of the command line it was parsed from.
func TestProfileShowOptions(t *testing.T) {
	tests := []struct {
		args      string
		flows     int
		flowBytes int
	}{
		{"profile show", 10000, 1 << 20},
		{"--max-flows 5 profile show", 5, 1 << 20},
		{"profile show --max-flow-buffer 64KiB", 10000, 64 << 10},
	}
	for _, tt := range tests {
		got, err := parseOptions(t, newCmdProfile, tt.args)
		if err != nil || got == nil {
			t.Fatalf("%q = %v; want a run", tt.args, err)
		}
		p, err := got.profile()
		if err != nil {
			t.Fatalf("%q: profile() = %v", tt.args, err)
		}
		if p.Bounds.MaxFlows != tt.flows || int(p.Bounds.MaxFlowBuffer) != tt.flowBytes {
			t.Errorf("%q: profile() bounds = %+v; want max_flows %d, max_flow_buffer %d", tt.args, p.Bounds, tt.flows, tt.flowBytes)
		}
	}
}

// oneCapture checks that a command given one CAPTURE lists it as its
// only capture, and returns nil for the comparison of the rest.
func oneCapture(t *testing.T, args, capture string, captures []string) []string {
	t.Helper()
	if len(captures) != 1 || captures[0] != capture {
		t.Errorf("%q: captures %q; want [%q]", args, captures, capture)
	}
	return nil
}
