package pipeline

import (
	"net/netip"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// rpcMidNeed is the most bytes of each direction looked at to tell the
// transport of a ULinkRPC connection joined mid-stream.
const rpcMidNeed = 16 << 10

// holdRPCMid is holdRPC for a ULinkRPC connection whose start was not
// captured: no HTTP GET tells a WebSocket, so the first bytes of both
// directions are held until they show WebSocket framing (midTransport) or
// the length-prefixed stream, or a gap, the close or the bounds end the
// wait.
func (r *router) holdRPCMid(rt *route, ev capture.Event) {
	if ev.Kind == capture.EventData {
		b := &rt.c2s
		if ev.FromServer != rt.swap {
			b = &rt.s2c
		}
		*b = append(*b, ev.Data[:min(len(ev.Data), rpcMidNeed-len(*b))]...)
	}
	if _, ok := midTransport(rt.c2s, rt.s2c, false); ok || ev.Kind == capture.EventGap || ev.Kind == capture.EventClose ||
		rt.heldSize > maxHeldBytes || len(rt.held) > maxHeldEvents || r.held > maxHeldTotal {
		r.decide(rt, ev.Flow, ProtoULinkRPC, "")
	}
}

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
	case final, decC && decS && len(c2s) >= rpcMidNeed && len(s2c) >= rpcMidNeed:
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

// KCPProbeDatagrams is how many first datagrams of each UDP flow on no
// ULinkRPC port capture yields for kcpStart to look at
// (capture.Options.ProbeDatagrams): the handshake opens the exchange, and
// one more allows for a stray datagram before it.
const KCPProbeDatagrams = 2

// kcpStart decides a probed UDP flow (ulinkrpc.md 1: "a UDP exchange that
// starts with the KCP handshake (2.3)" is ULinkRPC on any port): a UKCP
// from the side that spoke first makes it a KCP session, and the flow is
// claimed so that capture yields the rest of it.
func (r *router) kcpStart(ev capture.Event) bool {
	h, ok := ulinkrpc.ParseHandshake(ev.Data)
	if !ok || h.Ack || ev.FromServer {
		return false
	}
	if r.claim != nil {
		r.claim(ev.Flow)
	}
	return true
}

// claimFrom lets the router claim probed UDP flows from src, when src
// probes them (capture.DatagramClaimer).
func (r *router) claimFrom(src capture.Source) {
	if c, ok := src.(capture.DatagramClaimer); ok {
		r.claim = c.ClaimDatagrams
	}
}

// kcpMoved follows a UACK whose session port is not the port the
// handshake used (ulinkrpc.md 2.3, 3: "the session continues on the UDP
// flow between the client and sessionPort; ... both flows are one
// connection"): the new flow feeds the same session and is claimed from
// capture, within the bound of KCP flows.
func (r *router) kcpMoved(ev capture.Event) {
	h, ok := ulinkrpc.ParseHandshake(ev.Data)
	if !ok || !h.Ack || !ev.FromServer || h.SessionPort <= 0 || h.SessionPort > 65535 || uint16(h.SessionPort) == ev.Flow.Server.Port() {
		return
	}
	s := r.rp.udp[ev.Flow]
	moved := capture.Flow{Client: ev.Flow.Client, Server: netip.AddrPortFrom(ev.Flow.Server.Addr(), uint16(h.SessionPort))}
	if s == nil || r.rp.udp[moved] != nil || len(r.rp.udp) >= maxDatagramFlows {
		return
	}
	r.rp.udp[moved] = s
	if r.claim != nil {
		r.claim(moved)
	}
}
