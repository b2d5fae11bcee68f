package rpc

import (
	"sync"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/jsontime"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// A Lazy session (Config.Lazy, issue 28) decodes each frame's envelope,
// names and pairs the record as a full session does, but leaves its
// payload to be decoded when the record is read, with the configuration
// numbering chose (the serializer and the contract type: lazy). The host
// reads Brief while it numbers and hands the record out, which decodes
// nothing; `dump --json` then decodes the payload on its encoding
// goroutine, into nothing it keeps, and writes a JSON payload's member
// fields straight from a walk of its bytes (AppendJSONOrigin); every
// other reader (Meta, Tree, Line, TreeText, Values, AllFields) gets the
// record whole, as a session that is not lazy makes it.

// Brief is Meta without Fields (decode.Briefer): what the host reads of a
// record while numbering, pairing and handing it out. For a lazy record
// its Findings lack the payload's.
func (r *Record) Brief() decode.Meta {
	return decode.Meta{N: r.N, Frame: r.Frame, Time: r.Time, Conn: r.Conn, Dir: r.Dir, Proto: Name, Name: r.Msg,
		Len: r.Len, Wire: r.Len + 4, Size: r.EnvelopeLen(), Data: r.Envelope, Findings: r.Findings,
		Pair: r.Pair, Latency: r.Latency, HasLatency: r.HasLatency}
}

// Glance is Brief's reading for its host without making a Meta
// (decode.Glancer).
func (r *Record) Glance() decode.Glance {
	return decode.Glance{N: r.N, Frame: r.Frame, Time: r.Time, Dir: r.Dir, Len: r.Len, Wire: r.Len + 4, Size: r.EnvelopeLen(),
		Data: r.Envelope, Findings: r.Findings, Pair: r.Pair, Latency: r.Latency, HasLatency: r.HasLatency}
}

// AllFields are r's fields, its payload's included: Fields, or for a lazy
// record Fields with the payload's decoded again.
func (r *Record) AllFields() []dissect.Field { return r.whole().Fields }

// records are the records of Lazy sessions handed back (Release), for
// their next frames: a stream of `dump --json` then allocates no record a
// frame (issue 28: the record was 40 % of the bytes it allocated).
var records sync.Pool

// pooled is a record handed back, or a new one; the caller sets it whole
// (keeping its Envelope's buffer if it wants it).
func pooled() *Record {
	if r, ok := records.Get().(*Record); ok {
		return r
	}
	return new(Record)
}

// Release hands r back for a later frame (decode.Releaser), when r is a
// Lazy or compact session's own record (not a Clone): its host has
// written it, or keeps it slim, and holds it no more, nor does the session
// (a host hands out a copy of an asker it may still pair, and a compact
// record's readers get copies: Expand, Restore). r is not written here, so
// that a reader of the host's that still reads its values (the feeder's
// bookkeeping after the hand-out) reads them unchanged; the session sets
// it whole when it takes it again.
func (r *Record) Release() {
	if r.pooled && r.held && r.compact {
		r.freed = true // an open asker kept slim: pooled once answered (letGo)
		return
	}
	if r.pooled {
		records.Put(r)
	}
}

// lazyPayload is how a Lazy session's records of one payload type decode
// their payloads (lazy.go), shared by them, and what their JSON records
// share besides: the session's "conn" value, encoded once, so that the
// encoding goroutine reads it here, where the feeder never writes again,
// and not from the record's Conn (issue 28).
type lazyPayload struct {
	cfg  ulinkrpc.PayloadConfig
	conn []byte
}

// lazyPayloadOf is the shared lazyPayload of type typ (nil: none).
func (s *Session) lazyPayloadOf(typ *ulinkrpc.DTO) *lazyPayload {
	if typ == nil {
		// Most payloads: no contract type.
		if s.lazyUntyped == nil {
			s.lazyUntyped = s.newLazyPayload(nil)
		}
		return s.lazyUntyped
	}
	c := s.lazies[typ]
	if c == nil {
		if s.lazies == nil {
			s.lazies = map[*ulinkrpc.DTO]*lazyPayload{}
		}
		c = s.newLazyPayload(typ)
		s.lazies[typ] = c
	}
	return c
}

// newLazyPayload is a lazyPayload of type typ (nil: none).
func (s *Session) newLazyPayload(typ *ulinkrpc.DTO) *lazyPayload {
	return &lazyPayload{cfg: ulinkrpc.PayloadConfig{Serializer: s.cfg.Serializer, Type: typ, Types: s.types},
		conn: termsafe.AppendJSONString(nil, s.conn.String())}
}

// whole is r itself unless it is bare, else a copy with its envelope's
// fields and its payload decoded, as frame and payload would have decoded
// them.
func (r *Record) whole() *Record {
	if !r.bare {
		return r
	}
	cp := new(Record)
	r.decodeInto(cp, true)
	return cp
}

// line is Line of r: for a bare record, of a copy on the stack with its
// payload decoded but neither the envelope's fields nor the payload's
// listed, nor the guesses at MemoryPack members written: all a dump line
// reads.
func (r *Record) line() string {
	if !r.bare {
		return Line(r)
	}
	var cp Record
	r.decodeInto(&cp, false)
	return Line(&cp)
}

// decodeInto sets *cp to bare record r with its payload decoded, and with
// fields its envelope's and payload's fields listed and the payload's
// findings added (a line reads neither, nor a MemoryPack cut's fields).
func (r *Record) decodeInto(cp *Record, fields bool) {
	*cp = *r
	cp.ownValues(r)
	cp.bare, cp.lazy = false, nil
	cp.pooled, cp.ownEnvelope = false, false // shares r's slices: never reused
	var env ulinkrpc.Envelope
	if fields {
		env, _ = ulinkrpc.DecodeEnvelope(r.Envelope)
		cp.Fields = env.Fields
	} else {
		env, _ = ulinkrpc.DecodeEnvelopeValues(r.Envelope)
	}
	if r.lazy == nil {
		return
	}
	p := r.decodePayload(env, !fields, nil, nil)
	cp.Payload = &p
	if fields {
		cp.Fields = appendPayloadFields(cp.Fields, p.Fields)
	}
	if len(p.Findings) > 0 && fields {
		cp.Findings = append(append(make([]dissect.Finding, 0, len(r.Findings)+len(p.Findings)), r.Findings...), p.Findings...)
		cp.payloadNotes = int32(len(p.Findings))
	}
}

// decodePayload decodes lazy record r's payload, of envelope env, as
// numbering chose (r.lazy); for writing, with neither a JSON payload's
// fields nor the text of the guesses at MemoryPack members, which its
// writer makes from the bytes or does not show, and with cut, MemoryPack
// members cut without a schema into cut (Payload.Cut), and a JSON
// payload's Value left nil (its bytes are env.Payload: appendBare) and,
// with walk, its members walked into walk as its test reads it
// (Payload.Walk).
func (r *Record) decodePayload(env ulinkrpc.Envelope, writing bool, cut *ulinkrpc.MPWalk, walk *ulinkrpc.JSONWalk) ulinkrpc.Payload {
	cfg := r.lazy.cfg
	cfg.NoJSONFields, cfg.NoGuessText, cfg.Cut, cfg.NoJSONValue = writing, writing, cut, cut != nil
	cfg.NoCutFields, cfg.Walk = writing, walk
	return ulinkrpc.DecodePayload(env.Payload, env.PayloadOff, cfg)
}

// lazyScratch is what appendBare decodes into, reused across records.
type lazyScratch struct {
	fields []dissect.Field
	walk   ulinkrpc.JSONWalk
	cut    ulinkrpc.MPWalk
	tc     jsontime.Cache
	// conns are connections' "conn" values, encoded (at most maxConns);
	// recent keeps those used last by their ports, before a map lookup
	// (hashing a Conn's addresses was a fortieth of `dump --json`).
	conns  map[dissect.Conn][]byte
	recent [64]connText
	// dirTransport are appendDirTransport's texts by direction and
	// transport, nil until made.
	dirTransport [2][4][]byte
	found        foundJSON // jsonParts.finding's
}

// dirText is appendDirTransport's text of d and t, nil for a pair it
// does not keep.
func (sc *lazyScratch) dirText(d dissect.Dir, t Transport) []byte {
	if int(d) >= len(sc.dirTransport) || int(t) >= len(sc.dirTransport[0]) {
		return nil
	}
	b := &sc.dirTransport[d][t]
	if *b == nil {
		*b = appendDirTransport(nil, d, t)
	}
	return *b
}

// maxConns bounds a lazyScratch's encoded connections.
const maxConns = 1024

// connText is a connection and its "conn" value, encoded.
type connText struct {
	c    dissect.Conn
	text []byte
}

// conn is c's "conn" value, encoded.
func (sc *lazyScratch) conn(c dissect.Conn) []byte {
	slot := &sc.recent[(c.Client.Port()^c.Server.Port()*7)&uint16(len(sc.recent)-1)]
	if slot.text != nil && slot.c == c {
		return slot.text
	}
	b := sc.connMap(c)
	*slot = connText{c, b}
	return b
}

// connMap is conn from the map.
func (sc *lazyScratch) connMap(c dissect.Conn) []byte {
	if b, ok := sc.conns[c]; ok {
		return b
	}
	if sc.conns == nil || len(sc.conns) >= maxConns {
		sc.conns = make(map[dissect.Conn][]byte)
	}
	b := termsafe.AppendJSONString(nil, c.String())
	sc.conns[c] = b
	return b
}

var lazyScratches = sync.Pool{New: func() any { return new(lazyScratch) }}

// appendBare is AppendJSONOrigin of bare record r: its envelope's fields
// and its payload decoded into scratch that is reused, and a JSON
// payload's fields written straight from a walk of its bytes.
func appendBare(dst []byte, r *Record, origin []byte) []byte {
	sc := lazyScratches.Get().(*lazyScratch)
	defer lazyScratches.Put(sc)
	parts := jsonParts{tc: &sc.tc, dirTransport: sc.dirText(r.Dir, r.Transport), found: &sc.found}
	if r.lazy != nil {
		parts.conn = r.lazy.conn
	} else {
		parts.conn = sc.conn(r.Conn) // no payload
	}
	env, exact := ulinkrpc.EnvelopeLayout(r.Envelope)
	if exact {
		// Its fields are written from its bytes (appendExactFields).
		parts.exact = &env
	} else {
		env, _ = ulinkrpc.DecodeEnvelopeInto(r.Envelope, sc.fields)
		sc.fields = env.Fields
		parts.fields = env.Fields
	}
	if r.lazy != nil {
		p := r.decodePayload(env, true, &sc.cut, &sc.walk)
		parts.payload, parts.off = &p, env.PayloadOff
		if p.Encoding == ulinkrpc.EncodingJSON {
			parts.walk = p.Walk
			parts.json = env.Payload
		}
	}
	return appendJSON(dst, r, origin, &parts)
}
