package main

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestLiveRPC is issue 15's live must-hold: simulate plays each ULinkRPC
// fixture scenario over real sockets on lo (TCP, WebSocket, KCP) while a
// live capture of lo decodes it, wired as `live -i lo --write F
// --decode-as PORT=ulinkrpc` wires it (the profile's capture options and
// kernel filter, newLiveDecoder, attachLive, the feed with ULinkRPC). The
// ULinkRPC records decoded live must be the very records `dump --json F`
// prints afterwards, every key (n, frame, time, conn, fields, rpc, payload,
// pair, latency_ns …) equal; and, but for the connection, the capture's
// clock and the numbering, they must be the records of the fixture's own
// capture (fixtures/ulinkrpc/golden), so the simulation carried exactly
// the scenario's frames.
func TestLiveRPC(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("live capture needs CAP_NET_RAW: skipping the live ULinkRPC tests (not root)")
	}
	scs, err := filepath.Glob(filepath.Join(rpcFixturesDir, "*.toml"))
	if err != nil || len(scs) == 0 {
		t.Fatalf("no ULinkRPC scenarios in %s: %v", rpcFixturesDir, err)
	}
	seen := map[string]bool{}
	for _, path := range scs {
		sc, err := scenario.ReadRPCFile(path)
		if err != nil {
			t.Fatal(err)
		}
		seen[sc.U.Transport] = true
		t.Run(sc.U.Transport+"/"+strings.TrimSuffix(filepath.Base(path), ".toml"), func(t *testing.T) {
			liveRPC(t, path, sc)
		})
	}
	for _, tr := range []string{"tcp", "websocket", "kcp"} {
		if !seen[tr] {
			t.Errorf("no %s fixture scenario: the live must-hold needs one per transport", tr)
		}
	}
}

func liveRPC(t *testing.T, path string, sc *scenario.RPC) {
	kcp := sc.U.Transport == "kcp"
	port := freeRPCPort(t, kcp)
	asFlag := strconv.Itoa(int(port)) + "=ulinkrpc"
	p := unturned.Default()
	var err error
	if p.DecodeAs, err = pipeline.DecodeAs([]string{asFlag}); err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(filepath.Base(path), ".toml")
	rp, err := newRPC(unturned.RPCProfile{Key: sc.U.Key, KeyDerivation: sc.U.KeyDerivation}, filepath.Join(rpcFixturesDir, "contracts"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), name+".pcapng")

	opt := capture.DefaultLiveOptions("lo")
	opt.Options = captureOptions(p)
	opt.TCPPorts = pipeline.DecodeAsPorts(p.DecodeAs)
	opt.DatagramPorts = rp.DatagramPorts(p.DecodeAs)
	if kcp {
		// The kernel filter keeps UDP of the game and query ports only
		// (capture/bpf.go), not the KCP datagram ports: read all of lo,
		// as a file is read. Other tests' traffic then comes in too; it
		// is in the --write file alike, and only this port's records are
		// compared.
		opt.BPF = false
	}
	opt.Write = out
	src, err := capture.OpenLive(opt)
	if errors.Is(err, capture.ErrPermission) {
		t.Skipf("no CAP_NET_RAW: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	live := newLiveDecoder(p, 1<<20)
	attachLive(live, out, src)
	fed := make(chan error, 1)
	go func() { fed <- pipeline.FeedRPC(src, live, rp, nil) }()

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port)))
	code, stdout, stderr := runArgs("simulate", "--scenario", path, "--addr", addr, "--full-speed")
	if code != 0 || !strings.Contains(stdout, "all received") {
		t.Fatalf("simulate exit %d: %s%s", code, stdout, stderr)
	}
	// The ring hands a block over at most 100 ms after its first packet.
	time.Sleep(400 * time.Millisecond)
	if err := src.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-fed:
		if err != nil {
			t.Fatalf("feed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("feed did not end after Close")
	}

	drops := src.Stats().KernelDrops

	// The live index hosts the ULinkRPC records in the capture-wide
	// order, as dump's does: its dump --json lines, as dump prints them.
	got := rpcLinesOn(t, string(live.AppendJSONRange(nil, 1, live.Len(), nil)), port)

	args := append([]string{"dump", "--json", "--decode-as", asFlag}, rpcArgs(name)...)
	code, dump, stderr := run(t, nil, append(args, out)...)
	if code != exitOK {
		t.Fatalf("dump --json %s: exit %d: %s", out, code, stderr)
	}
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
	t.Logf("%d records live, in the file and in the fixture capture", len(got))
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
	for _, k := range []string{"n", "frame", "time", "conn", "pair", "latency_ns"} {
		delete(m, k)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
