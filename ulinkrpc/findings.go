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
// payload that cannot start a JSON value is never scanned as one, and one
// of plain JSON (jsonSimple) is scanned once.
func PayloadFindings(dst []dissect.Finding, b []byte, base int, cfg PayloadConfig) []dissect.Finding {
	if cfg.Type != nil {
		cfg.FindingsOnly = true
		return append(dst, DecodePayload(b, base, cfg).Findings...)
	}
	if len(b) == 0 {
		return dst
	}
	if cfg.Serializer != SerializerMemoryPack && jsonStart(b) && (jsonSimple(b) || isJSON(b)) {
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

// jsonMaxSimple bounds the nesting jsonSimple follows.
const jsonMaxSimple = 64

// jsonSimple reports whether b is one JSON value in ASCII, nested at most
// jsonMaxSimple deep, whose strings escape nothing but with a single
// character: then isJSON(b) (json.Valid, and ASCII is valid UTF-8). False
// says nothing: isJSON decides. It scans b once, without the state
// machine of encoding/json, which was most of the time a full index took
// over a JSON payload.
func jsonSimple(b []byte) bool {
	var objects uint64 // bit k: the container k levels up is an object
	depth, i, ok := 0, jsonSpace(b, 0), true
	for {
		// A value starts at i.
		if i >= len(b) {
			return false
		}
		opened := false
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth == jsonMaxSimple {
				return false
			}
			end := byte(']')
			objects, depth = objects<<1, depth+1
			if c == '{' {
				objects, end = objects|1, '}'
			}
			i = jsonSpace(b, i+1)
			switch {
			case i < len(b) && b[i] == end:
				i, objects, depth = i+1, objects>>1, depth-1
			case c == '{':
				i, ok = jsonKey(b, i)
				opened = true
			default:
				opened = true
			}
		case c == '"':
			i, ok = jsonString(b, i)
		case c == '-' || '0' <= c && c <= '9':
			i, ok = jsonNumber(b, i)
		case c == 't':
			i, ok = jsonWord(b, i, "true")
		case c == 'f':
			i, ok = jsonWord(b, i, "false")
		case c == 'n':
			i, ok = jsonWord(b, i, "null")
		default:
			return false
		}
		if !ok {
			return false
		}
		if opened {
			continue
		}
		// A value ended at i: close the containers that end after it,
		// up to a comma before the next value.
		for {
			i = jsonSpace(b, i)
			if depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			if b[i] == ',' {
				i = jsonSpace(b, i+1)
				if objects&1 == 1 {
					if i, ok = jsonKey(b, i); !ok {
						return false
					}
				}
				break
			}
			end := byte(']')
			if objects&1 == 1 {
				end = '}'
			}
			if b[i] != end {
				return false
			}
			i, objects, depth = i+1, objects>>1, depth-1
		}
	}
}

// jsonSpace is the index of b's first byte from i that is not JSON
// whitespace.
func jsonSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonKey reads an object member's name from i, and the colon after it:
// the index of its value (jsonSimple's strings).
func jsonKey(b []byte, i int) (int, bool) {
	i, ok := jsonString(b, i)
	if !ok {
		return i, false
	}
	i = jsonSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return jsonSpace(b, i+1), true
}

// jsonString reads a string of jsonSimple's (ASCII, no control bytes,
// escapes of one character) from i: the index after it.
func jsonString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			i++
			if i >= len(b) {
				return i, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			default:
				return i, false
			}
		case c < 0x20 || c >= 0x80:
			return i, false
		}
	}
	return i, false
}

// jsonNumber reads a JSON number from i: the index after it.
func jsonNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = jsonDigits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := jsonDigits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := jsonDigits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

// jsonDigits is the index of b's first byte from i that is not a digit.
func jsonDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// jsonWord reads literal w (true, false, null) from i.
func jsonWord(b []byte, i int, w string) (int, bool) {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return i, false
	}
	return i + len(w), true
}
