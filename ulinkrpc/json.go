package ulinkrpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/usmnscope/usmnscope/dissect"
)

// isJSON reports whether b is valid UTF-8 holding one JSON value
// (ulinkrpc.md 6: the auto-detection's first test).
func isJSON(b []byte) bool {
	// The grammar first: a MemoryPack payload fails it at its first byte
	// or so, where UTF-8's test would read it all.
	return len(b) > 0 && validJSON(b) && utf8.Valid(b)
}

// maxJSONDepth is encoding/json's bound on nesting (its scanner's
// maxNestingDepth): json.Valid is false past it.
const maxJSONDepth = 10000

// validJSON is json.Valid(b): one JSON value (RFC 8259) with space around
// it, strings free of control bytes and of escapes JSON has not, nested at
// most maxJSONDepth deep; bytes of 0x80 and up are taken as they are, as
// json.Valid takes them. It reads b in one pass, not through a scanner's
// step per byte (issue 28: json.Valid was a tenth of the encoding side of
// `dump --json`).
func validJSON(b []byte) bool {
	// objs has bit d-1 set when the container at depth d is an object;
	// past 64 levels the deeper bits go to more.
	var objs uint64
	var more []uint64
	i, n, depth := 0, len(b), 0
	for {
		// A value.
		i = jsonSpace(b, i)
		if i >= n {
			return false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			depth++
			if depth > maxJSONDepth {
				return false
			}
			var bit uint64
			if c == '{' {
				bit = 1
			}
			if d := depth - 1; d < 64 {
				objs = objs&^(1<<d) | bit<<d
			} else {
				d -= 64
				for len(more) <= d/64 {
					more = append(more, 0)
				}
				more[d/64] = more[d/64]&^(1<<(d%64)) | bit<<(d%64)
			}
			i = jsonSpace(b, i+1)
			if i < n && (c == '{' && b[i] == '}' || c == '[' && b[i] == ']') {
				i++
				depth--
				break
			}
			if c == '[' {
				continue // its first item
			}
			// The object's first key.
			if i = jsonKey(b, i); i < 0 {
				return false
			}
			continue
		case c == '"':
			if i = jsonString(b, i); i < 0 {
				return false
			}
		case c == 't':
			if i+4 > n || string(b[i:i+4]) != "true" {
				return false
			}
			i += 4
		case c == 'f':
			if i+5 > n || string(b[i:i+5]) != "false" {
				return false
			}
			i += 5
		case c == 'n':
			if i+4 > n || string(b[i:i+4]) != "null" {
				return false
			}
			i += 4
		case c == '-' || c >= '0' && c <= '9':
			if i = jsonNumber(b, i); i < 0 {
				return false
			}
		default:
			return false
		}
		// After a value: the end, or what its container holds next.
		for {
			i = jsonSpace(b, i)
			if depth == 0 {
				return i == n
			}
			if i >= n {
				return false
			}
			var obj bool
			if d := depth - 1; d < 64 {
				obj = objs>>d&1 != 0
			} else {
				d -= 64
				obj = more[d/64]>>(d%64)&1 != 0
			}
			if c := b[i]; c == ',' {
				i++
				if obj {
					if i = jsonKey(b, jsonSpace(b, i)); i < 0 {
						return false
					}
				}
				break
			} else if obj && c == '}' || !obj && c == ']' {
				i++
				depth--
				continue
			}
			return false
		}
	}
}

// jsonSpace is the index past the JSON space at b[i:].
func jsonSpace(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i // most often: no space
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonKey is the index past an object's key at b[i], its colon and the
// space around it; -1 when there is none.
func jsonKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = jsonString(b, i); i < 0 {
		return -1
	}
	if i = jsonSpace(b, i); i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

// jsonString is the index past the string whose opening quote is at
// b[i], -1 when it is not one.
func jsonString(b []byte, i int) int {
	n := len(b)
	for i++; i < n; {
		c := b[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		switch {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		}
		// An escape.
		if i+1 >= n {
			return -1
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > n || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return -1
			}
			i += 6
		default:
			return -1
		}
	}
	return -1
}

// jsonNumber is the index past the number at b[i], -1 when it is not one.
func jsonNumber(b []byte, i int) int {
	n := len(b)
	digits := func(i int) int {
		from := i
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == from {
			return -1
		}
		return i
	}
	if b[i] == '-' {
		i++
	}
	if i < n && b[i] == '0' {
		i++
	} else if i = digits(i); i < 0 {
		return -1
	}
	if i < n && b[i] == '.' {
		if i = digits(i + 1); i < 0 {
			return -1
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i = digits(i); i < 0 {
			return -1
		}
	}
	return i
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// jsonFields walks a valid JSON value and lists every member and item with
// its exact byte span: objects and arrays as fields with a nil value,
// scalars with their value (string, bool, nil, int64 when the number is an
// integer that fits, else float64). Names are dotted under prefix
// (payload.Account, payload.Items[0].Id). base is b's offset in the
// envelope. It assumes json.Valid(b).
func jsonFields(b []byte, base int, prefix string) []dissect.Field {
	var w JSONWalk
	w.Walk(b, prefix)
	fs := make([]dissect.Field, len(w.Members))
	for i := range w.Members {
		m := &w.Members[i]
		fs[i] = dissect.Field{Name: string(w.Name(m)), Bit: 8 * (base + int(m.From)), Bits: 8 * int(m.To-m.From), Value: w.Value(m)}
	}
	return fs
}

// JSONKind is what a JSONMember's value is.
type JSONKind uint8

const (
	JSONObject JSONKind = iota
	JSONArray
	JSONString
	JSONNumber
	JSONTrue
	JSONFalse
	JSONNull
)

// JSONMember is one member or item a JSONWalk found: its dotted name in
// the walk's Names, the byte span of its value in the walked payload, and
// the kind of that value.
type JSONMember struct {
	NameFrom, NameTo int32
	From, To         int32
	Kind             JSONKind
	// Int, set by WalkValid for a number written as an integer of at most
	// 18 digits other than -0, says that its token is its value as
	// strconv.AppendInt spells it (Number's).
	Int bool
}

// JSONWalk lists the members and items of a JSON payload, in document
// order and each container before what it holds, with their spans and
// names, into buffers a caller reuses from one payload to the next:
// jsonFields turns them into fields, and a writer of `dump --json` writes
// them straight out (rpc's lazy records, issue 28), so that both give the
// same names, spans and values.
type JSONWalk struct {
	Members []JSONMember
	Names   []byte
	b       []byte
	pos     int
	// Plain, after WalkValid, says that every string of the payload
	// (keys too) is printable ASCII without an escape: each is the JSON
	// string its text spells, termsafe's too, and the names are plain.
	// Spaced says that the payload holds insignificant space (between
	// its tokens), which json.Compact would take out.
	Plain, Spaced bool
	high          bool // WalkValid's: a string holds a byte of 0x80 or more
}

// Walk lists the members of b, valid JSON, under the name prefix; the
// buffers of an earlier walk are reused.
func (w *JSONWalk) Walk(b []byte, prefix string) {
	w.Members, w.Names, w.b, w.pos = w.Members[:0], w.Names[:0], b, 0
	w.Names = append(w.Names, prefix...)
	w.value(0, int32(len(w.Names)))
}

// Name is m's dotted name (payload.Items[0].Id); it aliases w.Names.
func (w *JSONWalk) Name(m *JSONMember) []byte { return w.Names[m.NameFrom:m.NameTo] }

// Token is m's value as written in the payload.
func (w *JSONWalk) Token(m *JSONMember) []byte { return w.b[m.From:m.To] }

// Value is m's value as a field holds it: nil for a container or null,
// bool, string, int64 for an integer that fits, else float64.
func (w *JSONWalk) Value(m *JSONMember) any {
	switch m.Kind {
	case JSONString:
		return string(w.Text(m))
	case JSONNumber:
		i, ok, f := w.Number(m)
		if ok {
			return i
		}
		return f
	case JSONTrue:
		return true
	case JSONFalse:
		return false
	}
	return nil
}

// Text is the text of string member m: its bytes between the quotes when
// it has no escape, else the string they spell.
func (w *JSONWalk) Text(m *JSONMember) []byte { return unquote(w.Token(m)) }

// Number is number member m as int64 when it is an integer that fits (ok),
// else as float64.
func (w *JSONWalk) Number(m *JSONMember) (i int64, ok bool, f float64) {
	tok := w.Token(m)
	if i, ok := smallInt(tok); ok {
		return i, true, 0
	}
	num := unsafe.String(unsafe.SliceData(tok), len(tok))
	if bytes.IndexAny(tok, ".eE") < 0 {
		// An integer of 19 digits or more: perhaps it fits. (ParseInt
		// of a fraction would only fail, making its error.)
		if i, err := strconv.ParseInt(num, 10, 64); err == nil {
			return i, true, 0
		}
	}
	f, _ = strconv.ParseFloat(num, 64)
	return 0, false, f
}

// smallInt reads an integer of at most 18 digits, which always fits an
// int64, without allocating; false sends others to strconv.
func smallInt(tok []byte) (int64, bool) {
	neg := len(tok) > 0 && tok[0] == '-'
	d := tok
	if neg {
		d = tok[1:]
	}
	if len(d) == 0 || len(d) > 18 || len(d) > 1 && d[0] == '0' {
		return 0, false
	}
	var v int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// unquote is the text a JSON string token spells: the bytes between its
// quotes when it holds no escape, else what json.Unmarshal makes of it.
func unquote(tok []byte) []byte {
	if len(tok) >= 2 && bytes.IndexByte(tok, '\\') < 0 {
		return tok[1 : len(tok)-1]
	}
	var s string
	_ = json.Unmarshal(tok, &s)
	return []byte(s)
}

func (w *JSONWalk) ws() {
	if w.pos < len(w.b) && w.b[w.pos] > ' ' {
		return // most often: no space
	}
	for w.pos < len(w.b) {
		switch w.b[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

func (w *JSONWalk) add(nf, nt int32, from int, k JSONKind) {
	w.Members = append(w.Members, JSONMember{NameFrom: nf, NameTo: nt, From: int32(from), To: int32(w.pos), Kind: k})
}

// child appends the name of a child of the member named Names[nf:nt]:
// that name, then the suffix parts; it returns the new name's span.
func (w *JSONWalk) child(nf, nt int32, sep byte, part []byte, close byte) (int32, int32) {
	from := int32(len(w.Names))
	w.Names = append(w.Names, w.Names[nf:nt]...)
	w.Names = append(w.Names, sep)
	w.Names = append(w.Names, part...)
	if close != 0 {
		w.Names = append(w.Names, close)
	}
	return from, int32(len(w.Names))
}

// value reads one value named Names[nf:nt]; the input is valid JSON, so
// the walk only has to find where things end. Bounds are still checked so
// that misuse cannot panic.
func (w *JSONWalk) value(nf, nt int32) {
	w.ws()
	if w.pos >= len(w.b) {
		return
	}
	from := w.pos
	switch c := w.b[w.pos]; {
	case c == '{':
		at := len(w.Members)
		w.add(nf, nt, from, JSONObject)
		w.pos++
		for w.ws(); w.pos < len(w.b) && w.b[w.pos] != '}'; w.ws() {
			if w.b[w.pos] == ',' {
				w.pos++
				continue
			}
			ks := w.pos
			w.str()
			cf, ct := w.child(nf, nt, '.', unquote(w.b[ks:w.pos]), 0)
			w.ws()
			if w.pos < len(w.b) && w.b[w.pos] == ':' {
				w.pos++
			}
			w.value(cf, ct)
		}
		w.pos = min(w.pos+1, len(w.b))
		w.Members[at].To = int32(w.pos)
	case c == '[':
		at := len(w.Members)
		w.add(nf, nt, from, JSONArray)
		w.pos++
		var num [20]byte
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
			cf, ct := w.child(nf, nt, '[', strconv.AppendInt(num[:0], int64(i), 10), ']')
			w.value(cf, ct)
		}
		w.pos = min(w.pos+1, len(w.b))
		w.Members[at].To = int32(w.pos)
	case c == '"':
		w.str()
		w.add(nf, nt, from, JSONString)
	case c == 't':
		w.pos = min(w.pos+4, len(w.b))
		w.add(nf, nt, from, JSONTrue)
	case c == 'f':
		w.pos = min(w.pos+5, len(w.b))
		w.add(nf, nt, from, JSONFalse)
	case c == 'n':
		w.pos = min(w.pos+4, len(w.b))
		w.add(nf, nt, from, JSONNull)
	default:
		b, pos := w.b, w.pos // locals: the loop keeps them in registers
		for pos < len(b) && isNumByte(b[pos]) {
			pos++
		}
		w.pos = pos
		w.add(nf, nt, from, JSONNumber)
	}
}

func isNumByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str moves past a JSON string starting at pos.
func (w *JSONWalk) str() {
	b, pos := w.b, w.pos+1 // locals: the loop keeps them in registers
	for pos < len(b) {
		switch b[pos] {
		case '\\':
			pos += 2
			continue
		case '"':
			w.pos = pos + 1
			return
		}
		pos++
	}
	w.pos = len(b)
}
