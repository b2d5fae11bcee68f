package infer

import (
	"slices"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// scope says which messages a stage of the search judges: each stage adds
// the messages whose reading depends on the keys it decides (wire.md order).
type scope int

const (
	scopeHandshake scope = iota + 1 // GetWorkshopFiles, DownloadWorkshopFiles
	scopeEnums                      // + every other message's enum, and vanilla bodies
	scopeHeaders                    // + Invoke Message Listener headers
	scopeNegotiate                  // + Negotiate Listener Details
)

// kindTally counts inexact messages per kind (the evidence of a claim).
type kindTally [64]int

// evaluator reads the sample under candidate profiles.
type evaluator struct {
	s       *sample
	d       unturned.Decoded
	decodes int // messages decoded
	// limit bounds decodes (< 0: no bound); a reading that reaches it
	// stops and sets over, and every later reading returns at once.
	limit int
	over  bool
	// The listener IDs a connection defined so far (conn), kept to
	// reuse their arrays.
	servers, clients, s2c []uint32
	names                 []idName
}

// idName is a listener ID with the type name a message gave it.
type idName struct {
	server bool
	id     uint32
	name   []byte
}

// observer sees each message decoded (a search reads values off them).
type observer func(m *smsg, d *unturned.Decoded)

// eval returns how badly p reads the sample within sc (wInexact for each
// message it leaves inexact, wOpaque for each opaque reading),
// tallied per kind into t when t is not nil, each message shown to obs when
// obs is not nil.
func (e *evaluator) eval(p *unturned.Profile, sc scope, t *kindTally, obs observer) int {
	bad := 0
	for _, c := range e.s.conns {
		if c.start || sc == scopeHandshake {
			bad += e.conn(p, c, sc, c.start, [2]bool{}, t, obs)
			continue
		}
		// A connection whose start was not captured: each direction is
		// read widened or not, whichever reads it better (wire.md 4.6);
		// widened first, which a tie keeps (a USMN message whose number
		// fits the vanilla width reads either way until its body is
		// judged).
		best, bi := -1, 0
		for i := 3; i >= 0; i-- {
			w := [2]bool{i&1 != 0, i&2 != 0}
			if b := e.conn(p, c, sc, false, w, nil, nil); best < 0 || b < best {
				best, bi = b, i
			}
		}
		if t != nil || obs != nil {
			e.conn(p, c, sc, false, [2]bool{bi&1 != 0, bi&2 != 0}, t, obs)
		}
		bad += best
	}
	return bad
}

// strict kinds have a fixed layout: any finding (bits after the body
// included) says the message was misread.
var strict = map[unturned.Kind]bool{
	unturned.KindServerPingRequest: true, unturned.KindServerPingResponse: true, unturned.KindGracefullyDisconnect: true,
	unturned.KindClientPingRequest: true, unturned.KindClientPingResponse: true, unturned.KindShutdown: true,
	unturned.KindPlayerDisconnected: true, unturned.KindVerify: true, unturned.KindAccepted: true,
	unturned.KindRejected: true, unturned.KindBanned: true, unturned.KindKicked: true, unturned.KindAdmined: true,
	unturned.KindUnadmined: true, unturned.KindQueuePositionChanged: true,
}

// conn reads one connection's messages in order under p, with the state
// wire.md 4 gives them: widened once both markers were seen (or as w says
// for a connection whose start was not captured), Serverside_ID_Bit_Count
// in force from the server's marker and each S→C definition.
func (e *evaluator) conn(p *unturned.Profile, c *sconn, sc scope, start bool, w [2]bool, t *kindTally, obs observer) int {
	bad := 0
	var marker [2]bool
	var st unturned.State
	d := &e.d
	// In a connection captured from its start, every listener ID is
	// defined before it is used (wire.md 4.3, 4.4): a reading that uses
	// one no message defined misreads the header (a definition read as a
	// bare ID). The server's own invokes are judged with the headers (the
	// first S→C invoke of a listener carries its definition), the rest
	// with the negotiate stage, which reads the TellClientListenerId and
	// RequestServerListenerId that define them.
	check := start && sc >= scopeNegotiate
	checkS2C := start && sc >= scopeHeaders
	servers, clients := e.servers[:0], e.clients[:0]
	s2c := e.s2c[:0]
	// Every connection: a listener ID names one type wherever it is
	// defined (S→C and C→S definitions, TellClientListenerId,
	// RequestServerListenerId; wire.md 4.5): a reading that gives one ID
	// two type names misreads one of them.
	names := e.names[:0]
	defer func() { e.servers, e.clients, e.s2c, e.names = servers, clients, s2c, names }()
	named := func(server bool, id uint32, name []byte) bool {
		if sc < scopeNegotiate {
			return true
		}
		for _, n := range names {
			if n.server == server && n.id == id {
				return string(n.name) == string(name)
			}
		}
		names = append(names, idName{server, id, name})
		return true
	}
	for i := range c.msgs {
		m := &c.msgs[i]
		if sc == scopeHandshake && !m.det {
			continue
		}
		st.Widened = w[m.dir]
		if start {
			st.Widened = marker[0] && marker[1]
		}
		if !e.spend() {
			return bad
		}
		reset(d)
		unturned.Decode(p, m.dir, st, m.data, nil, d)
		if obs != nil && !m.det {
			obs(m, d)
		}
		ok := true
		switch {
		case m.det:
			ok = worst(d) < dissect.Warn && d.TrailerBits == 0
			if ok && d.HasMarker {
				marker[m.dir] = true
				if m.dir == dissect.S2C {
					st.IDBits, st.IDKnown = d.Marker.IDBits, true
				}
			}
		case d.Kind == unturned.KindUnknown:
			ok = false
		case d.Kind == unturned.KindInvokeMessageListener:
			if sc < scopeHeaders {
				continue
			}
			ok = worst(d) < dissect.Warn
			h := &d.Invoke
			if ok && m.dir == dissect.S2C && h.HasDefinition {
				st.IDBits, st.IDKnown = h.IDBits, true
			}
			if ok && checkS2C && m.dir == dissect.S2C {
				if h.HasDefinition {
					s2c = append(s2c, h.ServerID)
				} else {
					ok = slices.Contains(s2c, h.ServerID)
				}
			}
			if ok && h.HasDefinition {
				id := h.ServerID
				if h.IsClientID {
					id = h.ClientID
				}
				ok = named(!h.IsClientID, id, h.TypeBytes)
			}
			switch {
			case !ok || !check:
			case h.HasDefinition && h.IsClientID:
				clients = append(clients, h.ClientID)
			case h.HasDefinition:
				servers = append(servers, h.ServerID)
			case h.IsClientID:
				ok = slices.Contains(clients, h.ClientID)
			default:
				ok = slices.Contains(servers, h.ServerID)
			}
		case d.Kind == unturned.KindNegotiateListenerDetails:
			if sc < scopeNegotiate {
				continue
			}
			ok = len(d.Findings) == 0
			if !ok && !st.IDKnown {
				ok = e.anyCount(p, m, st)
			}
			n := &d.Negotiate
			switch {
			case !ok:
			case n.Mode == unturned.TellClientListenerID:
				ok = named(true, n.ServerID, n.TypeBytes) && named(false, n.ClientID, n.TypeBytes)
			case n.Mode == unturned.RequestServerListenerID:
				ok = named(false, n.ClientID, n.TypeBytes)
			}
			switch {
			case !ok || !check:
			case n.Mode == unturned.TellClientListenerID:
				ok = slices.Contains(clients, n.ClientID)
				servers = append(servers, n.ServerID)
			case n.Mode == unturned.RequestServerListenerID:
				clients = append(clients, n.ClientID)
			case n.Mode == unturned.TellClientMissingListener:
				ok = slices.Contains(clients, n.ClientID)
			case n.Mode == unturned.TellServerMissingListener:
				ok = slices.Contains(servers, n.ServerID)
			}
		case d.Kind == unturned.KindServerInvokeMethod || d.Kind == unturned.KindClientInvokeMethod:
			// The method count is not searched (undecidable): an index
			// out of the profile's range is not held against it.
			ok = worst(d) < dissect.Error
		case strict[d.Kind]:
			ok = len(d.Findings) == 0
		default:
			ok = worst(d) < dissect.Warn
		}
		if !ok {
			bad += wInexact
			if t != nil {
				t[min(int(d.Kind), len(t)-1)]++
			}
		} else if !start && sc >= scopeEnums && longBody[d.Kind] && d.Enum.Bits > 0 && len(m.data) > 1 {
			// Where the start was not captured, a reading that turns
			// a message into a build-specific body the decoder cannot
			// check (wire.md 3) is less plausible than one that reads
			// it whole (wire.md 4.6: the known enum values, complete
			// headers): a wrong widening hides USMN messages so.
			bad += wOpaque
		}
	}
	return bad
}

// Score weights of the search: a message read inexactly, and one of a
// connection whose start was not captured read as an opaque body.
const (
	wInexact = 2
	wOpaque  = 1
)

// longBody kinds are shown as undecoded build-specific bits (wire.md 3).
var longBody = map[unturned.Kind]bool{
	unturned.KindReadyToConnect: true, unturned.KindAuthenticate: true, unturned.KindServerBattlEye: true,
	unturned.KindValidateAssets: true, unturned.KindPlayerConnected: true, unturned.KindClientBattlEye: true,
	unturned.KindReplicateConfig: true,
}

// spend counts one message decode, or says the bound forbids it (over).
func (e *evaluator) spend() bool {
	if e.over || e.limit >= 0 && e.decodes >= e.limit {
		e.over = true
		return false
	}
	e.decodes++
	return true
}

// anyCount says whether a negotiate message reads exactly under some
// Serverside_ID_Bit_Count while the count in force is unknown (a
// connection whose start was not captured): wire.md 4.6 infers it from
// these very messages.
func (e *evaluator) anyCount(p *unturned.Profile, m *smsg, st unturned.State) bool {
	d := &e.d
	for c := 0; c < 1<<p.IDBitCountBitCount && c <= 32; c++ {
		st.IDBits = c
		if !e.spend() {
			return false
		}
		reset(d)
		unturned.Decode(p, m.dir, st, m.data, nil, d)
		if len(d.Findings) == 0 {
			return true
		}
	}
	return false
}

func worst(d *unturned.Decoded) dissect.Severity {
	w := dissect.Severity(0)
	for _, f := range d.Findings {
		w = max(w, f.Severity)
	}
	return w
}

// reset readies d for Decode, which wants a reset Decoded; the findings'
// array is kept.
func reset(d *unturned.Decoded) {
	fs := d.Findings[:0]
	*d = unturned.Decoded{}
	d.Findings = fs
}
