package termsafe

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
	"unsafe"
)

// The JSON string rule: strings are spelled exactly as encoding/json spells
// them with SetEscapeHTML(false), and then the runes a terminal would act on
// are written as \uXXXX, which is the same JSON string (outputs.md).

const lowerHex = "0123456789abcdef"

// asciiSafe[b] is true for the ASCII bytes a JSON string holds unchanged:
// all but the C0 controls, '"', '\\' (which encoding/json escapes) and DEL
// (0x7f, which it leaves raw but a terminal may act on: \u007f, issue 17).
var asciiSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != 0x7f
	}
	return t
}()

// AppendJSONString appends s as a JSON string: encoding/json's escapes
// (\", \\, \b, \f, \n, \r, \t, \u00XX for other C0 controls, \ufffd for each
// byte of invalid UTF-8, \u2028 and \u2029), and the terminal escapes of
// EscapeJSON (DEL, C1 controls and bidi marks as \uXXXX, issues 8 and 17).
// Invalid UTF-8 cannot be kept in a JSON string: callers that must keep
// the exact bytes write them beside it (AppendHexIfInvalid).
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	i := plainPrefix(s)
	if i == len(s) {
		// Most strings of a record (field names, summaries): copied whole.
		dst = append(dst, s...)
		return append(dst, '"')
	}
	start := 0
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if asciiSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', lowerHex[b>>4], lowerHex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029' || TerminalRune(r):
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', lowerHex[r>>12&0xF], lowerHex[r>>8&0xF], lowerHex[r>>4&0xF], lowerHex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendJSONBytes is AppendJSONString of b's bytes, without making a
// string of them.
func AppendJSONBytes(dst, b []byte) []byte {
	return AppendJSONString(dst, unsafe.String(unsafe.SliceData(b), len(b)))
}

// EscapeJSON rewrites, in encoded JSON, the runes a terminal would
// act on that encoding/json leaves raw: DEL, C1 controls (U+0080–U+009F; U+009B
// is an 8-bit CSI) and the bidi marks, embeddings, overrides and isolates.
// JSON's structure is ASCII, so these can only sit inside strings, where
// \uXXXX is the same string (outputs.md: wire strings "escaped by the JSON
// encoder, never altered"); `dump --json` on a terminal then shows no live
// control (issue 8). b is returned unchanged when there is nothing to do.
func EscapeJSON(b []byte) []byte {
	first := -1
	for i := 0; i < len(b); i++ {
		// Eight bytes below DEL at a time: none is one to rewrite.
		for i+8 <= len(b) && below7f(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i >= len(b) {
			break
		}
		if b[i] == 0x7f {
			first = i
			break
		}
		if c := b[i]; c == 0xC2 || c == 0xD8 || c == 0xE2 {
			if r, n := utf8.DecodeRune(b[i:]); TerminalRune(r) {
				first = i
				break
			} else {
				i += n - 1
			}
		}
	}
	if first < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:first]...)
	for i := first; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || TerminalRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// TerminalRune reports the runes EscapeJSON escapes: C1 controls and the
// bidi marks, embeddings, overrides and isolates.
func TerminalRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Masks for plainPrefix's eight bytes at a time (Anderson's bit hacks:
// a word has a zero byte when (w-ones)&^w&highs is not zero).
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainPrefix returns the length of the run of bytes at the start of s
// that asciiSafe holds unchanged: eight bytes at a time while none is
// below 0x20, '"', '\\', DEL or not ASCII, then byte by byte.
func plainPrefix(s string) int {
	i := 0
	if len(s) >= 8 {
		b := unsafe.Slice(unsafe.StringData(s), len(s))
		for ; i+8 <= len(b); i += 8 {
			if !plainWord(binary.LittleEndian.Uint64(b[i:])) {
				break
			}
		}
		if i+8 > len(b) && (i == len(b) || plainWord(binary.LittleEndian.Uint64(b[len(b)-8:]))) {
			// The last eight bytes, read again in part: all plain.
			return len(b)
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || !asciiSafe[c] {
			break
		}
	}
	return i
}

// plainWord reports whether the eight bytes of w are all plain.
func plainWord(w uint64) bool {
	return (w|(w-0x20*ones)|zeroBytes(w^'"'*ones)|zeroBytes(w^'\\'*ones)|zeroBytes(w^0x7f*ones))&highs == 0
}

// below7f reports whether every byte of w is below 0x7f: adding one to
// each sets no high bit (a byte of 0x80 or more has one already).
func below7f(w uint64) bool { return (w|(w+ones))&highs == 0 }

// zeroBytes has the high bit of some byte set when a byte of w is zero
// (and none set when none is), as plainPrefix masks it with highs.
func zeroBytes(w uint64) uint64 { return (w - ones) &^ w }

// JSONPlain reports whether b is ASCII that a JSON string holds unchanged,
// so a caller can copy it between quotes without AppendJSONString.
func JSONPlain(b []byte) bool {
	return plainPrefix(unsafe.String(unsafe.SliceData(b), len(b))) == len(b)
}

// AppendHexIfInvalid appends `,"KEY":"HEX"`, the exact bytes of s in
// lower-case hex, when s is not valid UTF-8, and nothing otherwise. A JSON
// string cannot hold invalid UTF-8 (each bad byte becomes \ufffd, so
// different byte strings would read the same); the key beside it keeps
// them, as outputs.md does for ULinkRPC ("raw_hex").
func AppendHexIfInvalid(dst []byte, key, s string) []byte {
	if utf8.ValidString(s) {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':', '"')
	for i := 0; i < len(s); i++ {
		dst = append(dst, lowerHex[s[i]>>4], lowerHex[s[i]&0xF])
	}
	return append(dst, '"')
}
