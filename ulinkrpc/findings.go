package ulinkrpc

import (
	"errors"

	"github.com/usmnscope/usmnscope/dissect"
)

// PayloadFindings appends to dst the findings DecodePayload gives a
// payload with cfg.FindingsOnly set, without the Payload itself: what a
// full index keeps of a payload it decodes again when it is shown (rpc's
// compact records; issue 28: a million frames' Payload values, their
// JSON boxed and their notes each a slice, were a fifth of its load). A
// payload that cannot start a JSON value is never scanned as one, and
// isJSON scans one once (validJSON).
func PayloadFindings(dst []dissect.Finding, b []byte, base int, cfg PayloadConfig) []dissect.Finding {
	if cfg.Type != nil {
		cfg.FindingsOnly = true
		return append(dst, DecodePayload(b, base, cfg).Findings...)
	}
	if len(b) == 0 {
		return dst
	}
	if cfg.Serializer != SerializerMemoryPack && jsonStart(b) && isJSON(b) {
		return dst
	}
	if cfg.Serializer == SerializerJSON {
		return append(dst, errf(dissect.Malformed, 8*base, "payload: not one JSON value in valid UTF-8"))
	}
	if err := checkMemoryPack(b); err != nil {
		if cfg.Serializer == SerializerMemoryPack {
			if e := (*Error)(nil); errors.As(err, &e) {
				dst = append(dst, finding(err, base))
			}
		}
		return dst
	}
	if cfg.Serializer == SerializerAuto {
		dst = append(dst, cutNoteAt(base))
	}
	return dst
}

// jsonStart reports whether b's first byte past JSON whitespace may
// begin a JSON value: json.Valid is false for every b it is false for.
func jsonStart(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[', '"', '-', 't', 'f', 'n':
			return true
		}
		return '0' <= c && c <= '9'
	}
	return false
}
