package pipeline

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// DefaultRPCPorts are the ports whose TCP connections are ULinkRPC when
// nothing else names them: the default profile's [ulinkrpc] ports
// (ulinkrpc.md 1), where the default is written; RPC.Ports overrides it.
var DefaultRPCPorts = unturned.DefaultRPCProfile().Ports.List()

// RPC is the ULinkRPC side of a feed (ulinkrpc.md 1, issue 15): the
// connections the router finds to be ULinkRPC, each fed to its own
// rpc.Session. A feed without an RPC (Feed) decodes no ULinkRPC: such
// connections get the router's one note.
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
	// DefaultRPCPorts.
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
// profile's DecodeAs names ulinkrpc, the first four.
func (p *RPC) DatagramPorts(decodeAs string) [4]uint16 { return p.datagramPorts(decodeAsMap(decodeAs)) }

// datagramPorts is DatagramPorts of the --decode-as map as (none without
// an RPC).
func (p *RPC) datagramPorts(as map[uint16]Proto) [4]uint16 {
	var out [4]uint16
	if p == nil {
		return out
	}
	ports := p.Ports
	if ports == nil {
		ports = DefaultRPCPorts
	}
	ports = slices.Clone(ports)
	for port, proto := range as {
		if proto == ProtoULinkRPC {
			ports = append(ports, port)
		}
	}
	slices.Sort(ports)
	i := 0
	for _, port := range slices.Compact(ports) {
		if proto, ok := as[port]; (!ok || proto == ProtoULinkRPC) && i < len(out) {
			out[i] = port
			i++
		}
	}
	return out
}

// datagram feeds a UDP datagram (capture.EventDatagram) to its flow's KCP
// session (ulinkrpc.md 2.3).
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
		h = p.start(Conn(ev.Flow), rpc.KCP, false)
		p.udp[ev.Flow] = h
	}
	s, d := h.Session(), Dir(ev.FromServer)
	h.Feed(ev.Time, ev.Frame, func(st rpc.Stamp) { s.Datagram(d, ev.Data, st) })
}

// NewRPC returns an RPC whose sessions use cfg.
func NewRPC(cfg rpc.Config) *RPC { return &RPC{Config: cfg} }

// RPCOf returns the RPC of a profile's [ulinkrpc] table (validated:
// ulinkrpc.md 1 and 3) naming services, methods and members with the
// contracts c (nil: none): its ports, the transform keys derived from its
// master key, its serializer.
func RPCOf(r unturned.RPCProfile, c *ulinkrpc.Contracts) (*RPC, error) {
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
	rp := NewRPC(cfg)
	rp.Ports = r.Ports.List()
	return rp, nil
}

// Sessions are the ULinkRPC connections in the order they were found.
func (p *RPC) Sessions() []*rpc.Session {
	out := make([]*rpc.Session, len(p.conns))
	for i, h := range p.conns {
		out[i] = h.Session()
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
		if r := p.ix.RPCRecord(n); r != nil {
			out = append(out, r)
		}
	}
	return out
}

// port reports whether port is a ULinkRPC port.
func (p *RPC) port(port uint16) bool {
	ports := p.Ports
	if ports == nil {
		ports = DefaultRPCPorts
	}
	return slices.Contains(ports, port)
}

// start makes the session of a connection decided as ULinkRPC.
func (p *RPC) start(c dissect.Conn, t rpc.Transport, midStream bool) *session.HostedConn {
	cfg := p.Config
	cfg.Transport, cfg.MidStream = t, midStream
	h := p.ix.OpenConn(rpc.Protocol(cfg), decode.Config{Conn: c})
	p.conns = append(p.conns, h)
	return h
}

// event feeds one event of a ULinkRPC connection (already turned round
// when the router chose the other side as the server). Capture notes about
// the flow (retransmissions, caps) are not kept: a session has no place
// for findings from outside it.
func (p *RPC) event(h *session.HostedConn, ev capture.Event) {
	s, d := h.Session(), Dir(ev.FromServer)
	switch ev.Kind {
	case capture.EventData:
		h.FeedAt(ev.Time, ev.Frame, ev.Offset, func(st rpc.Stamp) { s.Bytes(d, ev.Data, st) })
	case capture.EventGap:
		h.Feed(ev.Time, ev.Frame, func(st rpc.Stamp) { s.Gap(d, ev.Lost, st) })
	case capture.EventClose:
		h.Feed(ev.Time, ev.Frame, func(st rpc.Stamp) { s.End(st) })
	}
}

// seen keeps the stamp of the latest event, at which sessions still open
// end.
func (p *RPC) seen(ev *capture.Event) {
	if ev.Frame > 0 {
		p.last = rpc.Stamp{Frame: ev.Frame, Time: ev.Time}
	}
}

// finish ends every session (End is idempotent).
func (p *RPC) finish() {
	for _, h := range p.conns {
		h.End(p.last.Time, p.last.Frame)
	}
}

// rpcNeed is the most client bytes the ULinkRPC detector looks at: a
// first frame longer than this is not recognised by content.
const rpcNeed = 16 << 10

// rpcTransport tells a ULinkRPC connection's transport from its first
// client bytes: an HTTP GET is a WebSocket upgrade, anything else the
// length-prefixed TCP stream.
func rpcTransport(c2s []byte) rpc.Transport {
	if bytes.HasPrefix(c2s, []byte("GET ")) {
		return rpc.WebSocket
	}
	return rpc.TCP
}

// detectULinkRPC (ulinkrpc.md 1, by content): the first client bytes are a
// 4-byte big-endian length prefix and a frame that parses exactly (plain,
// or with the transform layer's flags byte or gzip), or an HTTP GET asking
// for a WebSocket upgrade whose first client message is such a frame.
func detectULinkRPC(c2s []byte) verdict {
	get := []byte("GET ")
	switch {
	case len(c2s) < len(get) && bytes.HasPrefix(get, c2s) && len(c2s) > 0:
		return undecided
	case bytes.HasPrefix(c2s, get):
		return detectRPCUpgrade(c2s)
	}
	return detectRPCFrame(c2s)
}

// detectRPCFrame checks one length-prefixed frame at the start of b.
func detectRPCFrame(b []byte) verdict {
	// A length below rpcNeed starts 00 00 00–3f: decided from the first
	// bytes, as early as the GetWorkshopFiles detector decides.
	switch {
	case len(b) >= 1 && b[0] != 0, len(b) >= 2 && b[1] != 0, len(b) >= 3 && int(b[2]) > (rpcNeed-4)>>8:
		return differs
	case len(b) < 4:
		return undecided
	}
	n := int(binary.BigEndian.Uint32(b))
	if n == 0 || n > rpcNeed-4 {
		return differs
	}
	if len(b) >= 5 && !plausibleFirst(b[4]) {
		return differs
	}
	if len(b) < 4+n {
		return undecided
	}
	switch ulinkrpc.Classify(b[4 : 4+n]) {
	case ulinkrpc.ClassPlain, ulinkrpc.ClassFlags, ulinkrpc.ClassGzip:
		return matches
	}
	return differs
}

// plausibleFirst: a frame starts with its type (1–5), a flags byte of 0
// (transform on) or 1 (gzip).
func plausibleFirst(b byte) bool { return b <= 5 }

// detectRPCUpgrade checks an HTTP upgrade to a WebSocket and the first
// client WebSocket frame after it: a binary frame (masked, as a client's
// are) whose payload opens with a ULinkRPC frame.
func detectRPCUpgrade(b []byte) verdict {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) >= rpcNeed {
			return differs
		}
		return undecided
	}
	if !bytes.Contains(bytes.ToLower(b[:end]), []byte("upgrade: websocket")) {
		return differs
	}
	ws := b[end+4:]
	if len(ws) < 2 {
		return undecided
	}
	if ws[0]&0x0f != 2 || ws[1]&0x80 == 0 { // binary, masked
		return differs
	}
	n, pos := int(ws[1]&0x7f), 2
	switch n {
	case 126:
		if len(ws) < 4 {
			return undecided
		}
		n, pos = int(binary.BigEndian.Uint16(ws[2:])), 4
	case 127:
		return differs // a first message past 64 KiB: not looked at
	}
	if len(ws) < pos+4 {
		return undecided
	}
	mask := ws[pos : pos+4]
	pos += 4
	payload := ws[pos:min(len(ws), pos+n)]
	plain := make([]byte, len(payload))
	for i, c := range payload {
		plain[i] = c ^ mask[i&3]
	}
	v := detectRPCFrame(plain)
	if v == undecided && len(payload) == n {
		// The frame runs on in a later WebSocket message: the prefix and
		// the type were plausible.
		return matches
	}
	return v
}
