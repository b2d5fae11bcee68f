package session_test

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// packets reads every packet of a capture file with its capture info.
func packets(t *testing.T, path string) ([][]byte, []gopacket.CaptureInfo, layers.LinkType) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		next func() ([]byte, gopacket.CaptureInfo, error)
		lt   layers.LinkType
	)
	if ng, err := pcapgo.NewNgReader(bytes.NewReader(data), pcapgo.DefaultNgReaderOptions); err == nil {
		next, lt = ng.ReadPacketData, ng.LinkType()
	} else if r, err := pcapgo.NewReader(bytes.NewReader(data)); err == nil {
		next, lt = r.ReadPacketData, r.LinkType()
	} else {
		t.Fatalf("%s: %v", path, err)
	}
	var pkts [][]byte
	var cis []gopacket.CaptureInfo
	for {
		p, ci, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Logf("%s: %v after %d packets", path, err, len(pkts))
			break
		}
		pkts = append(pkts, append([]byte(nil), p...))
		ci.CaptureLength = len(p)
		ci.Length = max(ci.Length, len(p))
		cis = append(cis, ci)
	}
	return pkts, cis, lt
}

// decodeFrom writes packets k… as a classic pcap and decodes it.
func decodeFrom(t *testing.T, pkts [][]byte, cis []gopacket.CaptureInfo, lt layers.LinkType, k int) *session.Index {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	if err := w.WriteFileHeader(262144, lt); err != nil {
		t.Fatal(err)
	}
	for i := k; i < len(pkts); i++ {
		if err := w.WritePacket(cis[i], pkts[i]); err != nil {
			t.Fatal(err)
		}
	}
	p := unturned.Default()
	src, err := capture.NewReader(bytes.NewReader(buf.Bytes()), "cut.pcap", capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ix := session.NewIndex(p)
	_ = pipeline.Feed(src, ix, nil)
	return ix
}

// TestOrderInvariant (outputs.md "Ordering"): every fixture capture cut at
// every packet boundary (the capture starting at packet k) numbers its
// messages densely from 1, and frame and time never decrease as n grows,
// however the framing had to resynchronise.
func TestOrderInvariant(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/captures/*.pcap*")
	more, _ := filepath.Glob("../fixtures/captures/*/*.pcap*")
	paths = append(paths, more...)
	if len(paths) == 0 {
		t.Fatal("no fixture captures")
	}
	for _, path := range paths {
		pkts, cis, lt := packets(t, path)
		for k := range pkts {
			ix := decodeFrom(t, pkts, cis, lt, k)
			prevFrame, prevTime := 0, int64(0)
			for n := 1; n <= ix.Len(); n++ {
				m := ix.Message(n)
				if m == nil || m.N != n {
					t.Fatalf("%s from packet %d: message %d missing or numbered %v", filepath.Base(path), k+1, n, m)
				}
				if m.Frame < prevFrame || m.Time.UnixNano() < prevTime {
					t.Errorf("%s from packet %d: message %d frame %d at %v after frame %d at %v",
						filepath.Base(path), k+1, n, m.Frame, m.Time.UnixNano(), prevFrame, prevTime)
					break
				}
				prevFrame, prevTime = m.Frame, m.Time.UnixNano()
			}
		}
	}
}

// TestOrderMinimalPcap is issue 13's minimal case end to end, as a pcap
// through capture and the pipeline: no SYN, client 11.0.0.1:1024 ↔ server
// 10.0.0.1:27016, consecutive sequence numbers; frame 1 c2s `0f a0 11 22
// 33`, frame 2 s2c `01 02 03`, then 30 pairs (c2s `00 01 04`, s2c `00 01
// 03`). Numbering alternates by frame.
func TestOrderMinimalPcap(t *testing.T) {
	client, server := net.IPv4(11, 0, 0, 1), net.IPv4(10, 0, 0, 1)
	seq := [2]uint32{1000, 5000}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var pkts [][]byte
	var cis []gopacket.CaptureInfo
	add := func(fromServer bool, payload []byte) {
		d, ack := 0, 1
		src, dst, sp, dp := client, server, layers.TCPPort(1024), layers.TCPPort(27016)
		if fromServer {
			d, ack = 1, 0
			src, dst, sp, dp = server, client, dp, sp
		}
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src, DstIP: dst}
		tcp := &layers.TCP{SrcPort: sp, DstPort: dp, Seq: seq[d], Ack: seq[ack], ACK: true, PSH: true, Window: 65535}
		_ = tcp.SetNetworkLayerForChecksum(ip)
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(payload)); err != nil {
			t.Fatal(err)
		}
		seq[d] += uint32(len(payload))
		b := buf.Bytes()
		pkts = append(pkts, b)
		cis = append(cis, gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(len(pkts)) * time.Millisecond), CaptureLength: len(b), Length: len(b)})
	}
	add(false, []byte{0x0f, 0xa0, 0x11, 0x22, 0x33})
	add(true, []byte{0x01, 0x02, 0x03})
	for i := 0; i < 30; i++ {
		add(false, []byte{0x00, 0x01, 0x04})
		add(true, []byte{0x00, 0x01, 0x03})
	}
	ix := decodeFrom(t, pkts, cis, layers.LinkTypeEthernet, 0)
	if ix.Len() != 60 {
		t.Fatalf("Len() = %d; want 60", ix.Len())
	}
	for n := 1; n <= 60; n++ {
		m := ix.Message(n)
		wantDir, wantFrame := "c2s", n+2
		if n%2 == 0 {
			wantDir = "s2c"
		}
		if m.Dir.String() != wantDir || m.Frame != wantFrame {
			t.Fatalf("message %d = %v frame %d; want %s frame %d", n, m.Dir, m.Frame, wantDir, wantFrame)
		}
	}
}
