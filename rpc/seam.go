package rpc

import (
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// The ULinkRPC side of the protocol seam (decode): a Record is a
// decode.Record and a Session, wrapped by Hosted, a decode.Conn, so that
// the host numbers, stores, streams and pairs ULinkRPC records as it does
// any registered protocol's.

// Name is the protocol's name: --decode-as, `proto`, the notes.
const Name = "ulinkrpc"

// Meta are r's neutral values (decode.Meta): Len is the frame as on the
// wire, Wire adds its 4-byte prefix, Size is EnvelopeLen.
func (r *Record) Meta() decode.Meta {
	w := r.whole()
	m := w.Brief()
	m.Fields = w.Fields
	return m
}

// Line is r's dump line after its number, time, connection and direction.
func (r *Record) Line() string { return r.line() }

// Tree is r's layer tree (Tree).
func (r *Record) Tree() []decode.Node { return Tree(r.whole()) }

// TreeText is r's `dump -V` text (TreeText).
func (r *Record) TreeText() string { return TreeText(r.whole()) }

// AppendJSON appends r's `dump --json` object (AppendJSONOrigin).
func (r *Record) AppendJSON(dst, origin []byte) []byte { return AppendJSONOrigin(dst, r, origin) }

// Values are the values of the `rpc` object's keys (service, method,
// service_id, method_id, request_id, status: its name and its code) and of
// a record's payload members named as the filter
// names them (outputs.md: `payload.<Member>`, nested
// `payload.<Member>.<Inner>`, list items `payload.<Member>[i]`), from its
// fields: MemoryPack members with or without a schema, and the members of
// a JSON payload, typed as parsed. match compares a field's name with the
// filter's.
func (r *Record) Values(name string) ([]any, bool) {
	switch p := &r.RPC; strings.ToLower(name) {
	case "service":
		return optAny(p.Service), true
	case "method":
		return optAny(p.Method), true
	case "service_id":
		return optAny(p.ServiceID), true
	case "method_id":
		return optAny(p.MethodID), true
	case "request_id":
		return optAny(p.RequestID), true
	case "status":
		// The name (status==NotFound) or the code (status==1).
		if p.Status == nil || p.StatusCode == nil {
			return nil, true
		}
		return []any{*p.Status, strconv.Itoa(*p.StatusCode)}, true
	}
	if !strings.HasPrefix(strings.ToLower(name), "payload.") {
		return nil, false
	}
	var out []any
	for _, f := range r.AllFields() {
		if len(f.Name) > len("payload.") && strings.EqualFold(f.Name[:len("payload.")], "payload.") && decode.NameMatch(f.Name, name) {
			out = append(out, f.Value)
		}
	}
	return out, true
}

// Clone is a copy of r (the slices shared: not written once numbered).
func (r *Record) Clone() decode.Record {
	cp := *r
	cp.ownValues(r)
	cp.pooled, cp.ownEnvelope = false, false // shares r's slices: never reused
	return &cp
}

// optAny is the value p points at as one value, none for nil.
func optAny[T any](p *T) []any {
	if p == nil {
		return nil
	}
	return []any{*p}
}

// Hosted is a Session as a decode.Conn: the host's view of a ULinkRPC
// connection.
type Hosted struct{ *Session }

// Numbered names and pairs r, numbered n (Session.Numbered).
func (h Hosted) Numbered(r decode.Record, n int) { h.Session.Numbered(r.(*Record), n) }

// Waiting reports whether r is a Request or KeepAlivePing still
// unanswered (outputs.md "Pairing": both messages of a pair carry `pair`).
func (h Hosted) Waiting(r decode.Record) bool {
	rr := r.(*Record)
	return (rr.Type == ulinkrpc.Request || rr.Type == ulinkrpc.KeepAlivePing) && h.Open(rr)
}

// AppendTablesJSON is unused for ULinkRPC: the host writes its `tables
// --json` entry with AppendConnJSONOf, which knows the cut.
func (h Hosted) AppendTablesJSON(dst []byte) []byte { return dst }

var _ decode.Conn = Hosted{}
var _ decode.Record = (*Record)(nil)

// Protocol is ULinkRPC as a decode.Protocol whose connections are
// sessions of cfg (its Transport and MidStream as given; the host's
// MidStream, Light and Yield added): the constructor a host calls.
func Protocol(cfg Config) *decode.Protocol {
	return &decode.Protocol{Name: Name, New: func(d decode.Config) decode.Conn {
		c := cfg
		c.MidStream = c.MidStream || d.MidStream
		c.Light, c.Lazy, c.Number = d.Light, d.Lazy, nil
		if d.Yield != nil {
			c.Yield = func(r *Record, at Stamp) { d.Yield(r, at) }
		}
		return Hosted{New(d.Conn, c)}
	}}
}

// Label is what a list of connections shows of s's connection: the
// protocol and its transport ("ulinkrpc tcp"; session.ConnInfo.Label).
func (s *Session) Label() string { return Name + " " + s.cfg.Transport.String() }

// BudgetMax is the capture-wide ULinkRPC budget's size the session draws
// from (max_rpc_buffer), 0 without one: the host bounds the records it
// keeps waiting to be printed by it too.
func (s *Session) BudgetMax() int {
	if s.cfg.Budget == nil {
		return 0
	}
	return s.cfg.Budget.Max
}
