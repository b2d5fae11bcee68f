package ulinkrpc

import (
	"encoding/json"
	"errors"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// Serializer is the payload encoding agreed out of band (profile
// `serializer`, ulinkrpc.md 1 and 6).
type Serializer uint8

const (
	SerializerAuto Serializer = iota
	SerializerJSON
	SerializerMemoryPack
)

var serializerNames = [...]string{SerializerAuto: "auto", SerializerJSON: "json", SerializerMemoryPack: "memorypack"}

func (s Serializer) String() string { return enum.Name(serializerNames[:], uint64(s)) }

// Encoding is what a payload was decoded as (outputs.md `payload.encoding`).
type Encoding uint8

const (
	EncodingEmpty Encoding = iota
	EncodingJSON
	EncodingMemoryPack
	EncodingRaw
)

var encodingNames = [...]string{EncodingEmpty: "empty", EncodingJSON: "json", EncodingMemoryPack: "memorypack", EncodingRaw: "raw"}

func (e Encoding) String() string { return enum.Name(encodingNames[:], uint64(e)) }

// Payload is a decoded payload (outputs.md `payload`).
type Payload struct {
	Encoding Encoding
	Bytes    int
	// Value: for JSON a json.RawMessage holding the payload exactly; for
	// MemoryPack with a schema a map[string]any of member names (nil for a
	// null object); otherwise nil.
	Value  any
	Object *MPObject // MemoryPack without a schema: the cut members
	// Fields are named payload.<Member> (payload.<index> without a schema)
	// with byte spans as bits in the envelope.
	Fields   []dissect.Field
	Findings []dissect.Finding
	// Cut is PayloadConfig.Cut when the members were cut into it, Object
	// and Fields then nil.
	Cut *MPWalk
	// Walk is PayloadConfig.Walk when it walked a JSON payload.
	Walk *JSONWalk
}

// PayloadConfig says how to read payloads: the serializer and, when known,
// the DTO type of this payload with the types it refers to.
type PayloadConfig struct {
	Serializer Serializer
	Type       *DTO // nil: no schema for this payload
	Types      DTOs
	// NoJSONFields leaves a JSON payload's Fields nil, for a caller that
	// walks them from the bytes when it needs them (JSONWalk).
	NoJSONFields bool
	// NoCutFields leaves the Fields of a MemoryPack payload cut without a
	// schema nil (its Object kept), for a caller that reads only its
	// members' count (rpc's `dump` line).
	NoCutFields bool
	// FindingsOnly decodes the payload for its findings alone (rpc's
	// compact records): no JSON payload's Fields, and a MemoryPack one
	// without a schema checked for its shape, neither cut into an Object
	// nor listed.
	FindingsOnly bool
	// NoJSONValue leaves a JSON payload's Value nil, for a caller that
	// writes the payload's bytes, which it holds, as its value (rpc's
	// `dump --json`): boxing them was an allocation a payload.
	NoJSONValue bool
	// NoGuessText leaves the text of each guess out of a MemoryPack
	// payload cut without a schema (MPMember.Guess), for a caller that
	// writes its JSON, which has none.
	NoGuessText bool
	// Cut, when set, takes a MemoryPack payload cut without a schema
	// (MPWalk.Cut) instead of Object and Fields, for a writer that lists
	// its members from it; it is reused, so the Payload is read before
	// the next one decoded with it.
	Cut *MPWalk
	// Walk, when set with NoJSONFields, takes the walk of a JSON payload
	// (JSONWalk.WalkValid), which also tells it is JSON: one pass where
	// the test and a later walk were two (Payload.Walk). It is reused,
	// as Cut is.
	Walk *JSONWalk
}

// DecodePayload decodes a payload at byte offset base of its envelope
// (ulinkrpc.md 6): valid UTF-8 holding one JSON value is JSON; otherwise
// MemoryPack when it parses as one (with the schema when given, else as a
// version-tolerant object); otherwise raw bytes. A forced serializer that
// does not fit gives raw bytes and an error finding.
func DecodePayload(b []byte, base int, cfg PayloadConfig) Payload {
	p := Payload{Bytes: len(b)}
	if len(b) == 0 {
		return p // a null argument or a void result (ulinkrpc.md 5)
	}
	const prefix = "payload"
	if w := cfg.Walk; w != nil && cfg.NoJSONFields && cfg.Serializer != SerializerMemoryPack {
		if w.WalkValid(b, prefix) {
			p.Encoding, p.Walk = EncodingJSON, w
			if !cfg.NoJSONValue {
				p.Value = json.RawMessage(b)
			}
			return p
		}
	} else if cfg.Serializer != SerializerMemoryPack && isJSON(b) {
		p.Encoding = EncodingJSON
		if !cfg.NoJSONValue {
			p.Value = json.RawMessage(b)
		}
		if !cfg.NoJSONFields && !cfg.FindingsOnly {
			p.Fields = jsonFields(b, base, prefix)
		}
		return p
	}
	if cfg.Serializer == SerializerJSON {
		p.Encoding = EncodingRaw
		p.Findings = append(p.Findings, errf(dissect.Malformed, 8*base, "payload: not one JSON value in valid UTF-8"))
		return p
	}
	if cfg.Type != nil {
		v, fs, finds, err := DecodeMemoryPack(b, base, cfg.Type, cfg.Types, prefix)
		if err == nil || cfg.Serializer == SerializerMemoryPack {
			p.Encoding, p.Value, p.Fields, p.Findings = EncodingMemoryPack, v, fs, finds
			if err != nil {
				p.Encoding = EncodingRaw
			}
			return p
		}
		// auto: the schema does not fit; fall back to the schemaless cut,
		// and say so.
		p.Findings = append(p.Findings, warn(dissect.Protocol, 8*base, "payload: does not parse as %s: %v", cfg.Type.Name, err))
	}
	if cfg.FindingsOnly {
		// Its findings alone: whether it cuts, not its members.
		if err := checkMemoryPack(b); err != nil {
			return rawPayload(p, err, base, cfg)
		}
		return cutPayload(p, base, cfg)
	}
	if w := cfg.Cut; w != nil {
		if err := w.Cut(b, prefix); err != nil {
			return rawPayload(p, err, base, cfg)
		}
		p.Cut = w
		if len(p.Findings) == 0 && cfg.Serializer == SerializerAuto {
			// The note in the walk's storage, as its members are.
			w.notes = append(w.notes[:0], cutNoteAt(base))
			p.Encoding, p.Findings = EncodingMemoryPack, w.notes
			return p
		}
		return cutPayload(p, base, cfg)
	}
	o, err := cutMemoryPack(b, &cutter{noText: cfg.NoGuessText})
	if err != nil {
		return rawPayload(p, err, base, cfg)
	}
	shift(&o, base)
	p.Object = &o
	if !cfg.NoCutFields {
		p.Fields = o.Fields(prefix, 0)
	}
	return cutPayload(p, base, cfg)
}

// cutPayload is p as MemoryPack cut without a schema, with the note that
// says so when the serializer was detected.
func cutPayload(p Payload, base int, cfg PayloadConfig) Payload {
	p.Encoding = EncodingMemoryPack
	if cfg.Serializer == SerializerAuto {
		p.Findings = append(p.Findings, cutNoteAt(base))
	}
	return p
}

// cutNote is the note of a payload read as MemoryPack by its shape.
const cutNote = "payload: MemoryPack by shape, members cut without a schema"

// cutNoteAt is the note of a payload at byte base read as MemoryPack by
// its shape.
func cutNoteAt(base int) dissect.Finding {
	return dissect.Finding{Severity: dissect.Note, Group: dissect.Inference, Text: cutNote, Bit: 8 * base}
}

// rawPayload is p as raw bytes that did not cut as MemoryPack (err): an
// error finding when MemoryPack was forced.
func rawPayload(p Payload, err error, base int, cfg PayloadConfig) Payload {
	p.Encoding = EncodingRaw
	if cfg.Serializer == SerializerMemoryPack {
		var e *Error
		if errors.As(err, &e) {
			p.Findings = append(p.Findings, finding(err, base))
		}
	}
	return p
}
