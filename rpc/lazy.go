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

// whole is r itself unless it is bare, else a copy with its envelope's
// fields and its payload decoded, as frame and payload would have decoded
// them.
func (r *Record) whole() *Record {
	if !r.bare {
		return r
	}
	cp := *r
	cp.bare, cp.lazy = false, nil
	env, _ := ulinkrpc.DecodeEnvelope(r.Envelope)
	cp.Fields = env.Fields
	if r.lazy == nil {
		return &cp
	}
	p := ulinkrpc.DecodePayload(env.Payload, env.PayloadOff, *r.lazy)
	cp.Payload = &p
	cp.Fields = appendPayloadFields(cp.Fields, p.Fields)
	if len(p.Findings) > 0 {
		cp.Findings = append(append(make([]dissect.Finding, 0, len(r.Findings)+len(p.Findings)), r.Findings...), p.Findings...)
		cp.payloadNotes = int32(len(p.Findings))
	}
	return &cp
}

// lazyScratch is what appendBare decodes into, reused across records.
type lazyScratch struct {
	fields []dissect.Field
	walk   ulinkrpc.JSONWalk
}

var lazyScratches = sync.Pool{New: func() any { return new(lazyScratch) }}

// appendBare is AppendJSONOrigin of bare record r: its envelope's fields
// and its payload decoded into scratch that is reused, and a JSON
// payload's fields written straight from a walk of its bytes.
func appendBare(dst []byte, r *Record, origin []byte) []byte {
	sc := lazyScratches.Get().(*lazyScratch)
	defer lazyScratches.Put(sc)
	env, _ := ulinkrpc.DecodeEnvelopeInto(r.Envelope, sc.fields)
	sc.fields = env.Fields
	parts := jsonParts{fields: env.Fields}
	if r.lazy != nil {
		cfg := *r.lazy
		cfg.NoJSONFields = true
		p := ulinkrpc.DecodePayload(env.Payload, env.PayloadOff, cfg)
		parts.payload = &p
		if p.Encoding == ulinkrpc.EncodingJSON {
			sc.walk.Walk(env.Payload, "payload")
			parts.walk, parts.off = &sc.walk, env.PayloadOff
		}
	}
	return appendJSON(dst, r, origin, &parts)
}
