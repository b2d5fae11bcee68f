package rpc

import (
	"sync"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// A Lazy session (Config.Lazy, issue 28) decodes each frame's envelope,
// names and pairs the record as a full session does, but leaves its
// payload to be decoded when the record is read, with the configuration
// numbering chose (the serializer and the contract type: lazy). The host
// reads Brief while it numbers and hands the record out, which decodes
// nothing; `dump --json` then decodes the payload on its encoding
// goroutine, into nothing it keeps, and writes a JSON payload's member
// fields straight from a walk of its bytes (AppendJSONOrigin); every other reader (Meta, Tree, Line,
// TreeText, Values, AllFields) gets the record whole, as a session that
// is not lazy makes it.

// Brief is Meta without Fields (decode.Briefer): what the host reads of a
// record while numbering, pairing and handing it out. For a lazy record
// its Findings lack the payload's.
func (r *Record) Brief() decode.Meta {
	return decode.Meta{N: r.N, Frame: r.Frame, Time: r.Time, Conn: r.Conn, Dir: r.Dir, Proto: Name, Name: r.Msg,
		Len: r.Len, Wire: r.Len + 4, Size: r.EnvelopeLen(), Data: r.Envelope, Findings: r.Findings,
		Pair: r.Pair, Latency: r.Latency, HasLatency: r.HasLatency}
}

// AllFields are r's fields, its payload's included: Fields, or for a lazy
// record Fields with the payload's decoded again.
func (r *Record) AllFields() []dissect.Field { return r.whole().Fields }

// lazyConfig is the shared payload configuration of type typ (nil: none).
func (s *Session) lazyConfig(typ *ulinkrpc.DTO) *ulinkrpc.PayloadConfig {
	c := s.lazies[typ]
	if c == nil {
		if s.lazies == nil {
			s.lazies = map[*ulinkrpc.DTO]*ulinkrpc.PayloadConfig{}
		}
		c = &ulinkrpc.PayloadConfig{Serializer: s.cfg.Serializer, Type: typ, Types: s.types}
		s.lazies[typ] = c
	}
	return c
}

// whole is r itself unless it is lazy, else a copy with its payload
// decoded as payload would have decoded it at numbering.
func (r *Record) whole() *Record {
	if r.lazy == nil {
		return r
	}
	cp := *r
	cp.lazy = nil
	pl, off := r.lazyPayload()
	p := ulinkrpc.DecodePayload(pl, off, *r.lazy)
	cp.Payload = &p
	if len(p.Fields) > 0 {
		cp.Fields = appendPayloadFields(append(make([]dissect.Field, 0, len(r.Fields)+len(p.Fields)), r.Fields...), p.Fields)
	}
	if len(p.Findings) > 0 {
		cp.Findings = append(append(make([]dissect.Finding, 0, len(r.Findings)+len(p.Findings)), r.Findings...), p.Findings...)
		cp.payloadNotes = int32(len(p.Findings))
	}
	return &cp
}

// lazyPayload is a lazy record's payload bytes and their offset in the
// envelope: the span of the envelope's "payload" field (none when the
// envelope ended before it).
func (r *Record) lazyPayload() ([]byte, int) {
	for i := len(r.Fields) - 1; i >= 0; i-- {
		f := &r.Fields[i]
		if f.Name != "payload" {
			continue
		}
		from, to := f.Bit/8, (f.Bit+f.Bits)/8
		if from < 0 || to > len(r.Envelope) || from > to {
			break
		}
		return r.Envelope[from:to], from
	}
	return nil, 0
}

// walks are JSONWalk buffers for appendWalked, reused across records.
var walks = sync.Pool{New: func() any { return new(ulinkrpc.JSONWalk) }}

// appendWalked appends, each after a comma, the field entries of the JSON
// payload members of lazy record r, as appendField writes those whole
// gives it.
func appendWalked(dst []byte, r *Record) []byte {
	pl, off := r.lazyPayload()
	w := walks.Get().(*ulinkrpc.JSONWalk)
	defer walks.Put(w)
	w.Walk(pl, "payload")
	// Members[0] is the payload itself: the envelope's "payload" field.
	for i := 1; i < len(w.Members); i++ {
		dst = append(dst, ',')
		dst = appendMember(dst, w, &w.Members[i], off)
	}
	return dst
}
