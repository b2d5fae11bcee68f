package capture

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"net/netip"
	"slices"
	"strings"
)

// udpState classifies UDP on the game ports (wire.md §2): SteamNetworkingSockets
// on the transport port is counted per peer and explained once; A2S_INFO
// replies from the query port are decoded for the server name and its
// <net>…</net> transport tag; everything else is counted and ignored.
// Peers and A2S sources are each bounded by Options.MaxFlows (spoofed
// source ports are free); datagrams from the others are counted, and said
// once at the end.
type udpState struct {
	sns   map[netip.AddrPort]int64  // datagrams per peer
	order []netip.AddrPort          // peers in order of first datagram
	a2s   map[netip.AddrPort]uint64 // hash of the last reply's note, per source
	seed  maphash.Seed

	snsOver, a2sOver int64 // datagrams, replies from peers and sources past the bound

	// probe counts, per UDP flow probed (Options.ProbeDatagrams), the
	// datagrams yielded so far, or claimed; keyed in the flow's own
	// orientation. Bounded by Options.MaxProbeFlows.
	probe     map[Flow]uint8
	probeOver int64 // datagrams of flows past the bound
}

// claimed marks a claimed flow in udpState.probe.
const claimed = 255

// DefaultMaxProbeFlows is the default of Options.MaxProbeFlows.
const DefaultMaxProbeFlows = 4096

// maxPeerNotes bounds the per-peer summary at the end of input.
const maxPeerNotes = 20

func (u *udpState) init() {
	u.sns = map[netip.AddrPort]int64{}
	u.a2s = map[netip.AddrPort]uint64{}
	u.seed = maphash.MakeSeed()
	u.probe = map[Flow]uint8{}
}

func (u *udpState) datagram(e *engine, d *linkDecoder) {
	src, dst := addrPort(d.src, uint16(d.udp.SrcPort)), addrPort(d.dst, uint16(d.udp.DstPort))
	game, query := e.opt.TransportPort, e.opt.QueryPort
	switch {
	case src.Port() == game || dst.Port() == game:
		e.stats.UDPGame++
		peer, server := src, dst
		if src.Port() == game && dst.Port() != game {
			peer, server = dst, src
		}
		switch n, seen := u.sns[peer]; {
		case seen:
			u.sns[peer] = n + 1
		case len(u.sns) < e.opt.MaxFlows:
			u.sns[peer] = 1
			u.order = append(u.order, peer)
		default:
			u.snsOver++
		}
		e.note("sns", Flow{}, LevelWarn,
			"UDP on %d from %s is SteamNetworkingSockets (encrypted; server %s): it cannot be inspected; run the server with -NetTransport SystemSockets to use TCP on port %d",
			game, peer, server, game)
	case src.Port() == query:
		e.stats.UDPQuery++
		info, ok := parseA2SInfo(d.body)
		if !ok {
			return
		}
		text := fmt.Sprintf("A2S_INFO from %s: name %q, transport %s", src, info.name, info.transport())
		// A hash, not the text: a name may take most of a datagram.
		h := maphash.String(u.seed, text)
		switch last, seen := u.a2s[src]; {
		case seen && last == h:
			return
		case !seen && len(u.a2s) >= e.opt.MaxFlows:
			u.a2sOver++
			return
		}
		u.a2s[src] = h
		e.noteOf(noteA2S, "", Flow{}, LevelNote, "%s", text)
	case dst.Port() == query:
		e.stats.UDPQuery++
	default:
		e.stats.UDPNonGame++
		switch ports := e.opt.DatagramPorts[:]; {
		case dst.Port() != 0 && slices.Contains(ports, dst.Port()):
			e.datagram(Event{Kind: EventDatagram, Flow: Flow{Client: src, Server: dst}}, d.body)
		case src.Port() != 0 && slices.Contains(ports, src.Port()):
			e.datagram(Event{Kind: EventDatagram, Flow: Flow{Client: dst, Server: src}, FromServer: true}, d.body)
		case e.opt.ProbeDatagrams > 0:
			u.probed(e, src, dst, d.body)
		}
	}
}

// datagram queues ev, a datagram, with body, the UDP payload in the frame,
// as its Data (not a copy: valid until the next Next call, Event.Data) and,
// when body is a run of the input file, its offset there (Event.Offset).
// A copy of each was most of the garbage of a KCP capture (issue 28).
func (e *engine) datagram(ev Event, body []byte) {
	ev.Offset = e.offset(body)
	ev.Data = body
	e.push(ev)
}

// probed yields a datagram of a probed or claimed flow (Options.ProbeDatagrams).
func (u *udpState) probed(e *engine, src, dst netip.AddrPort, body []byte) {
	f, fromServer := Flow{Client: src, Server: dst}, false
	n, seen := u.probe[f]
	if !seen {
		if m, ok := u.probe[Flow{Client: dst, Server: src}]; ok {
			f, fromServer, n, seen = Flow{Client: dst, Server: src}, true, m, true
		}
	}
	switch {
	case n == claimed:
		e.datagram(Event{Kind: EventDatagram, Flow: f, FromServer: fromServer}, body)
		return
	case !seen && len(u.probe) >= u.maxProbe(e):
		u.probeOver++
		return
	case int(n) >= e.opt.ProbeDatagrams:
		return
	}
	u.probe[f] = n + 1
	e.datagram(Event{Kind: EventDatagram, Flow: f, FromServer: fromServer, Probe: true}, body)
}

func (u *udpState) maxProbe(e *engine) int {
	if e.opt.MaxProbeFlows > 0 {
		return e.opt.MaxProbeFlows
	}
	return DefaultMaxProbeFlows
}

// claim marks f claimed (DatagramClaimer).
func (u *udpState) claim(e *engine, f Flow) {
	if _, seen := u.probe[Flow{Client: f.Server, Server: f.Client}]; seen {
		f = Flow{Client: f.Server, Server: f.Client}
	} else if _, seen := u.probe[f]; !seen && len(u.probe) >= u.maxProbe(e) {
		return
	}
	u.probe[f] = claimed
}

func (u *udpState) finish(e *engine) {
	if u.probeOver > 0 {
		e.note("", Flow{}, LevelWarn, "UDP flows probed for a handshake: more than %d flows; %d datagrams of the later ones not looked at",
			u.maxProbe(e), u.probeOver)
	}
	if u.snsOver > 0 {
		e.note("", Flow{}, LevelWarn, "SteamNetworkingSockets UDP from more than %d peers: %d datagrams from the later ones were counted, not per peer",
			e.opt.MaxFlows, u.snsOver)
	}
	if u.a2sOver > 0 {
		e.note("", Flow{}, LevelWarn, "A2S_INFO replies from more than %d sources: %d replies from the later ones not shown",
			e.opt.MaxFlows, u.a2sOver)
	}
	for i, p := range u.order {
		if i == maxPeerNotes {
			e.note("", Flow{}, LevelNote, "SteamNetworkingSockets UDP: %d more peers not listed", len(u.order)-i)
			break
		}
		e.note("", Flow{}, LevelNote, "SteamNetworkingSockets UDP with %s: %d datagrams", p, u.sns[p])
	}
}

// a2sInfo is the part of an A2S_INFO reply usmnscope shows.
type a2sInfo struct {
	name     string
	keywords string // the game tags, where Unturned puts <net>…</net>
}

// transport returns the <net>…</net> tag of the keywords, or "no <net> tag".
func (a a2sInfo) transport() string {
	i := strings.Index(a.keywords, "<net>")
	if i < 0 {
		return "no <net> tag"
	}
	j := strings.Index(a.keywords[i:], "</net>")
	if j < 0 {
		return "no <net> tag"
	}
	return a.keywords[i : i+j+len("</net>")]
}

// parseA2SInfo decodes a single-packet A2S_INFO reply (Valve's Server Queries
// page): FF FF FF FF 'I', protocol, name, map, folder, game (C strings), app
// ID u16, players, max players, bots, type, environment, visibility, VAC
// (bytes), version (C string), then an extra-data flag byte whose 0x80,
// 0x10, 0x40 fields come before the 0x20 keywords. Split replies (FF FF FF
// FE) are not reassembled.
func parseA2SInfo(b []byte) (a2sInfo, bool) {
	var info a2sInfo
	if len(b) < 6 || !bytes.Equal(b[:5], []byte{0xff, 0xff, 0xff, 0xff, 'I'}) {
		return info, false
	}
	b = b[6:]
	cstr := func() (string, bool) {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return "", false
		}
		s := string(b[:i])
		b = b[i+1:]
		return s, true
	}
	skip := func(n int) bool {
		if len(b) < n {
			return false
		}
		b = b[n:]
		return true
	}
	var ok bool
	if info.name, ok = cstr(); !ok {
		return info, false
	}
	for range 3 { // map, folder, game
		if _, ok = cstr(); !ok {
			return info, true
		}
	}
	if !skip(2 + 7) {
		return info, true
	}
	if _, ok = cstr(); !ok || len(b) < 1 {
		return info, true
	}
	edf := b[0]
	b = b[1:]
	if edf&0x80 != 0 && !skip(2) || edf&0x10 != 0 && !skip(8) {
		return info, true
	}
	if edf&0x40 != 0 {
		if !skip(2) {
			return info, true
		}
		if _, ok = cstr(); !ok {
			return info, true
		}
	}
	if edf&0x20 != 0 {
		info.keywords, _ = cstr()
	}
	return info, true
}
