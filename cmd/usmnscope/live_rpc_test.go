package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestLiveRPC is issue 15's live must-hold: simulate plays each ULinkRPC
// fixture scenario over real sockets on lo (TCP, WebSocket, KCP) while the
// real command `live -i lo --write F --stats --decode-as PORT=ulinkrpc`
// (with the fixture's --contracts and key flags, the kernel filter on)
// captures and decodes it, until its context is cancelled as Ctrl-C
// cancels it. What live decoded must be what `dump --json F` prints
// afterwards: its --stats counts per protocol are the file's, and its
// ULinkRPC records, handed out by the command once it stopped
// (liveOptions.decoded), are the very records of dump, every key (n,
// frame, time, conn, fields, rpc, payload, pair, latency_ns …) equal; and,
// but for the connection, the capture's clock and the numbering, they are
// the records of the fixture's own capture (fixtures/ulinkrpc/golden), so
// the simulation carried exactly the scenario's frames. Some scenarios run
// again with --any-port and no --decode-as: found by content (TCP,
// WebSocket) or by the KCP handshake on a port nothing names.
func TestLiveRPC(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("live capture needs CAP_NET_RAW: skipping the live ULinkRPC tests (not root)")
	}
	scs, err := filepath.Glob(filepath.Join(rpcFixturesDir, "*.toml"))
	if err != nil || len(scs) == 0 {
		t.Fatalf("no ULinkRPC scenarios in %s: %v", rpcFixturesDir, err)
	}
	seen := map[string]bool{}
	anyPort := map[string]bool{"tcp-json": true, "websocket-json": true, "kcp-otherport": true}
	for _, path := range scs {
		sc, err := scenario.ReadRPCFile(path)
		if err != nil {
			t.Fatal(err)
		}
		seen[sc.U.Transport] = true
		name := strings.TrimSuffix(filepath.Base(path), ".toml")
		t.Run(sc.U.Transport+"/"+name, func(t *testing.T) {
			liveRPC(t, path, sc, false)
		})
		if anyPort[name] {
			t.Run(sc.U.Transport+"/"+name+"/any-port", func(t *testing.T) {
				liveRPC(t, path, sc, true)
			})
			delete(anyPort, name)
		}
	}
	for _, tr := range []string{"tcp", "websocket", "kcp"} {
		if !seen[tr] {
			t.Errorf("no %s fixture scenario: the live must-hold needs one per transport", tr)
		}
	}
	for name := range anyPort {
		t.Errorf("no fixture scenario %s for live --any-port", name)
	}
}

// liveRPC runs the scenario at path through simulate while `live` captures
// lo (with --any-port and no --decode-as when anyPort), and compares what
// live decoded with dump --json of its --write file and with the fixture.
func liveRPC(t *testing.T, path string, sc *scenario.RPC, anyPort bool) {
	kcp := sc.U.Transport == "kcp"
	port := freeRPCPort(t, kcp)
	asFlag := strconv.Itoa(int(port)) + "=ulinkrpc"
	name := strings.TrimSuffix(filepath.Base(path), ".toml")
	out := filepath.Join(t.TempDir(), name+".pcapng")
	flags, liveOnly := rpcArgs(name), []string{"--write", out, "--stats"}
	if anyPort {
		liveOnly = append(liveOnly, "--any-port")
	} else {
		flags = append(flags, "--decode-as", asFlag)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	type result struct {
		err          error
		stdout, err2 string
	}
	var live *session.Index
	done := make(chan result, 1)
	go func() {
		stdout, stderr, err := runLiveCmd(ctx, func(dc *session.Index) { live = dc },
			append(append([]string{"live", "-i", "lo"}, liveOnly...), flags...)...)
		done <- result{err, stdout, stderr}
	}()
	// The capture is on once the --write file has its header: OpenLive
	// creates it after the kernel filter took effect.
	for ready := false; !ready; {
		select {
		case r := <-done:
			if errors.Is(r.err, capture.ErrPermission) {
				t.Skipf("no CAP_NET_RAW: %v", r.err)
			}
			t.Fatalf("live stopped before simulate ran: %v\n%s%s", r.err, r.stdout, r.err2)
		case <-time.After(10 * time.Millisecond):
			st, err := os.Stat(out)
			ready = err == nil && st.Size() > 0
		}
	}

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port)))
	code, stdout, stderr := runArgs("simulate", "--scenario", path, "--addr", addr, "--full-speed")
	if code != 0 || !strings.Contains(stdout, "all received") {
		t.Fatalf("simulate exit %d: %s%s", code, stdout, stderr)
	}
	// The ring hands a block over at most 100 ms after its first packet.
	time.Sleep(400 * time.Millisecond)
	stop()
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("live did not stop after its context was cancelled")
	}
	if r.err != nil || live == nil {
		t.Fatalf("live: %v (decoded index handed out: %v)\n%s", r.err, live != nil, r.err2)
	}
	stats := statsRE.FindStringSubmatch(r.stdout)
	if stats == nil {
		t.Fatalf("live --stats printed %q; want its totals line", r.stdout)
	}
	drops, _ := strconv.Atoi(stats[2])

	code, dump, stderr := run(t, nil, append(append([]string{"dump", "--json"}, flags...), out)...)
	if code != exitOK {
		t.Fatalf("dump --json %s: exit %d: %s", out, code, stderr)
	}
	// The live index names no host or capture (it reads no file).
	dump = withoutOrigin(dump)
	// The counts live printed are the file's, whatever else lo carried
	// meanwhile: the file holds exactly the packets live read.
	unturnedN, rpcN := protoCounts(t, dump)
	if got, want := stats[1], fmt.Sprintf("%d messages", unturnedN+rpcN); got != want {
		t.Errorf("live --stats: %q; dump --json of its --write file has %s", r.stdout, want)
	}
	if got, want := stats[3], fmt.Sprintf("messages: %d unturned, %d ulinkrpc", unturnedN, rpcN); got != want {
		t.Errorf("live --stats: %q; dump --json of its --write file: %s", r.stdout, want)
	}

	// The live index hosts the ULinkRPC records in the capture-wide
	// order, as dump's does: its dump --json lines, as dump prints them.
	got := rpcLinesOn(t, string(live.AppendJSONRange(nil, 1, live.Len(), nil)), port)
	want := rpcLinesOn(t, dump, port)
	if len(got) == 0 || !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		at := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(none)"
		}
		t.Fatalf("live decoded %d ULinkRPC records on port %d, dump --json of the --write file %d; want the same records. Record %d live:\n%s\nin the file:\n%s",
			len(got), port, len(want), i+1, at(got), at(want))
	}
	if slices.ContainsFunc(sc.Conns[0].Actions, func(a scenario.RPCAction) bool { return a.Do == "capture" }) {
		// The fixture's capture starts mid-connection; a real connection
		// carries its start: its records are more than the fixture's.
		return
	}
	fixture, err := os.ReadFile(filepath.Join(rpcFixturesDir, "golden", name+".dump.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	fx := strings.Split(strings.TrimSpace(string(fixture)), "\n")
	t.Logf("%d records live, in the file and in the fixture capture; %s", len(got), strings.TrimSpace(r.stdout))
	if len(fx) != len(got) && drops > 0 {
		// Live and file lost the same packets; the comparison above held.
		t.Skipf("the kernel dropped %d packets of a busy lo: %d records live, %d in the fixture capture", drops, len(got), len(fx))
	}
	if len(fx) != len(got) {
		t.Fatalf("live decoded %d records; the fixture's capture %d", len(got), len(fx))
	}
	for i := range got {
		if g, f := frameKeys(t, got[i]), frameKeys(t, fx[i]); g != f {
			t.Errorf("record %d decoded live:\n%s\nwant the fixture capture's\n%s", i+1, g, f)
		}
	}
}

// statsRE reads live --stats' totals line: the messages, the kernel's
// drops and the messages per protocol.
var statsRE = regexp.MustCompile(`^live lo: \d+ packets, (\d+ messages) in .*; kernel \d+ packets, (\d+) drops; (messages: \d+ unturned, \d+ ulinkrpc)\n$`)

// runLiveCmd runs a live command line through the real command tree
// (newRoot: the root flags, live's loaders and runLive) under ctx, which
// stops it as Ctrl-C would; decoded is given live's index once it stopped.
func runLiveCmd(ctx context.Context, decoded func(*session.Index), args ...string) (stdout, stderr string, err error) {
	var out, errw bytes.Buffer
	err = runLiveOn(ctx, &streams{in: strings.NewReader(""), out: &out, err: &errw}, decoded, args...)
	return out.String(), errw.String(), err
}

// runLiveOn is runLiveCmd over the streams s.
func runLiveOn(ctx context.Context, s *streams, decoded func(*session.Index), args ...string) error {
	root := newRoot(s)
	for _, c := range root.Commands() {
		if c.Name() == "live" {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(newCmdLive(s, func(o *liveOptions) error {
		o.decoded = decoded
		return runLive(o)
	}))
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// protoCounts counts dump --json's records per protocol.
func protoCounts(t *testing.T, out string) (unturned, ulinkrpc int) {
	t.Helper()
	for line := range strings.SplitSeq(out, "\n") {
		var r struct {
			Proto string `json:"proto"`
		}
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("dump --json line %q: %v", line, err)
		}
		switch r.Proto {
		case "unturned":
			unturned++
		case "ulinkrpc":
			ulinkrpc++
		default:
			t.Fatalf("dump --json line %q: proto %q", line, r.Proto)
		}
	}
	return unturned, ulinkrpc
}

// freeRPCPort returns a loopback port free at the time of the call, TCP or
// UDP.
func freeRPCPort(t *testing.T, udp bool) uint16 {
	t.Helper()
	if udp {
		c, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return uint16(c.LocalAddr().(*net.UDPAddr).Port)
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

// rpcLinesOn keeps the ULinkRPC records of dump --json output whose
// server is on port.
func rpcLinesOn(t *testing.T, out string, port uint16) []string {
	t.Helper()
	var lines []string
	for line := range strings.SplitSeq(out, "\n") {
		var r struct {
			Proto string `json:"proto"`
			Conn  string `json:"conn"`
		}
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("dump --json line %q: %v", line, err)
		}
		if r.Proto == "ulinkrpc" && strings.HasSuffix(r.Conn, ":"+strconv.Itoa(int(port))) {
			lines = append(lines, line)
		}
	}
	return lines
}

// frameKeys is a record's JSON without what a simulation on other sockets
// changes: the connection, the capture's frame numbers and clock, the
// numbering and what follows from them (pair, latency).
func frameKeys(t *testing.T, line string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("record %q: %v", line, err)
	}
	for _, k := range []string{"n", "frame", "time", "time_ns", "conn", "pair", "latency_ns"} {
		delete(m, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLiveCaptureOptions: live keeps, and decodes, ULinkRPC where dump
// does: TCP on the profile's [ulinkrpc] ports and those --decode-as names
// (less those it turns off), KCP datagrams on the same ports; --any-port
// keeps all TCP and probes every UDP flow as dump does.
func TestLiveCaptureOptions(t *testing.T) {
	tests := []struct {
		decodeAs []string
		ports    []uint16 // the profile's [ulinkrpc] ports; nil: the default
		anyPort  bool
		tcp      string
		udp      [4]uint16
	}{
		{nil, nil, false, "[20000]", [4]uint16{20000}},
		{[]string{"31000=ulinkrpc"}, nil, false, "[20000 31000]", [4]uint16{20000, 31000}},
		{[]string{"20000=none", "27017=unturned"}, nil, false, "[27017]", [4]uint16{}},
		{nil, []uint16{20001, 20000}, true, "[20000 20001]", [4]uint16{20000, 20001}},
	}
	for _, tt := range tests {
		p := unturned.Default()
		var err error
		if p.DecodeAs, err = pipeline.DecodeAs(tt.decodeAs); err != nil {
			t.Fatal(err)
		}
		rp := pipeline.NewRPC(rpc.Config{})
		rp.Ports = tt.ports
		opt := liveCaptureOptions(p, rp, "lo", tt.anyPort)
		probe := 0
		if tt.anyPort {
			probe = pipeline.KCPProbeDatagrams
		}
		if got := fmt.Sprint(opt.TCPPorts); got != tt.tcp || opt.DatagramPorts != tt.udp || opt.AllTCP != tt.anyPort || opt.ProbeDatagrams != probe ||
			!opt.BPF || opt.Interface != "lo" || opt.TransportPort != p.TransportPort {
			t.Errorf("liveCaptureOptions(--decode-as %v, ports %v, any-port %v) = TCP %s, UDP %v, all TCP %v, probe %d, BPF %v, %q, transport %d; want TCP %s, UDP %v, all TCP %v, probe %d, the filter on lo, transport %d",
				tt.decodeAs, tt.ports, tt.anyPort, got, opt.DatagramPorts, opt.AllTCP, opt.ProbeDatagrams, opt.BPF, opt.Interface, opt.TransportPort,
				tt.tcp, tt.udp, tt.anyPort, probe, p.TransportPort)
		}
	}
}

// TestLiveHelpRPC: live --help says that live decodes ULinkRPC, on which
// ports, and what --any-port costs.
func TestLiveHelpRPC(t *testing.T) {
	_, help, _ := run(t, nil, "live", "--help")
	for _, want := range []string{"ULinkRPC is decoded as dump decodes it", "--decode-as PORT=ulinkrpc", "--any-port",
		"keeps all TCP and\nall UDP of the interface", fmt.Sprintf("up to %d UDP flows", capture.DefaultMaxProbeFlows), "messages per protocol"} {
		if !strings.Contains(help, want) {
			t.Errorf("live --help lacks %q:\n%s", want, help)
		}
	}
}
