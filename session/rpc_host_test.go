package session_test

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// hostEvent is one event of TestRPCHostRandom's traffic.
type hostEvent struct {
	conn int // 0: the Unturned connection, 1…: a hosted ULinkRPC one
	dir  dissect.Dir
	data []byte // a KCP connection's: one datagram
	gap  int
	// wire: a WebSocket connection's data is its bytes as they are; else
	// they are wrapped into a server's unmasked binary message.
	wire bool
	// idle: no event of a connection but the source pausing (Index.Idle):
	// every wait is abandoned.
	idle bool
}

// hostMix is seeded traffic (events) over one Unturned connection joined
// mid-stream and hosted ULinkRPC ones, connection i decoded with
// configs[i-1].
type hostMix struct {
	configs []rpc.Config
	evs     []hostEvent
	// file feeds the ULinkRPC data events as runs of a capture file the
	// index reads again (HostedConn.FeedAt, Index.SetStore).
	file bool
}

// fileStore is a capture file growing as a feed writes it.
type fileStore struct{ b []byte }

// ReadAt reads the bytes written so far.
func (f *fileStore) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(f.b)) {
		return 0, io.EOF
	}
	n := copy(p, f.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// hostTraffic is seeded traffic over one Unturned connection joined
// mid-stream and three ULinkRPC ones (TCP mid-stream, WebSocket without
// its upgrade, TCP from its start): whole frames of each protocol cut at
// random, with garbage and gaps that make both resynchronise.
func hostTraffic(seed uint64) []hostEvent {
	r := rand.New(rand.NewPCG(seed, 15))
	var evs []hostEvent
	cut := func(conn int, d dissect.Dir, b []byte) {
		for len(b) > 0 {
			k := 1 + r.IntN(len(b))
			evs = append(evs, hostEvent{conn: conn, dir: d, data: b[:k]})
			b = b[k:]
		}
	}
	var id uint32
	for range 120 {
		conn, d := r.IntN(4), dissect.Dir(r.IntN(2))
		switch k := r.IntN(10); {
		case k == 0:
			evs = append(evs, hostEvent{conn: conn, dir: d, gap: 1 + r.IntN(40)})
		case k == 1:
			cut(conn, d, randBytes(r, 1+r.IntN(30)))
		case conn == 0:
			body := randBytes(r, 1+r.IntN(20))
			cut(conn, d, append(binary.BigEndian.AppendUint16(nil, uint16(len(body))), body...))
		default:
			var env []byte
			if d == dissect.C2S {
				id++
				env = ulinkrpc.EncodeRequest(id, 1, int32(r.IntN(3)), []byte(`{"a":1}`))
			} else {
				env = ulinkrpc.EncodeResponse(id, ulinkrpc.StatusOk, nil, "")
			}
			cut(conn, d, append(binary.BigEndian.AppendUint32(nil, uint32(len(env))), env...))
		}
	}
	return evs
}

// hostTrafficKCP is seeded traffic over one Unturned connection joined
// mid-stream and four ULinkRPC ones: KCP past both handshakes of its two
// conversations, KCP joined mid-stream (holding at most 6 segments behind a
// gap), WebSocket from its upgrade, TCP joined mid-stream. Each KCP
// conversation and direction splits its messages into segments of 6 to 40
// bytes and sends them in datagrams of one to three, picked at random from
// those not yet sent (reordered), a few never sent (lost), a few sent again
// (retransmitted), with ACKs among them. WebSocket messages are frames,
// masked from the client, some continued by continuation frames or
// preceded by pings, and each direction's bytes are cut at random across
// them. The Unturned and TCP connections get garbage and gaps besides, and
// the source pauses now and then (idle).
func hostTrafficKCP(seed uint64) hostMix {
	r := rand.New(rand.NewPCG(seed, 16))
	mix := hostMix{configs: []rpc.Config{
		{Transport: rpc.KCP},
		{Transport: rpc.KCP, MidStream: true, KCP: kcp.Config{MaxSegments: 6}},
		{Transport: rpc.WebSocket},
		{Transport: rpc.TCP, MidStream: true},
	}}
	emit := func(ev hostEvent) { mix.evs = append(mix.evs, ev) }
	cut := func(conn int, d dissect.Dir, b []byte) {
		for len(b) > 0 {
			k := 1 + r.IntN(len(b))
			emit(hostEvent{conn: conn, dir: d, data: b[:k], wire: true})
			b = b[k:]
		}
	}
	var id uint32
	env := func(d dissect.Dir) []byte {
		switch {
		case r.IntN(8) == 0:
			return ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing+ulinkrpc.FrameType(d), int64(r.IntN(3)))
		case d == dissect.C2S:
			id++
			return ulinkrpc.EncodeRequest(id, 1, int32(r.IntN(3)), []byte(`{"a":1}`))
		}
		return ulinkrpc.EncodeResponse(id, ulinkrpc.StatusOk, nil, "")
	}
	// KCP: the segments not yet sent, per connection (1, 2), direction and
	// conversation; the next sn of each.
	type kcpKey struct {
		conn int
		dir  dissect.Dir
		conv uint32
	}
	convs := map[int][]uint32{1: {7, 8}, 2: {9}}
	unsent, sn := map[kcpKey][]kcp.Segment{}, map[kcpKey]uint32{}
	for _, conv := range convs[1] {
		emit(hostEvent{conn: 1, dir: dissect.C2S, data: ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: conv})})
		emit(hostEvent{conn: 1, dir: dissect.S2C, data: ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Ack: true, Conv: conv, SessionPort: 20000})})
	}
	sn[kcpKey{2, dissect.C2S, 9}], sn[kcpKey{2, dissect.S2C, 9}] = 1000, 5000
	datagram := func(k kcpKey) {
		var dg []byte
		for range 1 + r.IntN(3) {
			segs := unsent[k]
			if len(segs) == 0 {
				break
			}
			i := r.IntN(min(len(segs), 4))
			seg := segs[i]
			if r.IntN(8) != 0 {
				// Not retransmitted: sent this once, or lost.
				unsent[k] = append(segs[:i], segs[i+1:]...)
			}
			if r.IntN(16) != 0 {
				dg = kcp.EncodeSegment(dg, seg)
			}
		}
		if r.IntN(4) == 0 {
			dg = kcp.EncodeSegment(dg, kcp.Segment{Conv: k.conv, Cmd: kcp.CmdAck, Sn: sn[k]})
		}
		if len(dg) > 0 {
			emit(hostEvent{conn: k.conn, dir: k.dir, data: dg})
		}
	}
	// WebSocket: each direction's bytes not yet sent.
	ws := [2][]byte{
		websocket.EncodeUpgradeRequest("10.0.0.1:20000", "/ws", "dGhlIHNhbXBsZSBub25jZQ=="),
		websocket.EncodeUpgradeResponse("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
	}
	wsFrame := func(d dissect.Dir, op websocket.Opcode, fin bool, p []byte) {
		var key *[4]byte
		if d == dissect.C2S {
			key = &[4]byte{byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))}
		}
		ws[d] = websocket.EncodeFrame(ws[d], op, fin, key, p)
	}
	for range 120 {
		conn, d := r.IntN(5), dissect.Dir(r.IntN(2))
		switch {
		case r.IntN(40) == 0:
			emit(hostEvent{idle: true})
		case conn == 1 || conn == 2:
			k := kcpKey{conn, d, convs[conn][r.IntN(len(convs[conn]))]}
			if r.IntN(3) != 0 {
				segs := kcp.SplitMessage(k.conv, sn[k], ulinkrpc.AppendFrame(nil, env(d)), 6+r.IntN(35))
				sn[k] += uint32(len(segs))
				unsent[k] = append(unsent[k], segs...)
			}
			datagram(k)
		case conn == 3:
			if r.IntN(2) == 0 {
				if r.IntN(6) == 0 {
					wsFrame(d, websocket.OpPing, true, []byte{byte(r.IntN(256))})
				}
				msg := ulinkrpc.AppendFrame(nil, env(d))
				at := len(msg)
				if r.IntN(3) == 0 {
					at = r.IntN(len(msg) + 1)
				}
				wsFrame(d, websocket.OpBinary, at == len(msg), msg[:at])
				if at < len(msg) {
					wsFrame(d, websocket.OpContinuation, true, msg[at:])
				}
			}
			if len(ws[d]) > 0 {
				k := 1 + r.IntN(len(ws[d]))
				emit(hostEvent{conn: 3, dir: d, data: ws[d][:k], wire: true})
				ws[d] = ws[d][k:]
			}
		case r.IntN(10) == 0:
			emit(hostEvent{conn: conn, dir: d, gap: 1 + r.IntN(40)})
		case r.IntN(9) == 0:
			cut(conn, d, randBytes(r, 1+r.IntN(30)))
		case conn == 0:
			body := randBytes(r, 1+r.IntN(20))
			cut(conn, d, append(binary.BigEndian.AppendUint16(nil, uint16(len(body))), body...))
		default:
			cut(conn, d, ulinkrpc.AppendFrame(nil, env(d)))
		}
	}
	// The rest, still reordered.
	for _, conn := range []int{1, 2} {
		for _, conv := range convs[conn] {
			for d := range dissect.Dir(2) {
				for k := (kcpKey{conn, d, conv}); len(unsent[k]) > 0; {
					datagram(k)
				}
			}
		}
	}
	for d := range dissect.Dir(2) {
		cut(3, d, ws[d])
	}
	return mix
}

var (
	hostT0       = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	hostUnturned = dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:5000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	// hostConfigs are hostTraffic's ULinkRPC connections 1, 2 and 3.
	hostConfigs = []rpc.Config{{Transport: rpc.TCP, MidStream: true}, {Transport: rpc.WebSocket, MidStream: true}, {Transport: rpc.TCP}}
)

// feedHost feeds a mix to an index, streaming when st is not nil; each
// of set is called on the index first.
func feedHost(mix hostMix, st func(*session.Index) session.Stream, set ...func(*session.Index)) *session.Index {
	ix := session.NewIndex(nil)
	for _, f := range set {
		f(ix)
	}
	if st != nil {
		ix.SetStream(st(ix))
	}
	ix.Open(hostUnturned, session.RuleLowerPort, hostT0, 1)
	var file *fileStore
	if mix.file {
		file = &fileStore{b: make([]byte, 24)} // a file header
		ix.SetStore(file)
	}
	var hosts []*session.HostedConn
	for i, cfg := range mix.configs {
		c := dissect.Conn{Client: netip.MustParseAddrPort(fmt.Sprintf("10.0.0.%d:6000", 3+i)), Server: netip.MustParseAddrPort("10.0.0.1:20000")}
		hosts = append(hosts, openRPC(ix, c, cfg))
	}
	for i, ev := range mix.evs {
		t, frame := hostT0.Add(time.Duration(i)*time.Millisecond), i+1
		switch {
		case ev.idle:
			ix.Idle()
			continue
		case ev.conn == 0:
			ev.unturned(ix, t, frame)
			continue
		}
		h := hosts[ev.conn-1]
		if file != nil && ev.gap == 0 && sessionOf(h).Transport() == rpc.TCP {
			off := int64(len(file.b)) + 16 // after a packet header
			file.b = append(append(file.b, make([]byte, 16)...), ev.data...)
			h.FeedAt(t, frame, off, func(st rpc.Stamp) { ev.rpc(sessionOf(h), st) })
			continue
		}
		h.Feed(t, frame, func(st rpc.Stamp) { ev.rpc(sessionOf(h), st) })
	}
	ix.Finish()
	return ix
}

// unturned feeds an event of the Unturned connection.
func (ev hostEvent) unturned(ix *session.Index, t time.Time, frame int) {
	if ev.gap > 0 {
		ix.Gap(hostUnturned, ev.dir, ev.gap, t, frame)
		return
	}
	ix.Data(hostUnturned, ev.dir, ev.data, t, frame)
}

// rpc feeds an event of a ULinkRPC connection.
func (ev hostEvent) rpc(s *rpc.Session, st rpc.Stamp) {
	switch {
	case ev.gap > 0:
		s.Gap(ev.dir, ev.gap, st)
	case s.Transport() == rpc.KCP:
		s.Datagram(ev.dir, ev.data, st)
	case s.Transport() == rpc.WebSocket && !ev.wire:
		// A server's unmasked binary message carrying the bytes.
		s.Bytes(ev.dir, append([]byte{0x82, byte(len(ev.data))}, ev.data...), st)
	default:
		s.Bytes(ev.dir, ev.data, st)
	}
}

// hostAlone is how many messages a mix's connections decode each alone,
// with no host: as many as an index hosting them all must number. Where
// the source pauses, each stops waiting as the index makes the ones that
// hold numbering stop (Abandon; a no-op for one that holds none).
func hostAlone(mix hostMix) int {
	ix := session.NewIndex(nil)
	ix.Open(hostUnturned, session.RuleLowerPort, hostT0, 1)
	var alone []*rpc.Session
	for _, cfg := range mix.configs {
		alone = append(alone, rpc.New(dissect.Conn{}, cfg))
	}
	for i, ev := range mix.evs {
		t, frame := hostT0.Add(time.Duration(i)*time.Millisecond), i+1
		switch {
		case ev.idle:
			ix.Idle()
			for _, s := range alone {
				s.Abandon()
			}
			continue
		case ev.conn == 0:
			ev.unturned(ix, t, frame)
			continue
		}
		ev.rpc(alone[ev.conn-1], rpc.Stamp{Frame: frame, Time: t})
	}
	ix.Finish()
	n := ix.Len()
	for _, s := range alone {
		s.End(rpc.Stamp{Time: hostT0.Add(time.Duration(len(mix.evs)) * time.Millisecond)})
		n += len(s.Records())
	}
	return n
}

// TestRPCHostRandom: hosted ULinkRPC connections and an Unturned one, all
// resynchronising on seeded garbage and gaps, KCP ones reassembling
// reordered, lost and repeated segments, the waits abandoned where the
// source pauses, number every message once (as many as each connection
// decodes alone), densely from 1, frame never decreasing; the streaming
// index hands out the same messages in the same order with the same dump
// --json lines. Each mix runs 60 seeds here (thousands pass: raise them
// to look further).
func TestRPCHostRandom(t *testing.T) {
	for _, tt := range []struct {
		name    string
		seeds   uint64
		traffic func(seed uint64) hostMix
	}{
		{"tcp and websocket", 60, func(seed uint64) hostMix { return hostMix{configs: hostConfigs, evs: hostTraffic(seed)} }},
		{"kcp and masked websocket", 60, hostTrafficKCP},
	} {
		rpcSeen := map[rpc.Transport]int{}
		for seed := range tt.seeds {
			mix := tt.traffic(seed)
			ix := feedHost(mix, nil)
			if n, want := ix.Len(), hostAlone(mix); n != want {
				t.Fatalf("%s seed %d: %d messages numbered; want %d, as the connections decode alone", tt.name, seed, n, want)
			}
			prev := 0
			for n := 1; n <= ix.Len(); n++ {
				m := ix.Message(n)
				if m == nil || m.N != n || m.Frame < prev {
					t.Fatalf("%s seed %d: message %d is %v after frame %d", tt.name, seed, n, m, prev)
				}
				prev = m.Frame
				if rpcOf(m.Rec) != nil {
					rpcSeen[rpcOf(m.Rec).Transport]++
				}
			}
			want := ix.AppendJSONRange(nil, 1, ix.Len(), nil)
			var o inOrder
			sx := feedHost(mix, o.stream)
			if err := sx.StreamErr(); err != nil || o.next != ix.Len()+1 || string(o.got) != string(want) {
				t.Fatalf("%s seed %d: stream %v, handed out %d of %d, same lines %v", tt.name, seed, err, o.next-1, ix.Len(), string(o.got) == string(want))
			}
		}
		t.Logf("%s: ULinkRPC records over %d seeds by transport: %v", tt.name, tt.seeds, rpcSeen)
		for _, cfg := range tt.traffic(0).configs {
			if rpcSeen[cfg.Transport] == 0 {
				t.Errorf("%s: no %s record decoded: the traffic tests nothing of it", tt.name, cfg.Transport)
			}
		}
	}
}

// TestRPCHostForce (order.go bounds): a ULinkRPC stream resynchronising on
// a trickle holds other traffic only up to the queue's bound; then it is
// abandoned (its bytes skipped, reported) and every message is numbered,
// in order, frame never decreasing.
func TestRPCHostForce(t *testing.T) {
	ix := session.NewIndex(nil)
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	un := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:5000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	ix.Open(un, session.RuleSYN, t0, 1)
	h := openRPC(ix, dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.3:6000"), Server: netip.MustParseAddrPort("10.0.0.1:20000")}, rpc.Config{MidStream: true})
	s := sessionOf(h)
	h.Feed(t0, 2, func(st rpc.Stamp) { s.Bytes(dissect.C2S, []byte{0, 0, 0}, st) })
	const msgs = 20000
	for i := range msgs {
		ix.Data(un, dissect.Dir(i&1), []byte{0, 1, byte(i)}, t0.Add(time.Duration(i+3)*time.Microsecond), i+3)
	}
	if n := ix.Len(); n < msgs-16384-1 {
		t.Errorf("%d of %d messages numbered before the end: the trickle held them past the bound", n, msgs)
	}
	ix.Finish()
	prev := 0
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		if m == nil || m.N != n || m.Frame < prev {
			t.Fatalf("message %d is %v after frame %d", n, m, prev)
		}
		prev = m.Frame
	}
	skipped := false
	for _, ci := range ix.Connections() {
		for _, f := range ci.Findings {
			skipped = skipped || (ci.Proto == rpc.Name) && f.Group == dissect.Sequence
		}
	}
	if ix.Len() != msgs || !skipped {
		t.Errorf("%d messages, a sequence finding on the ULinkRPC connection %v; want %d and true", ix.Len(), skipped, msgs)
	}
}

// TestRPCHostConcurrentReader: a reader (the TUI) may list, show and
// tabulate ULinkRPC messages while the feeder numbers and pairs them; run
// with -race (make test), what they share unlocked shows as a data race
// when the timing meets it.
func TestRPCHostConcurrentReader(t *testing.T) {
	evs := hostTraffic(7)
	ix := session.NewIndex(nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-done:
				return
			default:
			}
			for n := 1; n <= ix.Len(); n++ {
				if m := ix.Message(n); m != nil && rpcOf(m.Rec) != nil {
					_ = rpcOf(m.Rec).Pair + m.Pair
				}
				if h, ok := ix.Head(n); ok && rpcOf(h.Rec) != nil {
					_ = rpcOf(h.Rec).Pair
				}
			}
			for _, ci := range ix.Connections() {
				if t := ix.Tables(ci.Conn, ix.Len()/2); t != nil && hostedTables(t) != nil {
					_ = len(hostedTables(t).Methods)
				}
			}
			_, _ = ix.TablesJSON()
			if ix.Len() > 0 {
				_ = ix.AppendJSONRange(nil, 1, ix.Len(), nil)
			}
		}
	}()
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	h := openRPC(ix, dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.3:6000"), Server: netip.MustParseAddrPort("10.0.0.1:20000")}, rpc.Config{})
	s := sessionOf(h)
	for i, ev := range evs {
		if ev.conn == 0 || ev.gap > 0 {
			continue
		}
		h.Feed(t0.Add(time.Duration(i)*time.Millisecond), i+1, func(st rpc.Stamp) { s.Bytes(ev.dir, ev.data, st) })
	}
	ix.Finish()
	done <- struct{}{}
	<-done
	if ix.Len() == 0 {
		t.Fatal("no ULinkRPC record: the reader read nothing")
	}
}

// TestRPCHostSameKey: bytes for a hosted ULinkRPC connection's key that
// reach the index as Unturned data (the router forgot the flow after its
// close) make an Unturned connection of their own: the ULinkRPC one keeps
// only its records, and each has its own tables.
func TestRPCHostSameKey(t *testing.T) {
	ix := session.NewIndex(nil)
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	key := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.3:6000"), Server: netip.MustParseAddrPort("10.0.0.1:20000")}
	h := openRPC(ix, key, rpc.Config{})
	s := sessionOf(h)
	env := ulinkrpc.EncodeRequest(1, 1, 1, nil)
	h.Feed(t0, 1, func(st rpc.Stamp) {
		s.Bytes(dissect.C2S, append(binary.BigEndian.AppendUint32(nil, uint32(len(env))), env...), st)
	})
	h.Feed(t0, 2, func(st rpc.Stamp) { s.End(st) })
	ix.Data(key, dissect.C2S, []byte{0, 1, 7}, t0.Add(time.Millisecond), 3)
	ix.Finish()
	cs := ix.Connections()
	if len(cs) != 2 || !(cs[0].Proto == rpc.Name) || (cs[1].Proto == rpc.Name) || cs[0].Messages != 1 || cs[1].Messages != 1 {
		t.Fatalf("connections %+v; want a ULinkRPC one and an Unturned one of one message each", cs)
	}
	rt, ut := ix.TablesOf(0, 0), ix.TablesOf(1, 0)
	if rt == nil || hostedTables(rt) == nil || len(hostedTables(rt).Methods) != 1 || hostedTables(rt).Methods[0].Requests != 1 || ut == nil || hostedTables(ut) != nil {
		t.Errorf("tables of the ULinkRPC connection %+v and of the Unturned one %+v", rt, ut)
	}
	if m := ix.Message(2); m == nil || rpcOf(m.Rec) != nil {
		t.Errorf("message 2 is %+v; want the Unturned one", m)
	}
	if _, err := ix.TablesJSON(); err != nil {
		t.Error(err)
	}
}

// TestRPCHostWebSocketHeldAtEnd (outputs.md "Ordering"; TestRPCHostRandom
// seed 59): a WebSocket joined mid-stream holds a whole Response (frame 2)
// behind a frame header its chain cannot decide until the end, while
// another connection's Request comes in frame 3. The Response is handed on
// only at the end, yet numbered as of frame 2, before the Request; and the
// ended session holds nothing, so that both are numbered at all.
func TestRPCHostWebSocketHeldAtEnd(t *testing.T) {
	ix := session.NewIndex(nil)
	ws := openRPC(ix, dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.3:6000"), Server: netip.MustParseAddrPort("10.0.0.1:20000")}, rpc.Config{Transport: rpc.WebSocket, MidStream: true})
	tcp := openRPC(ix, dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.4:6000"), Server: netip.MustParseAddrPort("10.0.0.1:20000")}, rpc.Config{})
	frame := func(env []byte) []byte { return ulinkrpc.AppendFrame(nil, env) }
	// A binary frame whose [length] says it runs 28 bytes on: undecided
	// until they come, or until the end.
	undecided := []byte{0x82, 0x20, 0, 0, 0, 0x1c}
	resp := websocket.EncodeFrame(nil, websocket.OpBinary, true, nil, frame(ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, nil, "")))
	ws.Feed(hostT0, 1, func(st rpc.Stamp) { sessionOf(ws).Bytes(dissect.S2C, undecided, st) })
	ws.Feed(hostT0.Add(time.Millisecond), 2, func(st rpc.Stamp) { sessionOf(ws).Bytes(dissect.S2C, resp, st) })
	tcp.Feed(hostT0.Add(2*time.Millisecond), 3, func(st rpc.Stamp) {
		sessionOf(tcp).Bytes(dissect.C2S, frame(ulinkrpc.EncodeRequest(1, 1, 1, nil)), st)
	})
	ix.Finish()
	var got []string
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		got = append(got, fmt.Sprintf("%d:%s", m.Frame, rpcOf(m.Rec).Msg))
	}
	if want := "[2:Response 3:Request]"; fmt.Sprint(got) != want {
		t.Errorf("messages (frame:msg) %v; want %s", got, want)
	}
}

// TestRPCHostKCPHeld (ulinkrpc.md 2.3, outputs.md "Ordering"): a KCP
// Request arrives in frame 2 as sn 1 of a conversation whose sn 0 is
// missing, so the reassembler holds it, while another connection's TCP
// Request comes in frame 3. When the gap never fills (at the end, or when
// Idle abandons the wait) the KCP one is numbered as of frame 2, before the
// TCP one; and Idle, which abandons every wait, returns. Once sn 0, a Ping,
// comes in frame 4, the Request arrives with it, after it (issue 24: a KCP
// receiver delivers nothing past a missing sn; within a direction n
// follows stream order). With the Ping as sn 1 in frame 4 and the Request
// as sn 2, two held segments are too many: the gap is skipped and the
// frame stream resynchronises on the Ping of frame 4 and then the Request
// behind it, which it holds until the end.
func TestRPCHostKCPHeld(t *testing.T) {
	const conv = 7
	kcpReq := func(sn uint32) []byte {
		env := ulinkrpc.EncodeRequest(1, 1, 1, nil)
		return kcp.EncodeSegment(nil, kcp.SplitMessage(conv, sn, ulinkrpc.AppendFrame(nil, env), 0)[0])
	}
	kcpPing := func(sn uint32) []byte {
		env := ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 5)
		return kcp.EncodeSegment(nil, kcp.SplitMessage(conv, sn, ulinkrpc.AppendFrame(nil, env), 0)[0])
	}
	tests := []struct {
		name   string
		lim    kcp.Config
		req    uint32 // the Request's sn, in frame 2
		ping   bool   // the Ping comes in frame 4 …
		pingSn uint32 // … as this sn
		idle   bool
		want   string
	}{
		{"at the end", kcp.Config{}, 1, false, 0, false,
			"[2:kcp:Request 3:tcp:Request]"},
		{"at Idle", kcp.Config{}, 1, false, 0, true,
			"[2:kcp:Request 3:tcp:Request]"},
		{"once the gap fills", kcp.Config{}, 1, true, 0, false,
			"[3:tcp:Request 4:kcp:KeepAlivePing 4:kcp:Request]"},
		{"resynchronising behind a skipped gap", kcp.Config{MaxSegments: 1}, 2, true, 1, false,
			"[3:tcp:Request 4:kcp:KeepAlivePing 4:kcp:Request]"},
	}
	for _, tt := range tests {
		ix := session.NewIndex(nil)
		kcp := openRPC(ix, dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.3:6000"), Server: netip.MustParseAddrPort("10.0.0.1:20000")}, rpc.Config{Transport: rpc.KCP, KCP: tt.lim})
		tcp := openRPC(ix, dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.4:6000"), Server: netip.MustParseAddrPort("10.0.0.1:20000")}, rpc.Config{})
		datagram := func(frame int, b []byte) {
			kcp.Feed(hostT0.Add(time.Duration(frame)*time.Millisecond), frame, func(st rpc.Stamp) { sessionOf(kcp).Datagram(dissect.C2S, b, st) })
		}
		datagram(1, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: conv}))
		datagram(2, kcpReq(tt.req))
		tcp.Feed(hostT0.Add(3*time.Millisecond), 3, func(st rpc.Stamp) {
			sessionOf(tcp).Bytes(dissect.C2S, ulinkrpc.AppendFrame(nil, ulinkrpc.EncodeRequest(1, 1, 1, nil)), st)
		})
		if tt.ping {
			datagram(4, kcpPing(tt.pingSn))
		}
		if tt.idle {
			done := make(chan struct{})
			go func() { ix.Idle(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: Idle() did not return: Abandon left the KCP wait on", tt.name)
			}
		}
		ix.Finish()
		var got []string
		for n := 1; n <= ix.Len(); n++ {
			m := ix.Message(n)
			got = append(got, fmt.Sprintf("%d:%s:%s", m.Frame, rpcOf(m.Rec).Transport, rpcOf(m.Rec).Msg))
		}
		if fmt.Sprint(got) != tt.want {
			t.Errorf("%s: messages (frame:transport:msg) %v; want %s", tt.name, got, tt.want)
		}
	}
}

// inOrder is a Stream whose Settled requires the messages in n order and
// collects their dump --json lines.
type inOrder struct {
	next int
	got  []byte
}

func (o *inOrder) stream(sx *session.Index) session.Stream {
	o.next = 1
	return session.Stream{Spans: true, Settled: func(n int) error {
		if n != o.next {
			return fmt.Errorf("handed out %d; want %d", n, o.next)
		}
		o.next++
		o.got = sx.AppendJSONOne(o.got, n, nil)
		return nil
	}}
}

// randBytes is n random bytes of r.
func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

// openRPC opens a ULinkRPC connection c decoded with cfg on ix.
func openRPC(ix *session.Index, c dissect.Conn, cfg rpc.Config) *session.HostedConn {
	return ix.OpenConn(rpc.Protocol(cfg), decode.Config{Conn: c})
}

// sessionOf is the ULinkRPC session of h.
func sessionOf(h *session.HostedConn) *rpc.Session { return h.Conn().(rpc.Hosted).Session }

// rpcOf is r as a ULinkRPC record, nil for none.
func rpcOf(r decode.Record) *rpc.Record {
	rr, _ := r.(*rpc.Record)
	return rr
}

// hostedTables is t's ULinkRPC table, nil for none.
func hostedTables(t *session.Tables) *rpc.Tables {
	if v, ok := t.ProtoTable.(*rpc.View); ok {
		return &v.Tables
	}
	return nil
}
