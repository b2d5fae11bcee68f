package scenario

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"net/netip"
	"slices"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// wsAccept is RFC 6455's Sec-WebSocket-Accept for a key.
func wsAccept(key string) string {
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC11B5B"))
	return base64.StdEncoding.EncodeToString(h[:])
}

// kcpPackets writes a KCP connection (ulinkrpc.md 2.3): the UKCP/UACK
// handshake, then each send's stream bytes as one KCP message cut into
// PUSH segments of at most MSS bytes, one segment a datagram, each message
// acknowledged by the peer in one datagram of ACK segments. The
// transport's retransmit and reorder lists name PUSH segments, numbered
// per connection from 1: a retransmitted one is sent twice, a reordered
// one after the next.
func (s *RPC) kcpPackets(c *RPCConn, conn dissect.Conn, l link, start time.Time, sends []rpcSend, out func(Packet)) {
	u := udpFlow{conn: conn, l: l, now: start, out: out}
	capture := len(sends) == 0 || sends[0].capture
	u.capture = capture
	u.send(dissect.C2S, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: c.Conv}))
	u.send(dissect.S2C, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Ack: true, Conv: c.Conv, SessionPort: int32(conn.Server.Port())}))
	var sn [2]uint32
	n := 0
	var held []byte
	last := time.Duration(0)
	for _, sd := range sends {
		u.now = u.now.Add(sd.at - last)
		last = sd.at
		u.capture = sd.capture
		d := sd.dir
		ts := uint32(u.now.Sub(start) / time.Millisecond)
		segs := kcp.SplitMessage(c.Conv, sn[d], sd.data, s.U.MSS)
		var acks []byte
		for _, seg := range segs {
			n++
			seg.Wnd, seg.Ts, seg.Una = 256, ts, sn[1-d]
			dg := kcp.EncodeSegment(nil, seg)
			acks = kcp.EncodeSegment(acks, kcp.Segment{Conv: c.Conv, Cmd: kcp.CmdAck, Wnd: 256, Ts: seg.Ts, Sn: seg.Sn, Una: seg.Sn + 1})
			if slices.Contains(s.Transport.Reorder, n) && held == nil {
				held = dg
				continue
			}
			u.send(d, dg)
			if held != nil {
				u.send(d, held)
				held = nil
			}
			if slices.Contains(s.Transport.Retransmit, n) {
				u.send(d, dg)
			}
		}
		if held != nil {
			u.send(d, held)
			held = nil
		}
		sn[d] += uint32(len(segs))
		u.now = u.now.Add(4 * packetGap)
		u.send(1-d, acks)
	}
}

// udpFlow writes one UDP flow's datagrams with IPv4/IPv6 and UDP headers
// and correct checksums.
type udpFlow struct {
	conn    dissect.Conn
	l       link
	now     time.Time
	ipID    [2]uint16
	capture bool
	buf     []byte
	out     func(Packet)
}

func (u *udpFlow) send(d dissect.Dir, payload []byte) {
	src, dst := u.conn.Client, u.conn.Server
	if d == dissect.S2C {
		src, dst = dst, src
	}
	u.buf = appendUDP(u.buf[:0], u.l, src, dst, d == dissect.C2S, u.ipID[d], payload)
	u.ipID[d]++
	if u.capture {
		u.out(Packet{Time: u.now, Data: u.buf})
	}
	u.now = u.now.Add(packetGap)
}

// appendUDP appends the link header, the IP header and the UDP header of
// one datagram with correct lengths and checksums, then its payload.
func appendUDP(b []byte, l link, src, dst netip.AddrPort, fromClient bool, ipID uint16, payload []byte) []byte {
	v6 := src.Addr().Is6()
	b = l.header(b, v6, fromClient)
	udpLen := 8 + len(payload)
	ip := len(b)
	var sum uint32
	if v6 {
		b = append(b, 0x60, 0, 0, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
		b = append(b, 17, 64)
		a, d := src.Addr().As16(), dst.Addr().As16()
		b = append(append(b, a[:]...), d[:]...)
		sum = sumBytes(0, b[ip+8:ip+40])
	} else {
		b = append(b, 0x45, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(20+udpLen))
		b = binary.BigEndian.AppendUint16(b, ipID)
		b = append(b, 0x40, 0, 64, 17, 0, 0)
		a, d := src.Addr().As4(), dst.Addr().As4()
		b = append(append(b, a[:]...), d[:]...)
		binary.BigEndian.PutUint16(b[ip+10:], fold(sumBytes(0, b[ip:ip+20])))
		sum = sumBytes(0, b[ip+12:ip+20])
	}
	sum += 17 + uint32(udpLen)
	t := len(b)
	b = binary.BigEndian.AppendUint16(b, src.Port())
	b = binary.BigEndian.AppendUint16(b, dst.Port())
	b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
	b = append(b, 0, 0)
	b = append(b, payload...)
	cs := fold(sumBytes(sum, b[t:]))
	if cs == 0 {
		cs = 0xffff // RFC 768: a computed zero is sent as all ones
	}
	binary.BigEndian.PutUint16(b[t+6:], cs)
	return b
}
