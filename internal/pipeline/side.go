package pipeline

import (
	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// side is what the router asks of ULinkRPC's side of a feed (rpc/feed's
// RPC, wired in by register.go): the router holds and routes connections
// and datagrams; the side says which are its own and decodes them. The
// router names no ULinkRPC type (issue 23), so a side is only this.
type side interface {
	// Attach gives the side the feed's index, which hosts its sessions.
	Attach(ix *session.Index)
	// Seen is every event, whose stamp ends the sessions still open.
	Seen(ev *capture.Event)
	// OnPort reports whether a TCP server port is the side's.
	OnPort(port uint16) bool
	// Mid reports whether the first bytes held of each direction of a
	// connection joined mid-stream tell its transport (at most MidNeed()
	// of each are looked at).
	Mid(c2s, s2c []byte) bool
	MidNeed() int
	// Start opens the session of a connection decided as the side's.
	Start(c dissect.Conn, c2s, s2c []byte, mid bool) *session.HostedConn
	// Event feeds an event of such a connection, turned as the router
	// sees it.
	Event(h *session.HostedConn, ev capture.Event)
	// Datagram takes a UDP datagram no hosted protocol takes; claim (nil
	// when the source does not probe) claims a probed flow found to be the
	// side's.
	Datagram(ev capture.Event, claim func(capture.Flow))
	// MayClaim reports, from ev alone, whether Datagram may claim a flow
	// on it. It is asked on the goroutine that reads a file ahead
	// (ahead.go), which then waits until the decoder applied ev before it
	// reads on, so it keeps no state.
	MayClaim(ev *capture.Event) bool
	// Finish ends the sessions at the end of the feed.
	Finish()
}

// holdRPCMid is holdRPC for a ULinkRPC connection whose start was not
// captured: no HTTP GET tells a WebSocket, so the first bytes of both
// directions are held until the side says they show its framing (Mid),
// or a gap, the close or the bounds end the wait.
func (r *router) holdRPCMid(rt *route, ev capture.Event) {
	if ev.Kind == capture.EventData {
		b := &rt.c2s
		if ev.FromServer != rt.swap {
			b = &rt.s2c
		}
		*b = append(*b, ev.Data[:min(len(ev.Data), r.rp.MidNeed()-len(*b))]...)
	}
	if r.rp.Mid(rt.c2s, rt.s2c) || ev.Kind == capture.EventGap || ev.Kind == capture.EventClose ||
		rt.heldSize > maxHeldBytes || len(rt.held) > maxHeldEvents || r.held > maxHeldTotal {
		r.decide(rt, ev.Flow, ProtoULinkRPC, "")
	}
}

// claimFrom lets the router claim probed UDP flows from src, when src
// probes them (capture.DatagramClaimer).
func (r *router) claimFrom(src capture.Source) {
	if c, ok := src.(capture.DatagramClaimer); ok {
		r.claim = c.ClaimDatagrams
	}
}

// mayClaim is the test of the events on which the router may claim a
// flow from its source (side.MayClaim), nil when it claims none.
func (r *router) mayClaim() func(*capture.Event) bool {
	if r.claim == nil || r.rp == nil {
		return nil
	}
	return r.rp.MayClaim
}

// maxDatagramFlows bounds the UDP flows of a hosted protocol given a
// connection (ULinkRPC's side bounds its own KCP flows alike).
const maxDatagramFlows = 1024
