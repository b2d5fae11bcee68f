package report

import (
	"strconv"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
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
	// scratch is Tally's for decoding a message again.
	scratch session.SpanScratch
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

// unturnedPrefix is SystemSockets' 2-byte length on the stream
// (outputs.md "stats": bytes); a hosted record says its own
// (decode.Framed).
const unturnedPrefix = 2

// Record fills r from m, which must carry its field spans (Index.Detail,
// or a Stream with Spans) for the bit split to see its fields; without
// them the bits after the framing are padding.
func (a *Adapter) Record(m *session.Message, r *Record) {
	*r = Record{N: m.N, Time: m.Time, Dir: m.Dir, Conn: a.conn(m.Conn)}
	if f, ok := m.Rec.(decode.Framed); ok {
		a.hosted(m.Rec, f, r)
		return
	}
	typ := ""
	if m.Listener != nil && m.Listener.Type != nil {
		typ = *m.Listener.Type
	}
	a.unturned(r, m.Role(), len(m.Data), m.Fields, m.Listens(), typ, m.Pair > 0 && m.HasLatency, m.Latency)
	r.Message, r.Method = m.PayloadMessage, m.PayloadMethod
}

// Tally fills r from t, what the host's TallyOf read of the message being
// handed out: the same Record as Record of its Message, without building
// one. It decodes t's bytes again for the bit split (Tally.Spans).
func (a *Adapter) Tally(t *session.Tally, r *Record) {
	*r = Record{N: t.N, Time: time.Unix(0, t.Time).UTC(), Dir: t.Dir, Conn: a.conn(*t.Conn)}
	if f, ok := t.Rec.(decode.Framed); ok {
		a.hosted(t.Rec, f, r)
		return
	}
	a.unturned(r, t.Role(), len(t.Data), t.SpansIn(&a.scratch), t.Listener, t.Type, t.Pair > 0 && t.HasLatency, t.Latency)
}

// unturned fills the Unturned part of r: the kind, the bytes and their
// split by the spans, the listener (Unresolved without its type) and the
// answer of a pair.
func (a *Adapter) unturned(r *Record, role session.Role, n int, fields []netpak.Span, listener bool, typ string, answer bool, lat time.Duration) {
	r.Proto = Unturned
	r.Kind = role.Kind
	r.Bytes = n + unturnedPrefix
	r.Bits[Framing] = 8 * unturnedPrefix
	c := classVanilla
	switch {
	case role.Invokes:
		c = classInvoke
	case role.Negotiates:
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
		case role.AnswersPing:
			r.Ask = Ask{What: Ping, Dir: other(r.Dir)}
		case role.Negotiates:
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

// hosted fills r from a hosted protocol's record that says its framing
// (f, decode.Framed: a ULinkRPC frame's length prefix and transform
// header): those bits are framing; its fields, when they split the rest,
// split the bytes they lie in (Meta.Data, a ULinkRPC envelope) and the
// bytes of the frame past them (PKCS#7 padding) are padding; a body they
// cannot split is payload. The method and the pairs are named by the
// record's call (decode.Caller) and its ULinkRPC type names.
func (a *Adapter) hosted(rec decode.Record, f decode.Framed, r *Record) {
	b := decode.BriefOf(rec)
	r.Proto = protoOf(b.Proto)
	r.Kind = b.Name
	wire, framing, split := f.Framing()
	r.Bytes = wire
	r.Bits[Framing] = 8 * int64(framing)
	body := wire - framing
	if split {
		data := min(len(b.Data), body)
		SplitSpans(&r.Bits, rec.Meta().Fields, 8*data, RPCClass)
		r.Bits[Padding] += 8 * int64(body-data)
	} else {
		r.Bits[Payload] += 8 * int64(body)
	}
	var call decode.Call
	if c, ok := rec.(decode.Caller); ok {
		call = c.Call()
	}
	if call.ServiceID != nil || call.MethodID != nil {
		r.Method = methodKey(call.ServiceID, call.MethodID, call.Service, call.Method)
	}
	switch b.Name {
	case "Request":
		r.Request = true
	case "Response":
		if b.Pair > 0 {
			r.Answered = b.Pair
		}
	}
	if b.Pair > 0 && b.HasLatency {
		r.Latency = b.Latency
		switch b.Name {
		case "Response":
			r.Ask = Ask{What: RPC, Dir: other(b.Dir)}
			if call.ServiceID != nil {
				r.ServiceID = *call.ServiceID
			}
			if call.MethodID != nil {
				r.MethodID = *call.MethodID
			}
			r.Service, r.MethodName = call.Service, call.Method
		case "KeepAlivePong":
			r.Ask = Ask{What: KeepAlive, Dir: other(b.Dir)}
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
