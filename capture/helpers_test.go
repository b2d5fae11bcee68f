package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// seg is one TCP segment of a test flow.
type seg struct {
	fromServer bool
	seq        uint32
	flags      string // any of S A F R P
	payload    string
}

// conv describes a test flow's two ends.
type conv struct {
	client, server netip.AddrPort
}

var (
	t0    = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cli4  = netip.MustParseAddrPort("10.0.0.2:50000")
	srv4  = netip.MustParseAddrPort("10.0.0.1:27016")
	cli6  = netip.MustParseAddrPort("[2001:db8::2]:50001")
	srv6  = netip.MustParseAddrPort("[2001:db8::1]:27016")
	macC  = net.HardwareAddr{2, 0, 0, 0, 0, 2}
	macS  = net.HardwareAddr{2, 0, 0, 0, 0, 1}
	plain = conv{cli4, srv4}
)

// frameOpts says how a segment is framed.
type frameOpts struct {
	link layers.LinkType
	vlan uint16 // Ethernet only: add an 802.1Q tag when non-zero
}

// ipLayers returns the network and TCP layers of a segment.
func ipLayers(c conv, s seg) (gopacket.SerializableLayer, *layers.TCP, layers.EthernetType, layers.ProtocolFamily) {
	src, dst := c.client, c.server
	if s.fromServer {
		src, dst = dst, src
	}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(src.Port()), DstPort: layers.TCPPort(dst.Port()), Seq: s.seq, Window: 65535}
	for _, f := range s.flags {
		switch f {
		case 'S':
			tcp.SYN = true
		case 'A':
			tcp.ACK = true
		case 'F':
			tcp.FIN = true
		case 'R':
			tcp.RST = true
		case 'P':
			tcp.PSH = true
		}
	}
	if src.Addr().Is4() {
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
		tcp.SetNetworkLayerForChecksum(ip)
		return ip, tcp, layers.EthernetTypeIPv4, layers.ProtocolFamilyIPv4
	}
	ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
	tcp.SetNetworkLayerForChecksum(ip)
	return ip, tcp, layers.EthernetTypeIPv6, layers.ProtocolFamilyIPv6BSD
}

// frame serialises a segment for the link type in o.
func frame(t testing.TB, o frameOpts, c conv, s seg) []byte {
	ip, tcp, et, fam := ipLayers(c, s)
	return serialize(t, o, et, fam, ip, tcp, gopacket.Payload(s.payload))
}

func serialize(t testing.TB, o frameOpts, et layers.EthernetType, fam layers.ProtocolFamily, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		t.Fatalf("serialize: %v", err)
	}
	inner := append([]byte(nil), buf.Bytes()...)
	var head []byte
	switch o.link {
	case layers.LinkTypeEthernet:
		eb := gopacket.NewSerializeBuffer()
		var hl []gopacket.SerializableLayer
		if o.vlan != 0 {
			hl = []gopacket.SerializableLayer{
				&layers.Ethernet{SrcMAC: macC, DstMAC: macS, EthernetType: layers.EthernetTypeDot1Q},
				&layers.Dot1Q{VLANIdentifier: o.vlan, Type: et},
			}
		} else {
			hl = []gopacket.SerializableLayer{&layers.Ethernet{SrcMAC: macC, DstMAC: macS, EthernetType: et}}
		}
		if err := gopacket.SerializeLayers(eb, gopacket.SerializeOptions{}, append(hl, gopacket.Payload(inner))...); err != nil {
			t.Fatalf("serialize ethernet: %v", err)
		}
		return append([]byte(nil), eb.Bytes()...)
	case layers.LinkTypeLinuxSLL:
		// packet type, ARPHRD_ETHER, address length 6, address (8), protocol
		head = make([]byte, 16)
		binary.BigEndian.PutUint16(head[2:], 1)
		binary.BigEndian.PutUint16(head[4:], 6)
		copy(head[6:], macC)
		binary.BigEndian.PutUint16(head[14:], uint16(et))
	case layers.LinkTypeLinuxSLL2:
		// protocol, reserved, ifindex, ARPHRD_ETHER, packet type, address length, address (8)
		head = make([]byte, 20)
		binary.BigEndian.PutUint16(head[0:], uint16(et))
		binary.BigEndian.PutUint32(head[4:], 2)
		binary.BigEndian.PutUint16(head[8:], 1)
		head[11] = 6
		copy(head[12:], macC)
	case layers.LinkTypeNull:
		head = binary.LittleEndian.AppendUint32(nil, uint32(fam))
	case layers.LinkTypeLoop:
		head = binary.BigEndian.AppendUint32(nil, uint32(fam))
	case layers.LinkTypeRaw, layers.LinkTypeIPv4, layers.LinkTypeIPv6:
	default:
		t.Fatalf("frame: link type %v not supported by the test helper", o.link)
	}
	return append(head, inner...)
}

// udpFrame serialises a UDP datagram over Ethernet.
func udpFrame(t testing.TB, src, dst netip.AddrPort, payload []byte) []byte {
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
	udp := &layers.UDP{SrcPort: layers.UDPPort(src.Port()), DstPort: layers.UDPPort(dst.Port())}
	udp.SetNetworkLayerForChecksum(ip)
	return serialize(t, frameOpts{link: layers.LinkTypeEthernet}, layers.EthernetTypeIPv4, layers.ProtocolFamilyIPv4, ip, udp, gopacket.Payload(payload))
}

// rec is a frame ready for a capture file.
type rec struct {
	data  []byte
	link  layers.LinkType
	iface int
	ts    time.Time
}

func recs(t testing.TB, o frameOpts, c conv, segs ...seg) []rec {
	var out []rec
	for i, s := range segs {
		out = append(out, rec{data: frame(t, o, c, s), link: o.link, ts: t0.Add(time.Duration(i) * time.Millisecond)})
	}
	return out
}

// writePcap writes a classic pcap (little-endian) of one link type.
func writePcap(t testing.TB, nanos bool, link layers.LinkType, rs []rec) []byte {
	t.Helper()
	var b bytes.Buffer
	w := pcapgo.NewWriter(&b)
	if nanos {
		w = pcapgo.NewWriterNanos(&b)
	}
	if err := w.WriteFileHeader(65535, link); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		ci := gopacket.CaptureInfo{Timestamp: r.ts, CaptureLength: len(r.data), Length: len(r.data)}
		if err := w.WritePacket(ci, r.data); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// swapPcap turns a little-endian pcap into its big-endian twin: the file
// header's fields and each record header's four u32 are byte-swapped.
func swapPcap(le []byte) []byte {
	b := append([]byte(nil), le...)
	sw32 := func(p []byte) { binary.BigEndian.PutUint32(p, binary.LittleEndian.Uint32(p)) }
	sw16 := func(p []byte) { binary.BigEndian.PutUint16(p, binary.LittleEndian.Uint16(p)) }
	sw32(b[0:])
	sw16(b[4:])
	sw16(b[6:])
	for _, o := range []int{8, 12, 16, 20} {
		sw32(b[o:])
	}
	for off := 24; off+16 <= len(b); {
		n := int(binary.LittleEndian.Uint32(b[off+8:]))
		for i := 0; i < 4; i++ {
			sw32(b[off+4*i:])
		}
		off += 16 + n
	}
	return b
}

// writePcapng writes a pcapng with one interface per distinct link type of
// rs, in order of first use.
func writePcapng(t testing.TB, rs []rec) []byte {
	t.Helper()
	var b bytes.Buffer
	var w *pcapgo.NgWriter
	ids := map[layers.LinkType]int{}
	for _, r := range rs {
		if w == nil {
			var err error
			w, err = pcapgo.NewNgWriterInterface(&b, pcapgo.NgInterface{Name: "if0", LinkType: r.link, SnapLength: 65535}, pcapgo.DefaultNgWriterOptions)
			if err != nil {
				t.Fatal(err)
			}
			ids[r.link] = 0
		}
		id, ok := ids[r.link]
		if !ok {
			var err error
			id, err = w.AddInterface(pcapgo.NgInterface{Name: fmt.Sprintf("if%d", len(ids)), LinkType: r.link, SnapLength: 65535})
			if err != nil {
				t.Fatal(err)
			}
			ids[r.link] = id
		}
		ci := gopacket.CaptureInfo{Timestamp: r.ts, CaptureLength: len(r.data), Length: len(r.data), InterfaceIndex: id}
		if err := w.WritePacket(ci, r.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// result is what a Source yielded, flattened for comparison.
type result struct {
	opens   []Event
	closes  []Event
	notes   []string
	streams map[Flow]*[2]strings.Builder // [0] client → server
	log     []string                     // "open", "c:data", "s:gap 3", "close" per flow in order
}

func (r *result) stream(f Flow, fromServer bool) string {
	s := r.streams[f]
	if s == nil {
		return ""
	}
	return s[dirIndex(fromServer)].String()
}

// drain reads a Source to io.EOF (with a bound on events so a bug cannot
// hang the test).
func drain(t testing.TB, src Source) *result {
	t.Helper()
	r := &result{streams: map[Flow]*[2]strings.Builder{}}
	for i := 0; ; i++ {
		if i > 10_000_000 {
			t.Fatal("drain: no io.EOF after 10M events")
		}
		ev, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		dir := "c"
		if ev.FromServer {
			dir = "s"
		}
		switch ev.Kind {
		case EventOpen:
			r.opens = append(r.opens, *ev)
			r.streams[ev.Flow] = &[2]strings.Builder{}
			r.log = append(r.log, "open "+ev.Rule.String())
		case EventData:
			s := r.streams[ev.Flow]
			if s == nil {
				t.Fatalf("data on unopened flow %v", ev.Flow)
			}
			s[dirIndex(ev.FromServer)].Write(ev.Data)
			r.log = append(r.log, dir+":"+string(ev.Data))
		case EventGap:
			s := r.streams[ev.Flow]
			s[dirIndex(ev.FromServer)].WriteString(fmt.Sprintf("<gap %d>", ev.Lost))
			r.log = append(r.log, fmt.Sprintf("%s:gap %d", dir, ev.Lost))
		case EventClose:
			r.closes = append(r.closes, *ev)
			r.log = append(r.log, "close")
		case EventNote:
			r.notes = append(r.notes, ev.Level.String()+": "+ev.Text)
		}
		if ev.Frame < 1 && ev.Kind != EventNote {
			t.Errorf("event %v has frame %d; want ≥ 1", ev.Kind, ev.Frame)
		}
	}
	return r
}

func mustAP(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

// framed is a SystemSockets message: 2-byte big-endian length, then bytes
// (wire.md §2).
func framed(msgs ...string) []byte {
	var b []byte
	for _, m := range msgs {
		b = binary.BigEndian.AppendUint16(b, uint16(len(m)))
		b = append(b, m...)
	}
	return b
}
