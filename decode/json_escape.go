package decode

import (
	"fmt"
	"unicode/utf8"
)

// escapeTerminalJSON rewrites, in encoded JSON, the runes a terminal would
// act on that encoding/json leaves raw: C1 controls (U+0080–U+009F; U+009B
// is an 8-bit CSI) and the bidi marks, embeddings, overrides and isolates.
// JSON's structure is ASCII, so these can only sit inside strings, where
// \uXXXX is the same string (outputs.md: wire strings "escaped by the JSON
// encoder, never altered"); `dump --json` on a terminal then shows no live
// control (issue 8). b is returned unchanged when there is nothing to do.
func escapeTerminalJSON(b []byte) []byte {
	first := -1
	for i := 0; i < len(b); i++ {
		if c := b[i]; c == 0xC2 || c == 0xD8 || c == 0xE2 {
			if r, n := utf8.DecodeRune(b[i:]); terminalRune(r) {
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
		if terminalRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// terminalRune reports the runes escapeTerminalJSON escapes.
func terminalRune(r rune) bool {
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
