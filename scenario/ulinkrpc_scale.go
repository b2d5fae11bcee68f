package scenario

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// RPCScale describes a ULinkRPC load capture (issue 15): Frames frames over
// Conns connections to port 20000, in a realistic mix (ulinkrpc.md 4–5):
// Requests with JSON or MemoryPack payloads (the serializer is agreed per
// connection: even connections JSON, odd ones MemoryPack, as
// version-tolerant objects), their Responses with every status now and
// then, several Requests open at once and answered out of order, Pushes,
// KeepAlivePing/Pong pairs. It is for benchmarks (bench/ulinkrpc.sh) and
// big-capture trials; its contracts are not given, so names stay numbers.
type RPCScale struct {
	Frames    int
	Conns     int // default 32
	Seed      uint64
	Transport string    // tcp (default), websocket or kcp
	Link      string    // default "ethernet"
	Start     time.Time // default the scenario default
}

// RPCMix counts the frames an RPCScale capture holds, by kind.
type RPCMix struct {
	Requests, Responses, Pushes, Pings, Pongs int
	JSON, MemoryPack, Empty                   int // payloads of Requests, Responses and Pushes
	Errors                                    int // Responses with a non-Ok status
	Pending                                   int // Requests never answered
}

// rpcScaleOpen bounds the Requests a load connection has open at once.
const rpcScaleOpen = 16

// rpcScaleServices and rpcScaleMethods span the (service_id, method_id)
// pairs of the load: 3 services of 4 methods, and as many push ids.
const (
	rpcScaleServices = 3
	rpcScaleMethods  = 4
)

// rpcOpen is a Request waiting for its Response.
type rpcOpen struct {
	id       uint32
	sid, mid int32
}

// rpcLoadConn is one connection of a ULinkRPC load capture.
type rpcLoadConn struct {
	i      int
	conn   dissect.Conn
	f      *flow    // TCP and WebSocket
	u      *udpFlow // KCP
	mp     bool     // MemoryPack payloads, else JSON
	nextID uint32
	open   []rpcOpen
	sn     [2]uint32 // KCP: next sn each side sends
	acks   [2][]byte // KCP: ACK segments each side owes its peer
	nacks  [2]int
	ws     int // WebSocket messages sent, for the mask keys
}

func (sc RPCScale) defaults() (RPCScale, error) {
	if sc.Frames < 0 {
		return sc, fmt.Errorf("scenario: ulinkrpc scale: %d frames", sc.Frames)
	}
	if sc.Conns <= 0 {
		sc.Conns = 32
	}
	if sc.Conns > 60000 {
		return sc, fmt.Errorf("scenario: ulinkrpc scale: %d connections is more than 60000", sc.Conns)
	}
	switch sc.Transport {
	case "":
		sc.Transport = "tcp"
	case "tcp", "websocket", "kcp":
	default:
		return sc, fmt.Errorf("scenario: ulinkrpc scale: transport %q is not tcp, websocket or kcp", sc.Transport)
	}
	if err := scaleCapture(&sc.Link, &sc.Start); err != nil {
		return sc, fmt.Errorf("scenario: ulinkrpc scale: %w", err)
	}
	return sc, nil
}

// rpcGen is the state of one Generate run.
type rpcGen struct {
	sc    RPCScale
	r     *rand.Rand
	l     link
	now   time.Time
	out   func(Packet)
	mix   RPCMix
	st    Stats
	frame []byte // the envelope being sent
	buf   []byte // scratch: a JSON payload being built
}

// Generate writes the load capture to w. It streams: memory does not grow
// with the number of frames.
func (sc RPCScale) Generate(w io.Writer, f Format) (Stats, error) {
	st, _, err := sc.GenerateMix(w, f)
	return st, err
}

// GenerateMix is Generate that also counts the frames by kind.
func (sc RPCScale) GenerateMix(w io.Writer, f Format) (Stats, RPCMix, error) {
	sc, err := sc.defaults()
	if err != nil {
		return Stats{}, RPCMix{}, err
	}
	l := linkTypes[sc.Link]
	pw, err := newPacketWriter(w, f, l)
	if err != nil {
		return Stats{}, RPCMix{}, err
	}
	var werr error
	g := &rpcGen{sc: sc, r: rand.New(rand.NewPCG(sc.Seed, 0x756c6e6b)), l: l, now: sc.Start, st: Stats{Conns: sc.Conns}}
	g.out = func(p Packet) {
		if werr == nil {
			werr = pw.write(p)
			g.st.Packets++
			g.st.Bytes += int64(len(p.Data))
		}
	}
	conns := make([]*rpcLoadConn, sc.Conns)
	for g.st.Messages < sc.Frames && werr == nil {
		i := g.r.IntN(sc.Conns)
		c := conns[i]
		if c == nil {
			c = g.open(i)
			conns[i] = c
		}
		g.step(c, sc.Frames-g.st.Messages)
		g.now = g.now.Add(time.Duration(g.r.Int64N(int64(2 * scaleStep))))
	}
	for _, c := range conns {
		if c != nil && werr == nil {
			g.mix.Pending += len(c.open)
			g.close(c)
		}
	}
	if werr != nil {
		return g.st, g.mix, fmt.Errorf("scenario: ulinkrpc scale: %w", werr)
	}
	if err := pw.flush(); err != nil {
		return g.st, g.mix, fmt.Errorf("scenario: ulinkrpc scale: %w", err)
	}
	return g.st, g.mix, nil
}

// open starts connection i: the TCP handshake (and the WebSocket upgrade),
// or KCP's UKCP/UACK exchange.
func (g *rpcGen) open(i int) *rpcLoadConn {
	c := &rpcLoadConn{i: i, mp: i%2 == 1, nextID: 1}
	c.conn = dissect.Conn{
		Client: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(2 + i>>16), byte(i >> 8), byte(i)}), uint16(40000+i%20000)),
		Server: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, 1}), 20000),
	}
	if g.sc.Transport == "kcp" {
		c.u = &udpFlow{conn: c.conn, l: g.l, now: g.now, out: g.out, capture: true}
		conv := c.conv()
		c.u.send(dissect.C2S, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: conv}))
		c.u.send(dissect.S2C, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Ack: true, Conv: conv, SessionPort: 20000}))
		g.now = c.u.now
		return c
	}
	c.f = newFlow(g.sc.Seed, c.conn, g.l, defaultTransport(), g.now, g.out)
	c.f.capture = true
	c.f.handshake()
	if g.sc.Transport == "websocket" {
		key := base64Std(fmt.Sprintf("%016x", g.sc.Seed^uint64(i)*0x9e3779b97f4a7c15))
		c.f.write(&Write{Dir: dissect.C2S, Data: websocket.EncodeUpgradeRequest(c.conn.Server.String(), "/ws", key), Frames: []int{0}, Capture: true})
		c.f.write(&Write{Dir: dissect.S2C, Data: websocket.EncodeUpgradeResponse(wsAccept(key)), Frames: []int{0}, Capture: true})
	}
	g.now = c.f.now
	return c
}

func (c *rpcLoadConn) conv() uint32 { return uint32(c.i)*2654435761 | 1 }

// close ends a connection: the FIN exchange, or KCP's owed ACKs.
func (g *rpcGen) close(c *rpcLoadConn) {
	if c.u != nil {
		c.u.now = g.now
		for d := range c.acks {
			g.flushAcks(c, dissect.Dir(d))
		}
		g.now = c.u.now
		return
	}
	c.f.now = g.now
	c.f.close()
	g.now = c.f.now
}

// step plays the next action of connection c, at most left frames: a
// Request (45%, unless 16 are open), a Response to one of the open
// Requests (40%), a Push (12%), a KeepAlivePing and its Pong (3%).
func (g *rpcGen) step(c *rpcLoadConn, left int) {
	x := g.r.IntN(100)
	switch {
	case x < 45 && len(c.open) < rpcScaleOpen, x < 85 && len(c.open) == 0:
		g.request(c)
	case x < 85:
		g.response(c)
	case x < 97 || left < 2:
		g.push(c)
	default:
		ticks := g.now.UnixNano()/100 + dotnetEpoch
		g.send(c, dissect.C2S, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, ticks))
		g.now = g.now.Add(4 * packetGap)
		g.send(c, dissect.S2C, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, ticks))
		g.mix.Pings++
		g.mix.Pongs++
	}
}

func (g *rpcGen) request(c *rpcLoadConn) {
	o := rpcOpen{id: c.nextID, sid: int32(1 + g.r.IntN(rpcScaleServices)), mid: int32(1 + g.r.IntN(rpcScaleMethods))}
	c.nextID++
	if c.nextID == 0 {
		c.nextID = 1 // skips 0 (ulinkrpc.md 5)
	}
	c.open = append(c.open, o)
	var p []byte
	if c.mp {
		p = g.mpObject(ulinkrpc.MPString("player-"+strconv.Itoa(c.i)), ulinkrpc.MPInt32(int32(g.r.IntN(100))))
	} else {
		p = fmt.Appendf(g.buf[:0], `{"Account":"player-%d","Level":%d,"Pos":[%d,%d]}`, c.i, g.r.IntN(100), g.r.IntN(1000), g.r.IntN(1000))
		g.buf = p[:0]
	}
	g.count(p, c.mp)
	g.frame = ulinkrpc.EncodeRequest(o.id, o.sid, o.mid, p)
	g.send(c, dissect.C2S, g.frame)
	g.mix.Requests++
}

// response answers a random open Request: Ok with a reply (method 4 is
// void: an empty payload) 92% of the time, else an error status with the
// server's own texts (ulinkrpc.md 4).
func (g *rpcGen) response(c *rpcLoadConn) {
	k := g.r.IntN(len(c.open))
	o := c.open[k]
	c.open = append(c.open[:k], c.open[k+1:]...)
	st, errText := ulinkrpc.StatusOk, ""
	switch x := g.r.IntN(100); {
	case x < 3:
		st, errText = ulinkrpc.StatusHandlerError, "RPC handler failed."
	case x < 5:
		st, errText = ulinkrpc.StatusNotFound, fmt.Sprintf("No handler for %d:%d", o.sid, o.mid)
	case x < 7:
		st, errText = ulinkrpc.StatusOverloaded, "RPC server is overloaded; request queue is full."
	case x < 8:
		st = ulinkrpc.StatusBadRequest
	}
	var p []byte
	switch {
	case st != ulinkrpc.StatusOk || o.mid == rpcScaleMethods:
	case c.mp:
		p = g.mpObject(ulinkrpc.MPInt32(0), ulinkrpc.MPString("t-"+strconv.Itoa(int(o.id))))
	default:
		p = fmt.Appendf(g.buf[:0], `{"Code":0,"Token":"t-%d"}`, o.id)
		g.buf = p[:0]
	}
	g.count(p, c.mp)
	if st != ulinkrpc.StatusOk {
		g.mix.Errors++
	}
	g.frame = ulinkrpc.EncodeResponse(o.id, st, p, errText)
	g.send(c, dissect.S2C, g.frame)
	g.mix.Responses++
}

func (g *rpcGen) push(c *rpcLoadConn) {
	sid, mid := int32(1+g.r.IntN(rpcScaleServices)), int32(1+g.r.IntN(rpcScaleMethods))
	var p []byte
	if c.mp {
		p = g.mpObject(ulinkrpc.MPString("tick"), ulinkrpc.MPInt64(g.now.UnixMilli()), ulinkrpc.MPFloat64(float64(g.r.IntN(1000))/8))
	} else {
		p = fmt.Appendf(g.buf[:0], `{"Message":"tick","At":%d,"Value":%g}`, g.now.UnixMilli(), float64(g.r.IntN(1000))/8)
		g.buf = p[:0]
	}
	g.count(p, c.mp)
	g.frame = ulinkrpc.EncodePush(sid, mid, p)
	g.send(c, dissect.S2C, g.frame)
	g.mix.Pushes++
}

// mpObject is a version-tolerant MemoryPack object, as every ULinkRPC
// sample DTO is (ulinkrpc.md 6).
func (g *rpcGen) mpObject(members ...[]byte) []byte {
	return ulinkrpc.MPEncodeObject(true, members...)
}

func (g *rpcGen) count(p []byte, mp bool) {
	switch {
	case len(p) == 0:
		g.mix.Empty++
	case mp:
		g.mix.MemoryPack++
	default:
		g.mix.JSON++
	}
}

// send writes one envelope from side d, length-prefixed (ulinkrpc.md 2),
// over the connection's transport.
func (g *rpcGen) send(c *rpcLoadConn, d dissect.Dir, env []byte) {
	data := ulinkrpc.AppendFrame(nil, env)
	g.st.Messages++
	if c.u != nil {
		g.kcpSend(c, d, data)
		return
	}
	if c.f.now.Before(g.now) {
		c.f.now = g.now
	}
	if g.sc.Transport == "websocket" {
		// One binary message per write, client frames masked (ulinkrpc.md
		// 2.2), the mask key from the seed.
		var mask *[4]byte
		if d == dissect.C2S {
			var k [4]byte
			binary.BigEndian.PutUint32(k[:], uint32(g.sc.Seed)+uint32(c.i)*40503+uint32(c.ws)*2654435761)
			mask = &k
		}
		c.ws++
		data = websocket.EncodeFrame(nil, websocket.OpBinary, true, mask, data)
	}
	c.f.write(&Write{Dir: d, Data: data, Frames: []int{0}, Capture: true})
	// Acknowledge now and then, so that neither side runs into a full
	// window and packets stay close to one per frame (as scale.go).
	if c.f.unacked[d] > 8192 {
		c.f.control(1-d, flagACK)
	}
	g.now = c.f.now
}

// kcpSend sends stream bytes as one KCP message (ulinkrpc.md 2.3), one
// PUSH segment a datagram; the peer owes an ACK segment for each and sends
// them 8 to a datagram.
func (g *rpcGen) kcpSend(c *rpcLoadConn, d dissect.Dir, data []byte) {
	if c.u.now.Before(g.now) {
		c.u.now = g.now
	}
	conv := c.conv()
	ts := uint32(c.u.now.Sub(g.sc.Start) / time.Millisecond)
	segs := kcp.SplitMessage(conv, c.sn[d], data, 0)
	for _, seg := range segs {
		seg.Wnd, seg.Ts, seg.Una = 256, ts, c.sn[1-d]
		c.u.send(d, kcp.EncodeSegment(nil, seg))
		c.acks[1-d] = kcp.EncodeSegment(c.acks[1-d], kcp.Segment{Conv: conv, Cmd: kcp.CmdAck, Wnd: 256, Ts: ts, Sn: seg.Sn, Una: seg.Sn + 1})
		c.nacks[1-d]++
	}
	c.sn[d] += uint32(len(segs))
	if c.nacks[1-d] >= 8 {
		g.flushAcks(c, 1-d)
	}
	g.now = c.u.now
}

func (g *rpcGen) flushAcks(c *rpcLoadConn, d dissect.Dir) {
	if c.nacks[d] == 0 {
		return
	}
	c.u.send(d, c.acks[d])
	c.acks[d], c.nacks[d] = c.acks[d][:0], 0
}
