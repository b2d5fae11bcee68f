package main

import (
	"bytes"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/scenario"
)

// Shapes of real TCP stacks the generator does not write (issue 24): a
// capture's TCP connections are taken apart into their two byte streams
// and the data segments that carried them, and written again cut another
// way: split, merged, retransmitted, re-segmented so that a retransmission
// carries new bytes too and the next segment overlaps it, reordered,
// duplicated, dropped, with sequence numbers near 2^32.

// shapeConn is one TCP connection of a capture taken apart.
type shapeConn struct {
	client, server netip.AddrPort
	stream         [2][]byte // by direction: 0 client to server, 1 server to client
}

// shapeSeg is one data segment: bytes [off, end) of a direction's stream.
type shapeSeg struct {
	conn     int
	dir      int
	off, end int
}

// tcpShape is a capture's TCP connections and data segments in capture
// order.
type tcpShape struct {
	conns []shapeConn
	segs  []shapeSeg
	start time.Time
}

// takeTCP takes the Ethernet TCP packets ps apart (a scenario's). A
// connection is known by its SYN or, without one, by its first packet,
// whose sender is taken for the client; each direction's stream starts at
// its first data byte (or SYN) and grows in sequence order.
func takeTCP(t testing.TB, ps []scenario.Packet) *tcpShape {
	t.Helper()
	sh := &tcpShape{}
	type end struct{ a, b netip.AddrPort }
	ids := map[end]int{}
	var base [][2]uint32
	var have [][2]bool
	for _, p := range ps {
		if sh.start.IsZero() {
			sh.start = p.Time
		}
		pkt := gopacket.NewPacket(p.Data, layers.LayerTypeEthernet, gopacket.NoCopy)
		tl, _ := pkt.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if tl == nil || pkt.NetworkLayer() == nil {
			continue
		}
		src, _ := netip.AddrFromSlice(pkt.NetworkLayer().NetworkFlow().Src().Raw())
		dst, _ := netip.AddrFromSlice(pkt.NetworkLayer().NetworkFlow().Dst().Raw())
		a, b := netip.AddrPortFrom(src.Unmap(), uint16(tl.SrcPort)), netip.AddrPortFrom(dst.Unmap(), uint16(tl.DstPort))
		dir := 0
		ci, ok := ids[end{a, b}]
		if !ok {
			if ci, ok = ids[end{b, a}]; ok {
				dir = 1
			}
		}
		if !ok {
			ci = len(sh.conns)
			ids[end{a, b}] = ci
			sh.conns = append(sh.conns, shapeConn{client: a, server: b})
			base = append(base, [2]uint32{})
			have = append(have, [2]bool{})
		}
		if tl.SYN {
			base[ci][dir], have[ci][dir] = tl.Seq+1, true
			continue
		}
		if len(tl.Payload) == 0 {
			continue
		}
		if !have[ci][dir] {
			base[ci][dir], have[ci][dir] = tl.Seq, true
		}
		off := int(tl.Seq - base[ci][dir])
		s := &sh.conns[ci].stream[dir]
		if off > len(*s) || off+len(tl.Payload) <= len(*s) {
			continue // a gap or a retransmission in the source: keep the first run
		}
		*s = append(*s, tl.Payload[len(*s)-off:]...)
		sh.segs = append(sh.segs, shapeSeg{conn: ci, dir: dir, off: off, end: off + len(tl.Payload)})
	}
	return sh
}

var (
	shapeMacC = net.HardwareAddr{2, 0, 0, 0, 0, 2}
	shapeMacS = net.HardwareAddr{2, 0, 0, 0, 0, 1}
)

// pcap writes segs of sh as a classic pcap with nanosecond times, 10 µs
// apart: each connection opens with SYN, SYN/ACK and ACK just before its
// first segment and closes with a FIN each way after the last segment.
// isn is each connection's initial sequence number (the server's is isn
// + 0x40000000): near 2^32 the streams wrap.
func (sh *tcpShape) pcap(t testing.TB, segs []shapeSeg, isn uint32) []byte {
	t.Helper()
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	now := sh.start
	write := func(ci, dir int, seq, ack uint32, flags string, payload []byte) {
		c := sh.conns[ci]
		src, dst := c.client, c.server
		if dir == 1 {
			src, dst = dst, src
		}
		tcp := &layers.TCP{SrcPort: layers.TCPPort(src.Port()), DstPort: layers.TCPPort(dst.Port()), Seq: seq, Ack: ack, Window: 65535}
		for _, f := range flags {
			switch f {
			case 'S':
				tcp.SYN = true
			case 'A':
				tcp.ACK = true
			case 'F':
				tcp.FIN = true
			case 'P':
				tcp.PSH = true
			}
		}
		var ip gopacket.SerializableLayer
		et := layers.EthernetTypeIPv4
		if src.Addr().Is4() {
			ip4 := &layers.IPv4{Version: 4, TTL: 64, Flags: layers.IPv4DontFragment, Protocol: layers.IPProtocolTCP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
			tcp.SetNetworkLayerForChecksum(ip4)
			ip = ip4
		} else {
			ip6 := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
			tcp.SetNetworkLayerForChecksum(ip6)
			ip, et = ip6, layers.EthernetTypeIPv6
		}
		mac := [2]net.HardwareAddr{shapeMacC, shapeMacS}
		eth := &layers.Ethernet{SrcMAC: mac[dir], DstMAC: mac[1-dir], EthernetType: et}
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(payload)); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: now, CaptureLength: len(data), Length: len(data)}, data); err != nil {
			t.Fatal(err)
		}
		now = now.Add(10 * time.Microsecond)
	}
	seqs := func(ci int) [2]uint32 {
		i := isn + uint32(ci)*0x1000
		return [2]uint32{i, i + 0x40000000}
	}
	opened := make([]bool, len(sh.conns))
	last := make([]int, len(sh.conns))
	for k, s := range segs {
		last[s.conn] = k
	}
	for k, s := range segs {
		is := seqs(s.conn)
		if !opened[s.conn] {
			opened[s.conn] = true
			write(s.conn, 0, is[0], 0, "S", nil)
			write(s.conn, 1, is[1], is[0]+1, "SA", nil)
			write(s.conn, 0, is[0]+1, is[1]+1, "A", nil)
		}
		c := sh.conns[s.conn]
		write(s.conn, s.dir, is[s.dir]+1+uint32(s.off), is[1-s.dir]+1, "PA", c.stream[s.dir][s.off:s.end])
		if last[s.conn] == k {
			n := [2]uint32{uint32(len(c.stream[0])), uint32(len(c.stream[1]))}
			write(s.conn, 0, is[0]+1+n[0], is[1]+1+n[1], "FA", nil)
			write(s.conn, 1, is[1]+1+n[1], is[0]+2+n[0], "FA", nil)
			write(s.conn, 0, is[0]+2+n[0], is[1]+2+n[1], "A", nil)
		}
	}
	return b.Bytes()
}

// resegment is segs with the Linux shape after a loss (issue 24 point 1):
// segment k is lost, its retransmission carries its bytes and the first
// half of the next segment of its direction, and that next segment then
// arrives whole, overlapping bytes already delivered. ok is false when k
// has no next segment in its direction.
func resegment(segs []shapeSeg, k int) (out []shapeSeg, ok bool) {
	s := segs[k]
	j := k + 1
	for j < len(segs) && (segs[j].conn != s.conn || segs[j].dir != s.dir) {
		j++
	}
	if j == len(segs) || segs[j].off != s.end || segs[j].end-segs[j].off < 2 {
		return nil, false
	}
	next := segs[j]
	retrans := shapeSeg{conn: s.conn, dir: s.dir, off: s.off, end: next.off + (next.end-next.off)/2}
	out = append(out, segs[:k]...)
	out = append(out, segs[k+1:j]...)
	out = append(out, retrans, next)
	out = append(out, segs[j+1:]...)
	return out, true
}
