package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// FuzzShapes drives the agreement check (agree) with structured shapes of
// real network stacks, not byte mutations (issue 24): a message stream cut
// into TCP segments and then split, merged, retransmitted, re-segmented so
// that retransmissions overlap new data, reordered, duplicated, dropped,
// with sequence numbers near 2^32 (the Unturned pings fixture, ULinkRPC
// over TCP and over WebSocket); and ULinkRPC messages cut into KCP
// segments of any size, reordered, duplicated, lost and packed into
// datagrams; and WebSocket written frame by frame (wsShape: fragments,
// masks, control frames between fragments, 16- and 64-bit lengths, frames
// cut across segments). Every path must agree on each shape and report no usmnscope
// bug; a shape that loses nothing must give each direction's messages in
// stream order with the original bytes.
//
// The input is a program: byte 0 picks the base, byte 1 the initial
// sequence number (TCP) or the segment size (KCP), then each 3 bytes an
// operation (kind, a, b), and the last byte a cut point.
func FuzzShapes(f *testing.F) {
	f.Add([]byte{0, 0})
	f.Add([]byte{0, 255, 3, 5, 0})                   // pings, re-segmented at 5, ISN near 2^32
	f.Add([]byte{1, 7, 3, 2, 0, 4, 6, 0, 2, 3, 1})   // ULinkRPC TCP
	f.Add([]byte{2, 9, 0, 4, 128, 4, 2, 0, 7, 6, 9}) // WebSocket
	f.Add([]byte{3, 3, 4, 2, 0, 5, 3, 0, 1, 1, 0})   // KCP, reordered and duplicated
	f.Add([]byte{3, 0, 6, 4, 0, 4, 0, 0})            // KCP, a loss
	f.Add([]byte{4, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})   // WebSocket frames: fragments, pings between them
	f.Add([]byte{4, 1, 0, 0, 0, 200, 7, 9})          // WebSocket frames: a 70,000-byte payload (64-bit length)
	f.Add([]byte{4, 3, 3, 4, 1, 2, 0, 5, 9, 1})      // masks flipped, fragments, TCP shaped too
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 2 || len(prog) > 64 {
			return
		}
		bases := shapeBases(t)
		base := int(prog[0]) % (len(bases) + 2)
		ops := prog[2:]
		cut := 0
		if len(ops)%3 == 1 {
			cut = int(ops[len(ops)-1])
		}
		var data, plain []byte
		lossless := true
		wsMessages := 0 // a WebSocket shape's message count
		if base == len(bases) {
			data, plain, lossless = kcpShape(t, prog[1], ops)
		} else {
			var sh *tcpShape
			var segs []shapeSeg
			ok := true
			if base < len(bases) {
				sh = bases[base]
				segs, ok = shapeTCP(sh.segs, ops)
			} else {
				// WebSocket written frame by frame from ops, its TCP
				// segments then shaped by ops too when prog[1]&2.
				sh, wsMessages = wsShape(prog[1], ops)
				segs = sh.segs
				if prog[1]&2 != 0 {
					segs, ok = shapeTCP(sh.segs, ops)
				}
			}
			lossless = ok
			isn := uint32(prog[1]) << 24
			if prog[1] >= 0xf0 {
				isn = ^uint32(0) - uint32(prog[1]&0x0f)*97 // the streams wrap past 2^32
			}
			data = sh.pcap(t, segs, isn)
			plain = sh.pcap(t, sh.segs, isn)
		}
		dir := t.TempDir()
		np := len(packetEnds(data))
		cuts := agreeCuts(np)
		if np > 1 {
			cuts = append(cuts, 1+cut%(np-1))
		}
		if d := agree(t, dir, data, cuts); d != "" {
			t.Fatalf("shape %x: %s", prog, d)
		}
		if !lossless {
			return
		}
		_, want, _ := run(t, plain, "dump", "--json", "-")
		if n := strings.Count(want, "\n"); wsMessages > 0 && n != wsMessages {
			t.Fatalf("shape %x: the WebSocket frames in order give %d messages; want %d", prog, n, wsMessages)
		}
		_, got, _ := run(t, data, "dump", "--json", "-")
		if d := sameOrder(streamOrder(t, got), streamOrder(t, want)); d != "" {
			t.Fatalf("shape %x loses nothing, yet: %s", prog, d)
		}
	})
}

var (
	basesOnce sync.Once
	bases     []*tcpShape
)

// shapeBases are the TCP captures FuzzShapes shapes: the pings fixture,
// ULinkRPC over TCP and over WebSocket, as their scenarios play them.
func shapeBases(t *testing.T) []*tcpShape {
	basesOnce.Do(func() {
		sc, err := scenario.ReadFile("../../fixtures/scenarios/pings.toml")
		if err != nil {
			t.Fatal(err)
		}
		ps, _, err := sc.Packets()
		if err != nil {
			t.Fatal(err)
		}
		bases = append(bases, takeTCP(t, ps))
		for _, name := range []string{"tcp-json", "websocket-json"} {
			rs, err := scenario.ReadRPCFile("../../fixtures/ulinkrpc/" + name + ".toml")
			if err != nil {
				t.Fatal(err)
			}
			ps, _, err := rs.Packets()
			if err != nil {
				t.Fatal(err)
			}
			bases = append(bases, takeTCP(t, ps))
		}
	})
	if len(bases) != 3 {
		t.Fatal("shape bases not built")
	}
	return bases
}

// shapeTCP applies ops to segs; lossless is false once a segment was
// dropped for good.
func shapeTCP(segs []shapeSeg, ops []byte) (out []shapeSeg, lossless bool) {
	out = append([]shapeSeg(nil), segs...)
	lossless = true
	for i := 0; i+3 <= len(ops) && len(out) > 0; i += 3 {
		kind, a, b := ops[i]%8, int(ops[i+1])%len(out), int(ops[i+2])
		s := out[a]
		switch kind {
		case 0: // split
			if n := s.end - s.off; n >= 2 {
				at := s.off + 1 + b%(n-1)
				out = append(out[:a], append([]shapeSeg{{s.conn, s.dir, s.off, at}, {s.conn, s.dir, at, s.end}}, out[a+1:]...)...)
			}
		case 1: // merge with the next segment of the direction, when it follows on
			for j := a + 1; j < len(out); j++ {
				if out[j].conn == s.conn && out[j].dir == s.dir {
					if out[j].off == s.end {
						out[a].end = out[j].end
						out = append(out[:j], out[j+1:]...)
					}
					break
				}
			}
		case 2: // retransmit later
			at := min(len(out), a+1+b%4)
			out = append(out[:at], append([]shapeSeg{s}, out[at:]...)...)
		case 3: // lost, re-segmented with the next
			if r, ok := resegment(out, a); ok {
				out = r
			}
		case 4: // reorder
			if a+1 < len(out) {
				out[a], out[a+1] = out[a+1], out[a]
			}
		case 5: // duplicate
			out = append(out[:a+1], append([]shapeSeg{s}, out[a+1:]...)...)
		case 6: // dropped
			out = append(out[:a], out[a+1:]...)
			lossless = false
		case 7: // a retransmission reaching back over delivered bytes
			back := b % 16
			out = append(out[:a+1], append([]shapeSeg{{s.conn, s.dir, max(0, s.off-back), s.end}}, out[a+1:]...)...)
		}
	}
	return out, lossless
}

// kcpSeg is one KCP segment of a direction.
type kcpSeg struct {
	server bool
	seg    kcp.Segment
}

// kcpShape builds a KCP capture of a fixed exchange (Requests, a ping, a
// Push and Responses, two of them fragmented) cut into segments of at most
// mssByte-derived bytes and shaped by ops; plain is the same exchange in
// order. lossless is false once a segment was dropped.
func kcpShape(t *testing.T, mssByte byte, ops []byte) (data, plain []byte, lossless bool) {
	mss := 64 + int(mssByte)*5 // 64..1339 bytes a segment
	big := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(i%26)
		}
		return b
	}
	msgs := []struct {
		server bool
		env    []byte
	}{
		{false, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"Account":"ann"}`))},
		{true, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, []byte(`{"Code":0}`), "")},
		{false, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 1)},
		{false, ulinkrpc.EncodeRequest(2, 1, 2, big(3000))},
		{true, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 2)},
		{true, ulinkrpc.EncodePush(1, 3, []byte(`{"Note":"hi"}`))},
		{true, ulinkrpc.EncodeResponse(2, ulinkrpc.StatusOk, big(5000), "")},
		{false, ulinkrpc.EncodeRequest(3, 1, 1, nil)},
		{true, ulinkrpc.EncodeResponse(3, ulinkrpc.StatusOk, nil, "")},
	}
	var sn [2]uint32
	var segs []kcpSeg
	for _, m := range msgs {
		d := 0
		if m.server {
			d = 1
		}
		ss := kcp.SplitMessage(7, sn[d], ulinkrpc.AppendFrame(nil, m.env), mss)
		sn[d] += uint32(len(ss))
		for _, s := range ss {
			segs = append(segs, kcpSeg{m.server, s})
		}
	}
	lossless = true
	// Each datagram carries one segment unless ops pack more.
	type datagram struct {
		server bool
		segs   []kcp.Segment
	}
	dgs := make([]datagram, len(segs))
	for i, s := range segs {
		dgs[i] = datagram{s.server, []kcp.Segment{s.seg}}
	}
	handshake := []kcpDatagram{
		{false, 0, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: 7})},
		{true, 50 * time.Microsecond, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: 7, Ack: true, SessionPort: 20000})},
	}
	write := func(dgs []datagram) []byte {
		all := append([]kcpDatagram(nil), handshake...)
		for i, d := range dgs {
			var b []byte
			for _, s := range d.segs {
				b = kcp.EncodeSegment(b, s)
			}
			all = append(all, kcpDatagram{d.server, time.Duration(100+25*i) * time.Microsecond, b})
		}
		return kcpPcap(t, all)
	}
	plain = write(dgs)
	for i := 0; i+3 <= len(ops) && len(dgs) > 0; i += 3 {
		kind, a, b := ops[i]%6, int(ops[i+1])%len(dgs), int(ops[i+2])
		switch kind {
		case 0: // pack with the next datagram of the direction
			for j := a + 1; j < len(dgs); j++ {
				if dgs[j].server == dgs[a].server {
					dgs[a].segs = append(dgs[a].segs, dgs[j].segs...)
					dgs = append(dgs[:j], dgs[j+1:]...)
					break
				}
			}
		case 1: // retransmit later
			at := min(len(dgs), a+1+b%6)
			dgs = append(dgs[:at], append([]datagram{dgs[a]}, dgs[at:]...)...)
		case 2, 4: // reorder
			if j := a + 1 + b%3; j < len(dgs) {
				dgs[a], dgs[j] = dgs[j], dgs[a]
			}
		case 3: // duplicate
			dgs = append(dgs[:a+1], append([]datagram{dgs[a]}, dgs[a+1:]...)...)
		case 5: // lost
			dgs = append(dgs[:a], dgs[a+1:]...)
			lossless = false
		}
	}
	return write(dgs), plain, lossless
}
