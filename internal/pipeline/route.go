package pipeline

import (
	"fmt"
	"slices"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// router decides, per TCP connection, which protocol decodes it (wire.md
// section 2) and hands the events of the decoded ones to the index:
//   - a port named by --decode-as (Profile.DecodeAs) is decoded as named;
//     with no SYN seen, the server is the side on the named port;
//   - a connection to transport_port is SystemSockets;
//   - on any other port, a connection whose start was captured is held
//     until its first client bytes decide it (the registry's detectors:
//     a GetWorkshopFiles for SystemSockets), then replayed with its own
//     frames and times;
//   - everything else is not decoded: one connection note, no messages.
type router struct {
	ix   *session.Index
	rp   side // ULinkRPC's (register.go); nil: ULinkRPC is not decoded
	port uint16
	as   map[uint16]Proto
	dets []detector
	// hosted are the registered protocols the index hosts (register.go)
	// besides ULinkRPC, hconns their connections in the order they were
	// found, ended at last, the latest event's stamp.
	hosted []*decode.Protocol
	hconns []*session.HostedConn
	hflows map[capture.Flow]*session.HostedConn // hosted datagram flows
	last   decode.Stamp
	flows  map[capture.Flow]*route
	// pending lists the held connections in the order they opened, so
	// that the ones still undecided at the end are noted in a stable order.
	pending []capture.Flow
	held    int // bytes held over all undecided connections
	// claim asks capture for every datagram of a probed UDP flow found to
	// be KCP (the side's Datagram); nil when the source does not probe.
	claim func(capture.Flow)
	// recent caches routes by capture.Event.ID (direct-mapped), so that
	// most events skip hashing their 64-byte Flow key in flows: a 4-byte
	// key in a 4 KiB table (issue 18: by port pair, comparing Flows in an
	// 18 KiB one, it was a twentieth of `tables --json`). An ID is never
	// another flow's, so a slot needs no clearing.
	recent [flowCacheSize]flowSlot
}

const flowCacheSize = 256

type flowSlot struct {
	id uint32
	rt *route
}

// route returns ev's route, nil when its flow has none.
func (r *router) route(ev *capture.Event) *route {
	s := &r.recent[ev.ID%flowCacheSize]
	if ev.ID != 0 && s.id == ev.ID {
		return s.rt
	}
	rt := r.flows[ev.Flow]
	if rt != nil && ev.ID != 0 {
		*s = flowSlot{ev.ID, rt}
	}
	return rt
}

// route is what the router knows of one connection.
type route struct {
	proto   Proto
	decided bool
	swap    bool // the capture's client is the server (--decode-as, no SYN)

	held     []capture.Event // events of an undecided connection, data copied
	seqs     []uint64        // each held event's arrival seq (session.Index.Reserve)
	heldSize int             // bytes of those events
	c2s      []byte          // its first client bytes, for the detectors
	s2c      []byte          // a ULinkRPC connection joined mid-stream: its first server bytes
	why      string          // for a connection not decoded: the note's reason

	syn    bool                // its start was captured
	rpcBy  bool                // ULinkRPC by port or --decode-as: held only to tell the transport
	rpcSes *session.HostedConn // a ULinkRPC connection's session, hosted by the index
	hp     *decode.Protocol    // a hosted protocol's connection (ProtoHosted): its protocol
	hc     *session.HostedConn // and its state, hosted by the index
	ref    session.ConnRef     // an Unturned connection's, once it has data
}

// Bounds of what an undecided connection may make the router hold: a
// SystemSockets server does not speak before the client's first message,
// so a connection past these is not one.
// maxHeldTotal bounds the bytes held over all of them, so that many
// undecided connections at once (10,000 flows of SYNs and server bytes)
// cannot make the router hold more than a few MiB.
const (
	maxHeldBytes  = 64 << 10
	maxHeldEvents = 256
	maxHeldTotal  = 4 << 20
)

// routerOf is newRouter (register.go) with ULinkRPC's side sd, nil when
// the feed decodes no ULinkRPC.
func routerOf(ix *session.Index, sd side, as map[uint16]Proto) *router {
	r := &router{ix: ix, rp: sd, port: 27016, as: as, flows: map[capture.Flow]*route{}}
	r.dets, r.hosted = registered(sd != nil)
	if sd != nil {
		sd.Attach(ix)
	}
	if p := ix.Profile(); p != nil {
		if p.TransportPort != 0 {
			r.port = p.TransportPort
		}
	}
	return r
}

// apply routes one capture event.
func (r *router) apply(ev *capture.Event) {
	if r.rp != nil {
		r.rp.Seen(ev)
	}
	if ev.Frame > 0 {
		r.last = decode.Stamp{Frame: ev.Frame, Time: ev.Time}
	}
	if ev.Kind == capture.EventDatagram {
		if hp := r.hostedDatagram(ev.Flow.Server.Port()); hp != nil && !ev.Probe {
			r.datagramHosted(hp, ev)
			return
		}
		// The side takes a probed flow only once its first datagrams
		// show it is its own, and claims it then.
		if r.rp != nil {
			r.rp.Datagram(*ev, r.claim)
		}
		return
	}
	if ev.Flow == (capture.Flow{}) {
		Apply(r.ix, ev)
		return
	}
	if ev.Kind == capture.EventOpen {
		r.open(ev)
		return
	}
	rt := r.route(ev)
	if rt == nil {
		// An event of a flow whose open was not seen: capture opens every
		// flow first, so this is decoded as before the router existed.
		Apply(r.ix, ev)
		return
	}
	switch {
	case rt.decided && rt.proto == ProtoUnturned:
		r.pass(rt, ev)
	case rt.decided && rt.rpcSes != nil:
		r.passRPC(rt, ev)
	case rt.decided && rt.hc != nil:
		r.passHosted(rt, ev)
	case rt.decided:
		// Not decoded: its events, its own notes included, are dropped.
	default:
		r.hold(rt, *ev)
	}
	if ev.Kind == capture.EventClose {
		if !rt.decided {
			r.decide(rt, ev.Flow, ProtoNone, "it closed before its first client message showed a known protocol")
		}
		delete(r.flows, ev.Flow)
	}
}

// pass hands an event of a decoded connection to the index, turned round
// when the router chose the other side as the server.
func (r *router) pass(rt *route, ev *capture.Event) {
	if rt.swap {
		t := *ev // the caller's event keeps its flow
		ev = &t
		ev.Flow = capture.Flow{Client: ev.Flow.Server, Server: ev.Flow.Client}
		ev.FromServer = !ev.FromServer
		if ev.Kind == capture.EventOpen {
			ev.Rule = capture.RulePort
		}
	}
	applyTo(r.ix, ev, &rt.ref)
}

// turned is ev as the router sees its connection: turned round when it
// chose the other side as the server.
func turned(rt *route, ev capture.Event) capture.Event {
	if rt.swap {
		ev.Flow = capture.Flow{Client: ev.Flow.Server, Server: ev.Flow.Client}
		ev.FromServer = !ev.FromServer
	}
	return ev
}

// passRPC hands an event of a ULinkRPC connection to its session.
func (r *router) passRPC(rt *route, ev *capture.Event) {
	r.rp.Event(rt.rpcSes, turned(rt, *ev))
}

// passHosted hands an event of a hosted protocol's connection to its state
// (decode.Conn), through the index, which stamps it.
func (r *router) passHosted(rt *route, ev *capture.Event) {
	e := turned(rt, *ev)
	conn, d := rt.hc.Conn(), Dir(e.FromServer)
	switch e.Kind {
	case capture.EventData:
		rt.hc.Feed(e.Time, e.Frame, func(st decode.Stamp) { conn.Bytes(d, e.Data, st) })
	case capture.EventGap:
		rt.hc.Feed(e.Time, e.Frame, func(st decode.Stamp) { conn.Gap(d, e.Lost, st) })
	case capture.EventClose:
		rt.hc.Feed(e.Time, e.Frame, func(st decode.Stamp) { conn.End(st) })
	}
}

// hostedPort is the hosted protocol claiming TCP server port port, nil for
// none.
func (r *router) hostedPort(port uint16) *decode.Protocol {
	for _, p := range r.hosted {
		if p.Claims(port) {
			return p
		}
	}
	return nil
}

// hostedDatagram is the hosted protocol taking UDP datagrams of server port
// port (decode.Protocol.DatagramPorts), nil for none.
func (r *router) hostedDatagram(port uint16) *decode.Protocol {
	for _, p := range r.hosted {
		if slices.Contains(p.DatagramPorts, port) {
			return p
		}
	}
	return nil
}

// datagramHosted feeds a datagram of a hosted protocol's UDP flow to the
// flow's connection, made at its first datagram.
func (r *router) datagramHosted(hp *decode.Protocol, ev *capture.Event) {
	h := r.hflows[ev.Flow]
	if h == nil {
		if r.hflows == nil {
			r.hflows = map[capture.Flow]*session.HostedConn{}
		}
		if len(r.hflows) >= maxDatagramFlows {
			return
		}
		h = r.ix.OpenConn(hp, decode.Config{Conn: Conn(ev.Flow), Datagram: true})
		r.hflows[ev.Flow] = h
		r.hconns = append(r.hconns, h)
	}
	conn, d, data := h.Conn(), Dir(ev.FromServer), ev.Data
	h.FeedAt(ev.Time, ev.Frame, ev.Offset, func(st decode.Stamp) { conn.Datagram(d, data, st) })
}

// open decides what it can from the ports and the rule.
func (r *router) open(ev *capture.Event) {
	f := ev.Flow
	rt := &route{syn: ev.Rule == capture.RuleSYN}
	r.flows[f] = rt
	if ev.ID != 0 {
		r.recent[ev.ID%flowCacheSize] = flowSlot{ev.ID, rt}
	}
	cp, sp := f.Client.Port(), f.Server.Port()
	if p, ok := r.as[sp]; ok {
		r.byPort(rt, f, p, fmt.Sprintf("--decode-as %d=%s turns its port off", sp, p))
	} else if p, ok := r.as[cp]; ok {
		rt.swap = ev.Rule != capture.RuleSYN
		r.byPort(rt, f, p, fmt.Sprintf("--decode-as %d=%s turns its port off", cp, p))
	} else if sp == r.port {
		r.decide(rt, f, ProtoUnturned, "")
	} else if r.rp != nil && r.rp.OnPort(sp) {
		r.byPort(rt, f, ProtoULinkRPC, "")
	} else if hp := r.hostedPort(sp); hp != nil {
		rt.hp = hp
		r.decide(rt, f, ProtoHosted, "")
	} else if ev.Rule != capture.RuleSYN {
		r.decide(rt, f, ProtoNone, fmt.Sprintf("it is not on transport_port %d and its start was not captured, so it is not guessed", r.port))
		return
	}
	if !rt.decided {
		r.keepPending(f)
	}
	if rt.decided {
		if rt.proto == ProtoUnturned {
			r.pass(rt, ev)
		}
		return
	}
	r.keep(rt, *ev)
}

// keep holds an event of an undecided connection with the arrival seq the
// index reserves for it; the first holds the index's numbering until the
// connection is decided (session.Index.Hold), so that its messages, fed
// later, are numbered by their arrival (outputs.md "Ordering").
func (r *router) keep(rt *route, ev capture.Event) {
	s := r.ix.Reserve()
	if len(rt.seqs) == 0 {
		r.ix.Hold(s)
	}
	rt.held = append(rt.held, ev)
	rt.seqs = append(rt.seqs, s)
}

// consumesSeq reports whether feeding ev takes an arrival seq: Unturned
// data, or any event of a ULinkRPC session.
func consumesSeq(ev capture.Event, rpc bool) bool {
	return ev.Kind == capture.EventData || rpc && (ev.Kind == capture.EventGap || ev.Kind == capture.EventClose)
}

// byPort settles a connection whose protocol its port names. A ULinkRPC
// one is held until its first bytes tell its transport: with its start
// captured, an HTTP GET is a WebSocket; joined mid-stream, WebSocket
// framing in either direction (holdRPCMid).
func (r *router) byPort(rt *route, f capture.Flow, p Proto, why string) {
	if p == ProtoULinkRPC && r.rp != nil {
		rt.rpcBy = true
		return
	}
	r.decide(rt, f, p, why)
}

// holdRPC is hold for a connection known to be ULinkRPC: it is decided as
// soon as four client bytes, a gap, the close or the bounds say so.
func (r *router) holdRPC(rt *route, ev capture.Event) {
	if !rt.syn {
		r.holdRPCMid(rt, ev)
		return
	}
	if ev.Kind == capture.EventData && !ev.FromServer && len(rt.c2s) < 4 {
		rt.c2s = append(rt.c2s, ev.Data[:min(len(ev.Data), 4-len(rt.c2s))]...)
	}
	if len(rt.c2s) >= 4 || ev.Kind == capture.EventGap || ev.Kind == capture.EventClose ||
		rt.heldSize > maxHeldBytes || len(rt.held) > maxHeldEvents || r.held > maxHeldTotal {
		r.decide(rt, ev.Flow, ProtoULinkRPC, "")
	}
}

// hold keeps an event of an undecided connection and runs the detectors on
// its first client bytes.
func (r *router) hold(rt *route, ev capture.Event) {
	if ev.Kind == capture.EventData {
		ev.Data = append([]byte(nil), ev.Data...)
		rt.heldSize += len(ev.Data)
		r.held += len(ev.Data)
	}
	r.keep(rt, ev)
	if rt.rpcBy {
		r.holdRPC(rt, ev)
		return
	}
	switch {
	case ev.Kind == capture.EventGap && !ev.FromServer && len(rt.c2s) < 2:
		r.decide(rt, ev.Flow, ProtoNone, "its first client bytes were not captured")
		return
	case ev.Kind == capture.EventData && !ev.FromServer:
		rt.c2s = append(rt.c2s, ev.Data[:min(len(ev.Data), r.sniffLen()-len(rt.c2s))]...)
	}
	if v, d := detect(r.dets, rt.c2s); v == matches {
		rt.hp = d.hp
		r.decide(rt, ev.Flow, d.proto, "")
		return
	} else if v == differs {
		r.decide(rt, ev.Flow, ProtoNone, "its first client message is not a GetWorkshopFiles")
		return
	}
	switch {
	case rt.heldSize > maxHeldBytes || len(rt.held) > maxHeldEvents:
		r.decide(rt, ev.Flow, ProtoNone, "the server spoke first, which a SystemSockets server does not")
	case r.held > maxHeldTotal:
		r.decide(rt, ev.Flow, ProtoNone, fmt.Sprintf("more than %d MiB were held for connections awaiting their first client message", maxHeldTotal>>20))
	}
}

// sniffLen is the most client bytes any detector asks for.
func (r *router) sniffLen() int {
	n := 0
	for _, d := range r.dets {
		n = max(n, d.need)
	}
	return n
}

// detect runs the registry: the first detector that matches names the
// protocol; the bytes differ from every protocol when every detector says so.
func detect(dets []detector, c2s []byte) (verdict, *detector) {
	all := differs
	for i := range dets {
		switch dets[i].check(c2s) {
		case matches:
			return matches, &dets[i]
		case undecided:
			all = undecided
		}
	}
	return all, nil
}

// decide settles a connection: a decoded one gets its held events
// replayed in order, one that is not decoded one note saying why.
func (r *router) decide(rt *route, f capture.Flow, p Proto, why string) {
	rt.decided, rt.proto, rt.why = true, p, why
	held, seqs, c2s, s2c := rt.held, rt.seqs, rt.c2s, rt.s2c
	r.held -= rt.heldSize
	rt.held, rt.seqs, rt.c2s, rt.s2c, rt.heldSize = nil, nil, nil, nil, 0
	if len(seqs) > 0 {
		defer r.ix.Unhold(seqs[0])
	}
	if p == ProtoUnturned {
		for i := range held {
			if consumesSeq(held[i], false) {
				r.ix.At(seqs[i])
			}
			r.pass(rt, &held[i])
		}
		return
	}
	if p == ProtoULinkRPC && r.rp != nil {
		c := Conn(turned(rt, capture.Event{Flow: f}).Flow)
		rt.rpcSes = r.rp.Start(c, c2s, s2c, !rt.syn)
		for i := range held {
			if consumesSeq(held[i], true) {
				r.ix.At(seqs[i])
			}
			r.passRPC(rt, &held[i])
		}
		return
	}
	if p == ProtoHosted {
		c := Conn(turned(rt, capture.Event{Flow: f}).Flow)
		rt.hc = r.ix.OpenConn(rt.hp, decode.Config{Conn: c, First: c2s, Server: s2c, MidStream: !rt.syn})
		r.hconns = append(r.hconns, rt.hc)
		for i := range held {
			if consumesSeq(held[i], true) {
				r.ix.At(seqs[i])
			}
			r.passHosted(rt, &held[i])
		}
		return
	}
	if p == ProtoULinkRPC {
		why = "this command does not decode ULinkRPC"
	}
	c := Conn(f)
	if rt.swap {
		c = dissect.Conn{Client: f.Server, Server: f.Client}
	}
	r.ix.Note(c, dissect.Finding{Severity: dissect.Note, Group: dissect.Protocol, Bit: -1,
		Text: fmt.Sprintf("TCP connection not decoded as Unturned: %s; --decode-as %d=unturned forces it", why, f.Server.Port())})
}

// keepPending lists an undecided connection, first dropping the decided
// ones when they are most of the list, so that it stays as long as the
// connections actually held.
func (r *router) keepPending(f capture.Flow) {
	if len(r.pending) >= 1024 {
		kept := r.pending[:0]
		for _, g := range r.pending {
			if rt := r.flows[g]; rt != nil && !rt.decided {
				kept = append(kept, g)
			}
		}
		clear(r.pending[len(kept):])
		r.pending = kept
		if cap(r.pending) > 2048 && len(kept) < cap(r.pending)/4 {
			r.pending = append([]capture.Flow(nil), kept...)
		}
	}
	r.pending = append(r.pending, f)
}

// finish settles the connections still undecided at the end of input.
func (r *router) finish() {
	for _, f := range r.pending {
		if rt := r.flows[f]; rt != nil && !rt.decided {
			if rt.rpcBy {
				r.decide(rt, f, ProtoULinkRPC, "")
				continue
			}
			r.decide(rt, f, ProtoNone, "the capture ended before its first client message was whole")
		}
	}
	r.pending = nil
	for _, h := range r.hconns {
		h.End(r.last.Time, r.last.Frame)
	}
	if r.rp != nil {
		r.rp.Finish()
	}
}
