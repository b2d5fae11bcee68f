package main

import (
	"net/netip"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// WebSocket shapes at the frame level (issue 24): FuzzShapes's TCP shapes
// cut a WebSocket stream its scenario wrote, whose frames are whole
// messages. wsShape writes the stream itself, frame by frame, from a
// program: each ULinkRPC message fragmented into continuation frames,
// masked or not, with pings and pongs between its fragments, payloads
// long enough for the 16- and 64-bit length forms (126, 127), a close at
// the end; then the two streams are cut into TCP segments of any size, so
// that frame headers and payloads are cut across segments.

// wsParams hands out the program's bytes one at a time, cycling (zero
// when it is empty).
type wsParams struct {
	b []byte
	i int
}

func (p *wsParams) next() int {
	if len(p.b) == 0 {
		return 0
	}
	v := p.b[p.i%len(p.b)]
	p.i++
	return int(v)
}

// wsShape returns a WebSocket conversation written from params: the
// upgrade, then the exchange's messages (the 64-bit length form when
// sizes&1), each a ULinkRPC frame in one binary WebSocket message cut into
// frames, and the streams cut into TCP segments in exchange order;
// messages is how many ULinkRPC messages it carries.
func wsShape(sizes byte, params []byte) (sh *tcpShape, messages int) {
	p := &wsParams{b: params}
	big := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'A' + byte(i%26)
		}
		return b
	}
	msgs := []struct {
		server bool
		env    []byte
	}{
		{false, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"Account":"ann"}`))},
		{true, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, []byte(`{"Code":0}`), "")},
		{false, ulinkrpc.EncodeRequest(2, 1, 2, big(300))},
		{true, ulinkrpc.EncodePush(1, 3, []byte(`{"Note":"hi"}`))},
		{true, ulinkrpc.EncodeResponse(2, ulinkrpc.StatusOk, big(700), "")},
		{false, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 1)},
		{true, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 1)},
		{false, ulinkrpc.EncodeRequest(3, 1, 1, nil)},
		{true, ulinkrpc.EncodeResponse(3, ulinkrpc.StatusOk, nil, "")},
	}
	if sizes&1 != 0 {
		// A payload past 65,535 bytes: the 64-bit length form.
		msgs = append(msgs[:4], append([]struct {
			server bool
			env    []byte
		}{{false, ulinkrpc.EncodeRequest(4, 1, 2, big(70000))}, {true, ulinkrpc.EncodeResponse(4, ulinkrpc.StatusOk, nil, "")}}, msgs[4:]...)...)
	}
	sh = &tcpShape{
		conns: []shapeConn{{client: netip.MustParseAddrPort("10.0.0.2:50416"), server: netip.MustParseAddrPort("10.0.0.1:20000")}},
		start: time.Date(2026, 4, 30, 12, 0, 0, 0, time.UTC),
	}
	st := &sh.conns[0].stream
	st[0] = websocket.EncodeUpgradeRequest("10.0.0.1:20000", "/ws", "dGhlIHNhbXBsZSBub25jZQ==")
	st[1] = websocket.EncodeUpgradeResponse("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
	flip := p.next() // bit 0: server frames masked; bit 1: client frames unmasked
	key := func(server bool, i int) *[4]byte {
		masked := !server
		if server && flip&1 != 0 || !server && flip&2 != 0 {
			masked = !masked
		}
		if !masked {
			return nil
		}
		return &[4]byte{byte(i), 0x5a, byte(i * 7), 0xc3}
	}
	// The cut points: the streams' ends after each message, so that a
	// direction's segments follow the exchange.
	var marks [2][]int
	mark := func(d int) { marks[d] = append(marks[d], len(st[d])) }
	mark(0)
	mark(1)
	for i, m := range msgs {
		d := 0
		if m.server {
			d = 1
		}
		body := ulinkrpc.AppendFrame(nil, m.env)
		frags := 1 + p.next()%4
		rest := body
		for k := range frags {
			n := len(rest)
			if k < frags-1 && n > 1 {
				n = 1 + p.next()*131%(n-1)
			}
			op := websocket.OpContinuation
			if k == 0 {
				op = websocket.OpBinary
			}
			fin := k == frags-1 || n == len(rest)
			st[d] = websocket.EncodeFrame(st[d], op, fin, key(m.server, i+k), rest[:n])
			rest = rest[n:]
			if fin {
				break
			}
			// A control frame between fragments.
			switch c := p.next() % 5; c {
			case 1:
				st[d] = websocket.EncodeFrame(st[d], websocket.OpPing, true, key(m.server, k), []byte("p"))
			case 2:
				st[d] = websocket.EncodeFrame(st[d], websocket.OpPong, true, key(m.server, k), big(p.next()%126))
			}
		}
		mark(d)
	}
	for d := range 2 {
		st[d] = websocket.EncodeFrame(st[d], websocket.OpClose, true, key(d == 1, 9), []byte{0x03, 0xe8, 'b', 'y', 'e'})
		mark(d)
	}
	// Segments: each message's bytes (the upgrade first) cut at sizes
	// from the program, 1 to 1,460 bytes; the directions follow the
	// exchange's order.
	seg := func(d, from, to int) {
		least := max(1, (to-from)/48) // a message in at most about 48 segments
		for from < to {
			n := min(to-from, max(least, 1+(p.next()*p.next()+p.next())%1460))
			sh.segs = append(sh.segs, shapeSeg{conn: 0, dir: d, off: from, end: from + n})
			from += n
		}
	}
	var at [2]int // marks used per direction
	next := func(d int) {
		seg(d, marks[d][at[d]-1], marks[d][at[d]])
		at[d]++
	}
	at = [2]int{1, 1}
	seg(0, 0, marks[0][0])
	seg(1, 0, marks[1][0])
	for _, m := range msgs {
		if m.server {
			next(1)
		} else {
			next(0)
		}
	}
	next(0)
	next(1)
	return sh, len(msgs)
}
