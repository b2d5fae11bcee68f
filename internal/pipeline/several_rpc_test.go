package pipeline_test

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/scenario"
)

// rpcTwoEnds is a ULinkRPC load session (scenario.RPCScale over
// transport) captured at both ends as twoEnds is, its UDP flows through a
// NAT: the server's capture sees each KCP conversation on another
// 4-tuple than the client's.
func rpcTwoEnds(t *testing.T, transport string) *twoEnds {
	t.Helper()
	var buf bytes.Buffer
	if _, err := (scenario.RPCScale{Frames: 600, Conns: 2, Seed: 7, Transport: transport}).Generate(&buf, scenario.PCAP); err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var ps []scenario.Packet
	for {
		d, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		ps = append(ps, scenario.Packet{Time: ci.Timestamp, Data: append([]byte(nil), d...)})
	}
	// The client's capture lacks the packet that completed the last
	// server record (a KCP conversation's last datagram is an ACK).
	dir := t.TempDir()
	if d := os.Getenv("TWOENDS_DIR"); d != "" {
		dir = filepath.Join(d, transport)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	whole := filepath.Join(dir, "whole.pcap")
	if err := os.WriteFile(whole, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ixw, _ := decodeAll(t, pipeline.Options{Config: pipeline.Config{RPC: pipeline.NewRPC(rpc.Config{})}, Path: whole})
	lastS2C := 0
	for n := 1; n <= ixw.Len(); n++ {
		if m := ixw.Message(n); m.Dir == dissect.S2C {
			lastS2C = m.Frame
		}
	}
	be := scenario.BothEnds{Offset: -820 * time.Millisecond, DriftPPM: -25, Delay: 2 * time.Millisecond, Jitter: 40 * time.Microsecond,
		LossEvery: 13, Retransmit: 150 * time.Millisecond, DropLastServerSegment: true, Stretch: 2000, Seed: 3,
		NAT: netip.MustParseAddrPort("198.51.100.7:10000"), DropInClient: lastS2C}
	client, server, truth := be.Split(ps, r.LinkType(), 20000)
	orig := make([]scenario.Packet, len(ps))
	for k, p := range ps {
		orig[k] = scenario.Packet{Time: time.Unix(0, truth.Sent[k+1]).UTC(), Data: p.Data}
	}
	te := &twoEnds{client: filepath.Join(dir, "client.pcap"), server: filepath.Join(dir, "server.pcap"), orig: filepath.Join(dir, "orig.pcap"), truth: truth}
	for path, ps := range map[string][]scenario.Packet{te.client: client, te.server: server, te.orig: orig} {
		var b bytes.Buffer
		if err := scenario.WritePackets(&b, scenario.PCAP, "", ps); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return te
}

// TestTwoEndsULinkRPC: a ULinkRPC session captured at both ends, over
// KCP (conversations matched by conv and sn through a NAT), TCP and
// WebSocket (matched by 4-tuple and stream position), is one: each record
// once, the server clock's offset within 100 µs of the truth, each
// record's one-way delay within 100 µs of the truth, the record the
// client's capture lacks missing in it.
func TestTwoEndsULinkRPC(t *testing.T) {
	for _, transport := range []string{"kcp", "tcp", "websocket"} {
		t.Run(transport, func(t *testing.T) {
			te := rpcTwoEnds(t, transport)
			opt := func() *pipeline.RPC { return pipeline.NewRPC(rpc.Config{}) }
			one, _ := decodeAll(t, pipeline.Options{Config: pipeline.Config{RPC: opt()}, Path: te.orig})
			caps := []pipeline.Capture{{Path: te.client, Host: "client", Capture: "client.pcap"}, {Path: te.server, Host: "server", Capture: "server.pcap"}}
			ix, d := decodeAll(t, pipeline.Options{Config: pipeline.Config{RPC: opt()}, Several: caps})
			if got, want := ix.Len(), one.Len(); got != want || want < 500 {
				t.Fatalf("merged records = %d; want %d, each once (the session alone)", got, want)
			}
			if got, want := len(ix.Connections()), len(one.Connections()); got != want {
				t.Errorf("merged connections = %d; want %d", got, want)
			}
			c := d.Source.(*merge.Source).Plan().Clocks[1]
			truth := te.truth.ServerFirst - te.truth.ServerClock(te.truth.ServerFirst)
			if diff := c.OffsetNS - truth; diff > 100_000 || diff < -100_000 || c.ErrorNS < 0 || c.Matched < 100 {
				t.Fatalf("server clock = %+v; want offset_ns %d ± 100 µs from many matched units with a bound", c, truth)
			}
			tl := te.checkSights(t, ix, one, "datagram", 100*time.Millisecond, nil)
			checked, worst, late, missing := tl.checked, tl.worst, tl.late, tl.missing
			t.Logf("%s: offset_ns %d (truth %d), drift %.3f ppm (truth -25), error_ns %d, matched %d; %d one-way delays, worst off by %d ns; %d late; %d missing in the client capture",
				transport, c.OffsetNS, truth, c.DriftPPM, c.ErrorNS, c.Matched, checked, worst, late, missing)
			if missing == 0 || checked < 450 || late == 0 {
				t.Errorf("checked %d one-way delays (%d late: a retransmission), %d lost records; want ≥ 450 (≥ 1) and ≥ 1", checked, late, missing)
			}
		})
	}
}
