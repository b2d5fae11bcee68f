package report

import (
	"strconv"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// Adapter turns the host's messages into Records: the one place that
// knows session.Message (package doc). It keeps each connection's text
// once. The zero value is ready.
type Adapter struct {
	conns  map[dissect.Conn]string
	recent [64]connText // by the ports: what conns holds, without hashing the Conn
	// parts caches the part of a span name per classifier: a message
	// kind's span names are the decoder's few constant strings, which
	// compare equal by pointer, so a hit costs no string switch.
	parts [3][64]namePart
	// spans and dec are Tally's scratch for decoding a message again.
	spans netpak.Spans
	dec   unturned.Decoded
}

// namePart is a span name and its part.
type namePart struct {
	name string
	part Part
}

// Classifiers by index in Adapter.parts.
const (
	classVanilla = iota
	classInvoke
	classNegotiate
)

var classifiers = [3]func(string) Part{classVanilla: vanillaClass, classInvoke: invokeClass, classNegotiate: negotiateClass}

// split is SplitSpans with classifier c, through the name cache: the same
// parts, bit for bit.
func (a *Adapter) split(s *Split, spans []netpak.Span, bits, c int) {
	cache, class := &a.parts[c], classifiers[c]
	hi := 0 // bits before hi are attributed
	for i := range spans {
		sp := &spans[i]
		lo, end := max(sp.Bit, 0), min(sp.Bit+sp.Bits, bits)
		if sp.Bits <= 0 || end <= hi {
			continue
		}
		if lo > hi {
			s[Padding] += int64(lo - hi)
			hi = lo
		}
		e := &cache[mix(sp.Name)&63]
		if e.name != sp.Name || e.name == "" {
			e.name, e.part = sp.Name, class(sp.Name)
		}
		s[e.part] += int64(end - hi)
		hi = end
	}
	if bits > hi {
		s[Padding] += int64(bits - hi)
	}
}

// Length prefixes on the stream (outputs.md "stats": bytes).
const (
	unturnedPrefix = 2 // SystemSockets' 2-byte length
	rpcPrefix      = 4 // ULinkRPC's 4-byte length
)

// Record fills r from m, which must carry its field spans (Index.Detail,
// or a Stream with Spans) for the bit split to see its fields; without
// them the bits after the framing are padding.
func (a *Adapter) Record(m *session.Message, r *Record) {
	*r = Record{N: m.N, Time: m.Time, Dir: m.Dir, Conn: a.conn(m.Conn)}
	if m.RPC != nil {
		a.rpcRecord(m.RPC, r)
		return
	}
	listener := m.Kind == unturned.KindInvokeMessageListener || m.Kind == unturned.KindNegotiateListenerDetails
	typ := ""
	if m.Listener != nil && m.Listener.Type != nil {
		typ = *m.Listener.Type
	}
	a.unturned(r, m.Kind, len(m.Data), m.Fields, listener, typ, m.Pair > 0 && m.HasLatency, m.Latency)
	r.Message, r.Method = m.PayloadMessage, m.PayloadMethod
}

// Tally fills r from t, what the host's TallyOf read of the message being
// handed out: the same Record as Record of its Message, without building
// one. It decodes t's bytes again for the bit split (Tally.Spans).
func (a *Adapter) Tally(t *session.Tally, r *Record) {
	*r = Record{N: t.N, Time: time.Unix(0, t.Time).UTC(), Dir: t.Dir, Conn: a.conn(*t.Conn)}
	if t.RPC != nil {
		a.rpcRecord(t.RPC, r)
		return
	}
	a.unturned(r, t.Kind, len(t.Data), t.Spans(&a.spans, &a.dec), t.Listener, t.Type, t.Pair > 0 && t.HasLatency, t.Latency)
}

// unturned fills the Unturned part of r: the kind, the bytes and their
// split by the spans, the listener (Unresolved without its type) and the
// answer of a pair.
func (a *Adapter) unturned(r *Record, kind unturned.Kind, n int, fields []netpak.Span, listener bool, typ string, answer bool, lat time.Duration) {
	r.Proto = Unturned
	r.Kind = kind.String()
	r.Bytes = n + unturnedPrefix
	r.Bits[Framing] = 8 * unturnedPrefix
	c := classVanilla
	switch kind {
	case unturned.KindInvokeMessageListener:
		c = classInvoke
	case unturned.KindNegotiateListenerDetails:
		c = classNegotiate
	}
	a.split(&r.Bits, fields, 8*n, c)
	if listener {
		r.Listener = Unresolved
		if typ != "" {
			r.Listener = typ
		}
	}
	if answer {
		r.Latency = lat
		switch {
		case kind == unturned.KindServerPingResponse || kind == unturned.KindClientPingResponse:
			r.Ask = Ask{What: Ping, Dir: other(r.Dir)}
		case kind == unturned.KindNegotiateListenerDetails:
			r.Ask = Ask{What: ListenerID, Dir: other(r.Dir)}
		}
	}
}

func other(d dissect.Dir) dissect.Dir {
	if d == dissect.C2S {
		return dissect.S2C
	}
	return dissect.C2S
}

// connText is a connection with its text.
type connText struct {
	c dissect.Conn
	s string
}

func (a *Adapter) conn(c dissect.Conn) string {
	slot := &a.recent[(c.Client.Port()^c.Server.Port()*7)&63]
	if slot.s != "" && slot.c == c {
		return slot.s
	}
	if s, ok := a.conns[c]; ok {
		*slot = connText{c, s}
		return s
	}
	if a.conns == nil {
		a.conns = make(map[dissect.Conn]string)
	}
	s := c.String()
	a.conns[c] = s
	*slot = connText{c, s}
	return s
}

// rpcRecord fills r from a ULinkRPC record. The frame on the stream is
// the 4-byte length prefix and Len bytes: the transform layer's flags
// byte and, encrypted, its IV and HMAC are framing too (outputs.md); the
// envelope, when recovered and not compressed, is split by its fields and
// whatever the frame holds beyond it (PKCS#7 padding) is padding; a
// compressed or undecrypted body is payload, as its fields cannot be told
// apart on the wire.
func (a *Adapter) rpcRecord(rr *rpc.Record, r *Record) {
	r.Proto = ULinkRPC
	r.Kind = rr.Msg
	wire := max(rr.Len, 0) + rpcPrefix
	r.Bytes = wire
	framing := rpcPrefix
	t := rr.Transform
	if t != nil {
		if t.Encrypted {
			framing += 16 + 32 // IV and HMAC-SHA256 (ulinkrpc.md 3)
		}
		if t.Flags != nil {
			framing++
		}
	}
	framing = min(framing, wire)
	r.Bits[Framing] = 8 * int64(framing)
	body := wire - framing
	if rr.Envelope != nil && (t == nil || !t.Gzip && (!t.Encrypted || t.Decrypted)) {
		env := min(len(rr.Envelope), body)
		SplitSpans(&r.Bits, rr.AllFields(), 8*env, RPCClass)
		r.Bits[Padding] += 8 * int64(body-env)
	} else {
		r.Bits[Payload] += 8 * int64(body)
	}
	if rr.RPC.ServiceID != nil || rr.RPC.MethodID != nil {
		r.Method = methodKey(rr.RPC.ServiceID, rr.RPC.MethodID, rr.RPC.Service, rr.RPC.Method)
	}
	switch rr.Msg {
	case "Request":
		r.Request = true
	case "Response":
		if rr.Pair > 0 {
			r.Answered = rr.Pair
		}
	}
	if rr.Pair > 0 && rr.HasLatency {
		r.Latency = rr.Latency
		switch rr.Msg {
		case "Response":
			r.Ask = Ask{What: RPC, Dir: other(rr.Dir)}
			if rr.RPC.ServiceID != nil {
				r.ServiceID = *rr.RPC.ServiceID
			}
			if rr.RPC.MethodID != nil {
				r.MethodID = *rr.RPC.MethodID
			}
			r.Service, r.MethodName = rr.RPC.Service, rr.RPC.Method
		case "KeepAlivePong":
			r.Ask = Ask{What: KeepAlive, Dir: other(rr.Dir)}
		}
	}
}

// methodKey is outputs.md's method key: "Service.Method", numbers in
// parentheses for what has no name (`(1).(2)`).
func methodKey(sid, mid *int32, service, method *string) string {
	part := func(id *int32, name *string) string {
		switch {
		case name != nil:
			return *name
		case id != nil:
			return "(" + strconv.FormatInt(int64(*id), 10) + ")"
		}
		return "?"
	}
	return part(sid, service) + "." + part(mid, method)
}
