package pipeline_test

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestFeedRPCKCPAnyPort: KCP is found by its opening UKCP on any UDP port
// (ulinkrpc.md 1), the KCP fixtures with no ULinkRPC port configured
// giving the same records; without capture's probe nothing is found.
func TestFeedRPCKCPAnyPort(t *testing.T) {
	for _, name := range []string{"kcp-json", "kcp-memorypack", "kcp-otherport"} {
		_, rp := feedRPC(t, name, unturned.Default(), []uint16{1})
		want, _ := os.ReadFile(filepath.Join(rpcFixtures, "golden", name+".dump.ndjson"))
		if got := ndjson(rp.Records()); len(rp.Sessions()) != 1 || rp.Sessions()[0].Transport() != rpc.KCP || !bytes.Equal(got, want) {
			t.Errorf("%s by its handshake: %d sessions, records equal to the golden: %v", name, len(rp.Sessions()), bytes.Equal(got, want))
		}
		rp = pipeline.NewRPC(rpc.Config{})
		rp.Ports = []uint16{1}
		src, err := capture.Open(filepath.Join(rpcFixtures, name+".pcapng"), capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := pipeline.FeedRPC(src, session.NewIndex(unturned.Default()), rp, nil); err != nil {
			t.Fatal(err)
		}
		src.Close()
		if len(rp.Sessions()) != 0 {
			t.Errorf("%s without the probe: %d sessions; want none", name, len(rp.Sessions()))
		}
	}
}

// TestKCPSessionBound: UDP flows opening with a UKCP on any port each get
// a KCP session up to 1024 (SECURITY.md "Bounds", ULinkRPC); the
// datagrams of later ones are counted in one capture note. Flows that do
// not open with a UKCP get no session.
func TestKCPSessionBound(t *testing.T) {
	server := netip.MustParseAddrPort("10.0.0.1:31000")
	var pkts []capture.Packet
	t0 := time.Date(2026, 4, 30, 12, 0, 0, 0, time.UTC)
	for i := range 1030 {
		client := netip.AddrPortFrom(netip.MustParseAddr("10.0.0.2"), uint16(40000+i))
		hello := ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: uint32(i + 1)})
		pkts = append(pkts, capture.Packet{Data: udp(t, client, server, hello), Link: layers.LinkTypeRaw, Time: t0})
		pkts = append(pkts, capture.Packet{Data: udp(t, server, client, []byte("not kcp")), Link: layers.LinkTypeRaw, Time: t0})
	}
	other := netip.MustParseAddrPort("10.0.0.3:53")
	pkts = append(pkts, capture.Packet{Data: udp(t, netip.MustParseAddrPort("10.0.0.2:39999"), other, []byte("UKCX1234")), Link: layers.LinkTypeRaw, Time: t0})
	src := capture.NewPackets(pkts, capture.Options{ProbeDatagrams: pipeline.KCPProbeDatagrams})
	ix := session.NewIndex(unturned.Default())
	rp := pipeline.NewRPC(rpc.Config{})
	if err := pipeline.FeedRPC(src, ix, rp, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(rp.Sessions()); n != 1024 {
		t.Errorf("%d KCP sessions; want 1024", n)
	}
	var notes []string
	for _, f := range ix.Findings() {
		notes = append(notes, f.Text)
	}
	if want := "ULinkRPC KCP: UDP flows past 1024: 12 datagrams not decoded"; !strings.Contains(strings.Join(notes, "\n"), want) {
		t.Errorf("capture notes %q; want %q", notes, want)
	}
}

// udp serialises a raw IPv4 UDP datagram.
func udp(t *testing.T, src, dst netip.AddrPort, payload []byte) []byte {
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
	u := &layers.UDP{SrcPort: layers.UDPPort(src.Port()), DstPort: layers.UDPPort(dst.Port())}
	u.SetNetworkLayerForChecksum(ip)
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, u, gopacket.Payload(payload)); err != nil {
		t.Fatal(fmt.Errorf("udp: %w", err))
	}
	return buf.Bytes()
}

// TestKCPSessionPort: a UACK naming another session port moves the
// session to the flow between the client and that port (ulinkrpc.md 2.3):
// both flows are one connection, its records paired across them.
func TestKCPSessionPort(t *testing.T) {
	client := netip.MustParseAddrPort("10.0.0.2:40000")
	hello, moved := netip.MustParseAddrPort("10.0.0.1:31000"), netip.MustParseAddrPort("10.0.0.1:31001")
	const conv = 7
	t0 := time.Date(2026, 4, 30, 12, 0, 0, 0, time.UTC)
	var pkts []capture.Packet
	add := func(src, dst netip.AddrPort, b []byte) {
		pkts = append(pkts, capture.Packet{Data: udp(t, src, dst, b), Link: layers.LinkTypeRaw, Time: t0.Add(time.Duration(len(pkts)) * time.Millisecond)})
	}
	add(client, hello, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: conv}))
	add(hello, client, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Ack: true, Conv: conv, SessionPort: int32(moved.Port())}))
	for _, s := range kcp.SplitMessage(conv, 0, ulinkrpc.AppendFrame(nil, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{}`))), 0) {
		add(client, moved, kcp.EncodeSegment(nil, s))
	}
	for _, s := range kcp.SplitMessage(conv, 0, ulinkrpc.AppendFrame(nil, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, nil, "")), 0) {
		add(moved, client, kcp.EncodeSegment(nil, s))
	}
	src := capture.NewPackets(pkts, capture.Options{ProbeDatagrams: pipeline.KCPProbeDatagrams})
	rp := pipeline.NewRPC(rpc.Config{})
	if err := pipeline.FeedRPC(src, session.NewIndex(unturned.Default()), rp, nil); err != nil {
		t.Fatal(err)
	}
	rs := rp.Records()
	if len(rp.Sessions()) != 1 || len(rs) != 2 || rs[1].Pair != rs[0].N {
		t.Fatalf("%d sessions, %d records; want 1 session whose Request and Response pair", len(rp.Sessions()), len(rs))
	}
	if got := rp.Sessions()[0].Conn().Server; got != hello {
		t.Errorf("the session's server is %s; want the handshake's %s", got, hello)
	}
}
