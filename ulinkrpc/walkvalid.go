package ulinkrpc

import (
	"strconv"
	"unicode/utf8"
)

// WalkValid is Walk of b when b is one JSON value in valid UTF-8
// (isJSON), and false when it is not: one pass both checks it, as
// validJSON and utf8.Valid do, and lists its members (issue 28: the
// check and the walk read each payload twice more on the encoding
// goroutine of `dump --json`). It also sets Plain and Spaced. After
// false the walk's buffers hold nothing of use.
func (w *JSONWalk) WalkValid(b []byte, prefix string) bool {
	w.Members, w.Names, w.b, w.pos = w.Members[:0], w.Names[:0], b, 0
	w.Names = append(w.Names, prefix...)
	w.Plain, w.Spaced, w.high = true, false, false
	if !w.checked(0, int32(len(w.Names)), 0) {
		return false
	}
	w.space()
	if w.pos != len(b) {
		return false
	}
	// Bytes of 0x80 and more can only be in strings (the grammar is
	// ASCII): UTF-8's test reads the payload again only for them.
	return !w.high || utf8.Valid(b)
}

// space moves past JSON space, noting it in Spaced.
func (w *JSONWalk) space() {
	b, pos := w.b, w.pos
	if pos < len(b) && b[pos] > ' ' {
		return // most often: no space
	}
	for pos < len(b) && (b[pos] == ' ' || b[pos] == '\t' || b[pos] == '\n' || b[pos] == '\r') {
		pos++
	}
	if pos != w.pos {
		w.Spaced = true
	}
	w.pos = pos
}

// checked reads one value named Names[nf:nt], inside depth containers,
// as value does, and reports whether it is valid JSON (validJSON's
// grammar and nesting bound).
func (w *JSONWalk) checked(nf, nt int32, depth int) bool {
	w.space()
	b := w.b
	n := len(b)
	if w.pos >= n {
		return false
	}
	from := w.pos
	switch c := b[w.pos]; {
	case c == '{' || c == '[':
		if depth+1 > maxJSONDepth {
			return false
		}
		kind, last := JSONArray, byte(']')
		if c == '{' {
			kind, last = JSONObject, '}'
		}
		at := len(w.Members)
		w.add(nf, nt, from, kind)
		w.pos++
		w.space()
		if w.pos < n && b[w.pos] == last {
			w.pos++
			w.Members[at].To = int32(w.pos)
			return true
		}
		var num [20]byte
		for i := 0; ; i++ {
			var cf, ct int32
			if c == '{' {
				var ok bool
				if cf, ct, ok = w.checkedKey(nf, nt); !ok {
					return false
				}
			} else {
				cf, ct = w.child(nf, nt, '[', strconv.AppendInt(num[:0], int64(i), 10), ']')
			}
			if !w.checked(cf, ct, depth+1) {
				return false
			}
			w.space()
			if w.pos >= n {
				return false
			}
			if d := b[w.pos]; d == ',' {
				w.pos++
				w.space()
				continue
			} else if d == last {
				w.pos++
				break
			}
			return false
		}
		w.Members[at].To = int32(w.pos)
	case c == '"':
		if !w.checkedStr() {
			return false
		}
		w.add(nf, nt, from, JSONString)
	case c == 't' || c == 'f' || c == 'n':
		lit, kind := "null", JSONNull
		if c == 't' {
			lit, kind = "true", JSONTrue
		} else if c == 'f' {
			lit, kind = "false", JSONFalse
		}
		if from+len(lit) > n || string(b[from:from+len(lit)]) != lit {
			return false
		}
		w.pos += len(lit)
		w.add(nf, nt, from, kind)
	case c == '-' || c >= '0' && c <= '9':
		end, isInt := checkedNumber(b, from)
		if end < 0 {
			return false
		}
		w.pos = end
		w.add(nf, nt, from, JSONNumber)
		w.Members[len(w.Members)-1].Int = isInt
	default:
		return false
	}
	return true
}

// checkedKey reads an object's key at pos, its colon and the space
// between, and gives the span in Names of its member's name, a child of
// Names[nf:nt]; false when there is no key.
func (w *JSONWalk) checkedKey(nf, nt int32) (int32, int32, bool) {
	b := w.b
	if w.pos >= len(b) || b[w.pos] != '"' {
		return 0, 0, false
	}
	ks := w.pos
	plain := w.Plain
	if !w.checkedStr() {
		return 0, 0, false
	}
	var key []byte
	if plain && w.Plain {
		key = b[ks+1 : w.pos-1] // no escape: its bytes
	} else {
		key = unquote(b[ks:w.pos])
	}
	cf, ct := w.child(nf, nt, '.', key, 0)
	w.space()
	if w.pos >= len(b) || b[w.pos] != ':' {
		return 0, 0, false
	}
	w.pos++
	return cf, ct, true
}

// checkedStr moves past the string whose opening quote is at pos, as
// jsonString reads it, and reports whether it is one; a string with an
// escape, DEL or a byte of 0x80 or more makes the walk not Plain.
func (w *JSONWalk) checkedStr() bool {
	b, i := w.b, w.pos+1 // locals: the loop keeps them in registers
	n := len(b)
	for i < n {
		c := b[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		switch {
		case c == '"':
			w.pos = i + 1
			return true
		case c < 0x20:
			return false
		case c >= 0x7f:
			// DEL, or a byte of a rune termsafe may escape.
			w.Plain = false
			if c >= 0x80 {
				w.high = true
			}
			i++
			continue
		}
		// An escape.
		w.Plain = false
		if i+1 >= n {
			return false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > n || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return false
			}
			i += 6
		default:
			return false
		}
	}
	return false
}

// checkedNumber is jsonNumber, and whether the number is an integer of
// at most 18 digits other than -0 (JSONMember.Int).
func checkedNumber(b []byte, i int) (end int, isInt bool) {
	from := i
	end = jsonNumber(b, i)
	if end < 0 {
		return -1, false
	}
	d := end - from
	if b[from] == '-' {
		d--
		if end-from == 2 && b[from+1] == '0' {
			return end, false // -0: AppendInt spells 0
		}
	}
	if d > 18 {
		return end, false
	}
	for _, c := range b[from:end] {
		if c == '.' || c == 'e' || c == 'E' {
			return end, false
		}
	}
	return end, true
}
