package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// kcpDatagram is one UDP datagram of a test KCP capture, from the client
// or the server, at a time from the capture's start.
type kcpDatagram struct {
	server bool
	at     time.Duration
	data   []byte
}

// kcpPcap writes datagrams between 10.0.0.2:50000 and the ULinkRPC port
// 10.0.0.1:20000 as a classic pcap (Ethernet, nanoseconds).
func kcpPcap(t testing.TB, dgs []kcpDatagram) []byte {
	t.Helper()
	cli, srv := netip.MustParseAddrPort("10.0.0.2:50000"), netip.MustParseAddrPort("10.0.0.1:20000")
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, d := range dgs {
		src, dst, mac := cli, srv, [2][]byte{shapeMacC, shapeMacS}
		if d.server {
			src, dst, mac = srv, cli, [2][]byte{shapeMacS, shapeMacC}
		}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
		u := &layers.UDP{SrcPort: layers.UDPPort(src.Port()), DstPort: layers.UDPPort(dst.Port())}
		u.SetNetworkLayerForChecksum(ip)
		eth := &layers.Ethernet{SrcMAC: mac[0], DstMAC: mac[1], EthernetType: layers.EthernetTypeIPv4}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, u, gopacket.Payload(d.data)); err != nil {
			t.Fatal(err)
		}
		ci := gopacket.CaptureInfo{Timestamp: start.Add(d.at), CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}
		if err := w.WritePacket(ci, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// kcpPush is one datagram of conv 7's PUSH segments carrying envelope env
// from sn on.
func kcpPush(sn uint32, env []byte) []byte {
	var dg []byte
	for _, s := range kcp.SplitMessage(7, sn, ulinkrpc.AppendFrame(nil, env), 0) {
		dg = kcp.EncodeSegment(dg, s)
	}
	return dg
}

// kcpCmd is a datagram of one segment of cmd (ACK, WASK, WINS).
func kcpCmd(cmd kcp.Cmd, sn uint32) []byte {
	return kcp.EncodeSegment(nil, kcp.Segment{Conv: 7, Cmd: cmd, Sn: sn})
}

// TestKCPOutOfSnOrder is issue 24 point 2 (ulinkrpc.md 2.3, outputs.md
// "Ordering"): after an idle pause (WASK/WINS), the client's KeepAlivePing
// goes in sn 1 and its next Request in sn 2, and the datagram with sn 2 is
// captured 25 µs before the one with sn 1. A KCP receiver delivers
// nothing past a missing sn, so both arrive with the second datagram, the
// ping first: dump numbers the ping before the Request, both at frame 6,
// and pairs each with its answer. The old code numbered the Request first,
// at frame 5.
func TestKCPOutOfSnOrder(t *testing.T) {
	dgs := []kcpDatagram{
		{false, 0, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: 7})},
		{true, 100 * time.Microsecond, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: 7, Ack: true, SessionPort: 20000})},
		{false, time.Millisecond, kcpPush(0, ulinkrpc.EncodeRequest(1, 1, 1, nil))},
		{true, 2 * time.Millisecond, kcpPush(0, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, nil, ""))},
		{false, 5 * time.Second, kcpPush(2, ulinkrpc.EncodeRequest(2, 1, 1, nil))},
		{false, 5*time.Second + 25*time.Microsecond, kcpPush(1, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 1))},
		{true, 5*time.Second + time.Millisecond, kcpPush(1, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 2))},
		{true, 5*time.Second + 2*time.Millisecond, kcpPush(2, ulinkrpc.EncodeResponse(2, ulinkrpc.StatusOk, nil, ""))},
		{false, 5*time.Second + 3*time.Millisecond, kcpCmd(kcp.CmdWask, 3)},
		{true, 5*time.Second + 4*time.Millisecond, kcpCmd(kcp.CmdWins, 3)},
	}
	data := kcpPcap(t, dgs)
	path := filepath.Join(t.TempDir(), "kcp-order.pcap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"1 3 c2s Request 2", "2 4 s2c Response 1", "3 6 c2s KeepAlivePing 5", "4 6 c2s Request 6", "5 7 s2c KeepAlivePong 3", "6 8 s2c Response 4"}
	for _, capture := range []string{path, "-"} {
		code, out, errOut := run(t, data, "dump", "--json", capture)
		if code != exitOK || errOut != "" {
			t.Fatalf("dump --json %s: exit %d, stderr %q", capture, code, errOut)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct {
				N, Frame, Pair int
				Dir, Msg       string
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			got = append(got, fmt.Sprintf("%d %d %s %s %d", r.N, r.Frame, r.Dir, r.Msg, r.Pair))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("dump --json %s: n frame dir msg pair =\n%s\nwant\n%s", capture, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
