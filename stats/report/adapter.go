package report

import (
	"strconv"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// Adapter turns the host's messages into Records: the one place that
// knows session.Message (package doc). It keeps each connection's text
// once. The zero value is ready.
type Adapter struct {
	conns map[dissect.Conn]string
	spans []Span
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
	r.Proto = Unturned
	r.Kind = m.Kind.String()
	r.Bytes = len(m.Data) + unturnedPrefix
	r.Bits[Framing] = 8 * unturnedPrefix
	a.spans = a.spans[:0]
	for _, f := range m.Fields {
		a.spans = append(a.spans, Span{Name: f.Name, Bit: f.Bit, Bits: f.Bits})
	}
	SplitSpans(&r.Bits, a.spans, 8*len(m.Data), UnturnedClass(r.Kind))
	if m.Kind == unturned.KindInvokeMessageListener || m.Kind == unturned.KindNegotiateListenerDetails {
		r.Listener = Unresolved
		if m.Listener != nil && m.Listener.Type != nil {
			r.Listener = *m.Listener.Type
		}
	}
	r.Message, r.Method = m.PayloadMessage, m.PayloadMethod
	if m.Pair > 0 && m.HasLatency {
		r.Latency = m.Latency
		switch {
		case m.Kind == unturned.KindServerPingResponse || m.Kind == unturned.KindClientPingResponse:
			r.Ask = Ask{What: Ping, Dir: other(m.Dir)}
		case m.Kind == unturned.KindNegotiateListenerDetails:
			r.Ask = Ask{What: ListenerID, Dir: other(m.Dir)}
		}
	}
}

func other(d dissect.Dir) dissect.Dir {
	if d == dissect.C2S {
		return dissect.S2C
	}
	return dissect.C2S
}

func (a *Adapter) conn(c dissect.Conn) string {
	if s, ok := a.conns[c]; ok {
		return s
	}
	if a.conns == nil {
		a.conns = make(map[dissect.Conn]string)
	}
	s := c.String()
	a.conns[c] = s
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
		a.spans = a.spans[:0]
		for _, f := range rr.Fields {
			a.spans = append(a.spans, Span{Name: f.Name, Bit: f.Bit, Bits: f.Bits})
		}
		SplitSpans(&r.Bits, a.spans, 8*env, RPCClass)
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
