package feed

import (
	"net/netip"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// MidNeed is the most bytes of each direction looked at to tell the
// transport of a ULinkRPC connection joined mid-stream.
const MidNeed = 16 << 10

// Mid reports whether the first bytes held of each direction of a
// ULinkRPC connection joined mid-stream (at most MidNeed of each) tell its
// transport already (midTransport); the router holds it until they do, or
// until a gap, the close or its bounds end the wait.
func (p *RPC) Mid(c2s, s2c []byte) bool {
	_, ok := midTransport(c2s, s2c, false)
	return ok
}

// MidNeed is MidNeed, for the router, which names no constant of this
// package.
func (p *RPC) MidNeed() int { return MidNeed }

// midTransport tells the transport of a ULinkRPC connection joined
// mid-stream from the first captured bytes of each direction (ulinkrpc.md
// 2, 2.2): WebSocket when either shows WebSocket frames chaining as a
// ULinkRPC peer writes them (binary messages each holding one
// [length][frame]; masked from the client, unmasked from the server), TCP
// when either shows length-prefixed frames chaining (the resynchronisation
// of ulinkrpc.Stream). Neither can pass for the other: a WebSocket header
// read as a length prefix is far above the frame limit, and raw frames
// seldom chain as masked headers. ok is false while more bytes could
// decide; final (no more bytes) decides, TCP when nothing shows.
func midTransport(c2s, s2c []byte, final bool) (t rpc.Transport, ok bool) {
	_, wsC, decC := ulinkrpc.FindWSFrames(c2s, true, final)
	_, wsS, decS := ulinkrpc.FindWSFrames(s2c, false, final)
	switch {
	case wsC || wsS:
		return rpc.WebSocket, true
	case lengthFramed(c2s, final) || lengthFramed(s2c, final):
		return rpc.TCP, true
	case final, decC && decS && len(c2s) >= MidNeed && len(s2c) >= MidNeed:
		return rpc.TCP, true
	}
	return rpc.TCP, false
}

// lengthFramed reports whether a resynchronising ulinkrpc.Stream finds
// frames in b (at the end: frames that chain to its last byte).
func lengthFramed(b []byte, final bool) bool {
	if len(b) == 0 {
		return false
	}
	s := ulinkrpc.NewStream(ulinkrpc.StreamConfig{})
	s.StartUnsynced()
	s.Feed(b, nil)
	if final && s.Stats().Frames == 0 {
		found := false
		s.End(func([]byte, ulinkrpc.FrameInfo) { found = true })
		return found
	}
	return s.Stats().Frames > 0
}

// ProbeDatagrams is how many first datagrams of each UDP flow on no
// ULinkRPC port capture yields for kcpStart to look at
// (capture.Options.ProbeDatagrams): the handshake opens the exchange, and
// one more allows for a stray datagram before it.
const ProbeDatagrams = 2

// kcpStart decides a probed UDP flow (ulinkrpc.md 1: "a UDP exchange that
// starts with the KCP handshake (2.3)" is ULinkRPC on any port): a UKCP
// from the side that spoke first makes it a KCP session, and the flow is
// claimed so that capture yields the rest of it.
func kcpStart(ev capture.Event, claim func(capture.Flow)) bool {
	h, ok := ulinkrpc.ParseHandshake(ev.Data)
	if !ok || h.Ack || ev.FromServer {
		return false
	}
	if claim != nil {
		claim(ev.Flow)
	}
	return true
}

// kcpMoved follows a UACK whose session port is not the port the
// handshake used (ulinkrpc.md 2.3, 3: "the session continues on the UDP
// flow between the client and sessionPort; ... both flows are one
// connection"): the new flow feeds the same session and is claimed from
// capture, within the bound of KCP flows.
func (p *RPC) kcpMoved(ev capture.Event, claim func(capture.Flow)) {
	h, ok := ulinkrpc.ParseHandshake(ev.Data)
	if !ok || !h.Ack || !ev.FromServer || h.SessionPort <= 0 || h.SessionPort > 65535 || uint16(h.SessionPort) == ev.Flow.Server.Port() {
		return
	}
	s := p.udp[ev.Flow]
	moved := capture.Flow{Client: ev.Flow.Client, Server: netip.AddrPortFrom(ev.Flow.Server.Addr(), uint16(h.SessionPort))}
	if s == nil || p.udp[moved] != nil || len(p.udp) >= maxDatagramFlows {
		return
	}
	p.udp[moved] = s
	if claim != nil {
		claim(moved)
	}
}
