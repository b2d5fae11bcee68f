package ulinkrpc

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
)

// isJSON reports whether b is valid UTF-8 holding one JSON value
// (ulinkrpc.md 6: the auto-detection's first test).
func isJSON(b []byte) bool {
	return len(b) > 0 && utf8.Valid(b) && json.Valid(b)
}

// jsonFields walks a valid JSON value and lists every member and item with
// its exact byte span: objects and arrays as fields with a nil value,
// scalars with their value (string, bool, nil, int64 when the number is an
// integer that fits, else float64). Names are dotted under prefix
// (payload.Account, payload.Items[0].Id). base is b's offset in the
// envelope. It assumes json.Valid(b).
func jsonFields(b []byte, base int, prefix string) []dissect.Field {
	w := jsonWalker{b: b, base: base}
	w.value(prefix)
	return w.fields
}

type jsonWalker struct {
	b      []byte
	pos    int
	base   int
	fields []dissect.Field
}

func (w *jsonWalker) ws() {
	for w.pos < len(w.b) {
		switch w.b[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

func (w *jsonWalker) add(name string, from int, v any) {
	w.fields = append(w.fields, dissect.Field{Name: name, Bit: 8 * (w.base + from), Bits: 8 * (w.pos - from), Value: v})
}

// value reads one value; the input is valid JSON, so the walk only has to
// find where things end. Bounds are still checked so that misuse cannot
// panic.
func (w *jsonWalker) value(name string) {
	w.ws()
	if w.pos >= len(w.b) {
		return
	}
	from := w.pos
	switch c := w.b[w.pos]; {
	case c == '{':
		at := len(w.fields)
		w.fields = append(w.fields, dissect.Field{})
		w.pos++
		for w.ws(); w.pos < len(w.b) && w.b[w.pos] != '}'; w.ws() {
			if w.b[w.pos] == ',' {
				w.pos++
				continue
			}
			ks := w.pos
			w.str()
			var key string
			_ = json.Unmarshal(w.b[ks:w.pos], &key)
			w.ws()
			if w.pos < len(w.b) && w.b[w.pos] == ':' {
				w.pos++
			}
			w.value(name + "." + key)
		}
		w.pos = min(w.pos+1, len(w.b))
		w.fields[at] = dissect.Field{Name: name, Bit: 8 * (w.base + from), Bits: 8 * (w.pos - from)}
	case c == '[':
		at := len(w.fields)
		w.fields = append(w.fields, dissect.Field{})
		w.pos++
		for i := 0; ; i++ {
			w.ws()
			if w.pos >= len(w.b) || w.b[w.pos] == ']' {
				break
			}
			if w.b[w.pos] == ',' {
				w.pos++
				i--
				continue
			}
			w.value(name + "[" + strconv.Itoa(i) + "]")
		}
		w.pos = min(w.pos+1, len(w.b))
		w.fields[at] = dissect.Field{Name: name, Bit: 8 * (w.base + from), Bits: 8 * (w.pos - from)}
	case c == '"':
		w.str()
		var s string
		_ = json.Unmarshal(w.b[from:w.pos], &s)
		w.add(name, from, s)
	case c == 't':
		w.pos = min(w.pos+4, len(w.b))
		w.add(name, from, true)
	case c == 'f':
		w.pos = min(w.pos+5, len(w.b))
		w.add(name, from, false)
	case c == 'n':
		w.pos = min(w.pos+4, len(w.b))
		w.add(name, from, nil)
	default:
		for w.pos < len(w.b) && isNumByte(w.b[w.pos]) {
			w.pos++
		}
		num := string(w.b[from:w.pos])
		if i, err := strconv.ParseInt(num, 10, 64); err == nil {
			w.add(name, from, i)
		} else {
			f, _ := strconv.ParseFloat(num, 64)
			w.add(name, from, f)
		}
	}
}

func isNumByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str moves past a JSON string starting at pos.
func (w *jsonWalker) str() {
	w.pos++
	for w.pos < len(w.b) {
		switch w.b[w.pos] {
		case '\\':
			w.pos += 2
			continue
		case '"':
			w.pos++
			return
		}
		w.pos++
	}
	w.pos = len(w.b)
}
