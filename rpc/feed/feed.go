package feed

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// DefaultPorts are the ports whose TCP connections are ULinkRPC when
// nothing else names them: the default profile's [ulinkrpc] ports
// (ulinkrpc.md 1), where the default is written; RPC.Ports overrides it.
var DefaultPorts = unturned.DefaultRPCProfile().Ports.List()

// RPC is the ULinkRPC side of a feed (ulinkrpc.md 1, issue 15): the
// connections the router (internal/pipeline) finds to be ULinkRPC, each
// fed to its own rpc.Session. A feed without an RPC decodes no ULinkRPC:
// such connections get the router's one note.
//
// Numbering: the index hosts every ULinkRPC connection (session.OpenConn
// of rpc.Protocol with the connection's transport)
// and numbers its records with the Unturned messages, by arrival across
// the whole capture (outputs.md "Ordering"): one n for both protocols.
type RPC struct {
	// Config is every session's configuration; Transport and MidStream
	// are set per connection, Yield by the index.
	Config rpc.Config
	// Ports are the server ports decoded as ULinkRPC; nil means
	// DefaultPorts.
	Ports []uint16

	ix      *session.Index // the feed's index, which hosts the sessions
	conns   []*session.HostedConn
	last    rpc.Stamp
	udp     map[capture.Flow]*session.HostedConn // KCP sessions by UDP flow
	udpOver int64                                // datagrams of flows past maxDatagramFlows
}

// maxDatagramFlows bounds the UDP flows given a KCP session.
const maxDatagramFlows = 1024

// DatagramPorts are the UDP ports whose datagrams capture must yield
// (capture.Options.DatagramPorts) for KCP: the ULinkRPC ports and those a
// profile's DecodeAs names ulinkrpc, less those it names another
// protocol, the first four (none without an RPC).
func (p *RPC) DatagramPorts(decodeAs string) [4]uint16 {
	var out [4]uint16
	if p == nil {
		return out
	}
	as := named(decodeAs)
	ports := p.Ports
	if ports == nil {
		ports = DefaultPorts
	}
	ports = slices.Clone(ports)
	for port, ours := range as {
		if ours {
			ports = append(ports, port)
		}
	}
	slices.Sort(ports)
	i := 0
	for _, port := range slices.Compact(ports) {
		if ours, ok := as[port]; (!ok || ours) && i < len(out) {
			out[i] = port
			i++
		}
	}
	return out
}

// named reads a profile's DecodeAs (unturned.Profile.DecodeAs: PORT=NAME
// values joined by commas, as the host's --decode-as check writes them)
// into whether each port it names is named ULinkRPC. The host parses the
// flag; this reads only the ports, so that the RPC names no host type.
// Values that do not read are skipped, as the host skips them.
func named(decodeAs string) map[uint16]bool {
	if decodeAs == "" {
		return nil
	}
	m := map[uint16]bool{}
	for _, v := range strings.Split(decodeAs, ",") {
		ps, name, ok := strings.Cut(v, "=")
		port, err := strconv.ParseUint(strings.TrimSpace(ps), 10, 16)
		if !ok || err != nil || port == 0 {
			continue
		}
		m[uint16(port)] = strings.TrimSpace(name) == rpc.Name
	}
	return m
}

// Datagram takes a UDP datagram (capture.EventDatagram) the router does
// not give a hosted protocol: a probed flow's is ULinkRPC only once its
// handshake shows it (kcpStart, which claims the flow with claim, nil when
// the source does not probe); later ones come claimed, not probed. It
// feeds its flow's KCP session (ulinkrpc.md 2.3) and follows a UACK that
// moves the session to another port (kcpMoved).
func (p *RPC) Datagram(ev capture.Event, claim func(capture.Flow)) {
	if ev.Probe && !kcpStart(ev, claim) {
		return
	}
	p.datagram(ev)
	p.kcpMoved(ev, claim)
}

// datagram feeds a UDP datagram to its flow's KCP session.
func (p *RPC) datagram(ev capture.Event) {
	if p.udp == nil {
		p.udp = make(map[capture.Flow]*session.HostedConn)
	}
	h := p.udp[ev.Flow]
	if h == nil {
		if len(p.udp) >= maxDatagramFlows {
			p.udpOver++
			return
		}
		h = p.start(dissect.Conn(ev.Flow), rpc.KCP, false)
		p.udp[ev.Flow] = h
	}
	s, d := sessionOf(h), dir(ev.FromServer)
	h.FeedAt(ev.Time, ev.Frame, ev.Offset, func(st rpc.Stamp) { s.Datagram(d, ev.Data, st) })
}

// New returns an RPC whose sessions use cfg.
func New(cfg rpc.Config) *RPC { return &RPC{Config: cfg} }

// Of returns the RPC of a profile's [ulinkrpc] table (validated:
// ulinkrpc.md 1 and 3) naming services, methods and members with the
// contracts c (nil: none): its ports, the transform keys derived from its
// master key, its serializer.
func Of(r unturned.RPCProfile, c *ulinkrpc.Contracts) (*RPC, error) {
	cfg := rpc.Config{Contracts: c}
	master, err := r.MasterKey()
	if err != nil {
		return nil, fmt.Errorf("ulinkrpc.key: %w", err)
	}
	if master != nil {
		d := ulinkrpc.HKDF
		if r.KeyDerivation == "sha256" {
			d = ulinkrpc.SHA256
		}
		k := ulinkrpc.DeriveKeys(master, d)
		cfg.Transform.Keys = &k
	}
	switch r.Serializer {
	case "json":
		cfg.Serializer = ulinkrpc.SerializerJSON
	case "memorypack":
		cfg.Serializer = ulinkrpc.SerializerMemoryPack
	}
	rp := New(cfg)
	rp.Ports = r.Ports.List()
	return rp, nil
}

// Sessions are the ULinkRPC connections in the order they were found.
func (p *RPC) Sessions() []*rpc.Session {
	out := make([]*rpc.Session, len(p.conns))
	for i, h := range p.conns {
		out[i] = sessionOf(h)
	}
	return out
}

// Records are the ULinkRPC records the index holds, by n (a full index:
// a streaming one keeps none once handed out).
func (p *RPC) Records() []*rpc.Record {
	var out []*rpc.Record
	if p.ix == nil {
		return nil
	}
	for n := 1; n <= p.ix.Len(); n++ {
		if r, _ := p.ix.Record(n).(*rpc.Record); r != nil {
			out = append(out, r)
		}
	}
	return out
}

// sessionOf is the session of h, a connection start opened.
func sessionOf(h *session.HostedConn) *rpc.Session { return h.Conn().(rpc.Hosted).Session }

// Attach makes ix the index that hosts the sessions: the feed's, which the
// router gives before the first event.
func (p *RPC) Attach(ix *session.Index) { p.ix = ix }

// OnPort reports whether port is a ULinkRPC port.
func (p *RPC) OnPort(port uint16) bool {
	ports := p.Ports
	if ports == nil {
		ports = DefaultPorts
	}
	return slices.Contains(ports, port)
}

// Start makes the session of a connection the router decided is ULinkRPC,
// c turned as the router sees it, from the first bytes it held of each
// direction: with its start captured (mid false), an HTTP GET is a
// WebSocket upgrade, anything else the length-prefixed stream; joined
// mid-stream, the framing either direction shows (midTransport).
func (p *RPC) Start(c dissect.Conn, c2s, s2c []byte, mid bool) *session.HostedConn {
	t := transport(c2s)
	if mid {
		t, _ = midTransport(c2s, s2c, true)
	}
	return p.start(c, t, mid)
}

// start makes the session of a connection decided as ULinkRPC.
func (p *RPC) start(c dissect.Conn, t rpc.Transport, midStream bool) *session.HostedConn {
	cfg := p.Config
	cfg.Transport, cfg.MidStream = t, midStream
	h := p.ix.OpenConn(rpc.Protocol(cfg), decode.Config{Conn: c})
	p.conns = append(p.conns, h)
	return h
}

// Event feeds one event of a ULinkRPC connection (already turned round
// when the router chose the other side as the server). Capture notes about
// the flow (retransmissions, caps) are not kept: a session has no place
// for findings from outside it.
func (p *RPC) Event(h *session.HostedConn, ev capture.Event) {
	s, d := sessionOf(h), dir(ev.FromServer)
	switch ev.Kind {
	case capture.EventData:
		h.FeedAt(ev.Time, ev.Frame, ev.Offset, func(st rpc.Stamp) { s.Bytes(d, ev.Data, st) })
	case capture.EventGap:
		h.Feed(ev.Time, ev.Frame, func(st rpc.Stamp) { s.Gap(d, ev.Lost, st) })
	case capture.EventClose:
		h.Feed(ev.Time, ev.Frame, func(st rpc.Stamp) { s.End(st) })
	}
}

// MayClaim reports whether Datagram may claim a flow on ev: only on a
// KCP handshake, a UKCP that starts a session (kcpStart) or a UACK that
// moves one (kcpMoved). It reads ev alone, as the router's read-ahead asks.
func (p *RPC) MayClaim(ev *capture.Event) bool {
	if ev.Kind != capture.EventDatagram {
		return false
	}
	_, ok := ulinkrpc.ParseHandshake(ev.Data)
	return ok
}

// Seen keeps the stamp of the latest event, at which sessions still open
// end.
func (p *RPC) Seen(ev *capture.Event) {
	if ev.Frame > 0 {
		p.last = rpc.Stamp{Frame: ev.Frame, Time: ev.Time}
	}
}

// Finish ends every session (End is idempotent) at the end of the feed,
// and notes on the index the datagrams of UDP flows past the bound.
func (p *RPC) Finish() {
	for _, h := range p.conns {
		h.End(p.last.Time, p.last.Frame)
	}
	if p.udpOver > 0 {
		p.ix.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
			Text: fmt.Sprintf("ULinkRPC KCP: UDP flows past %d: %d datagrams not decoded", maxDatagramFlows, p.udpOver)})
	}
}

// dir is the direction of bytes the server sent (fromServer) or received.
func dir(fromServer bool) dissect.Dir {
	if fromServer {
		return dissect.S2C
	}
	return dissect.C2S
}
