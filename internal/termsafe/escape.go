package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s safe to print on a terminal: C0 and C1 controls, DEL,
// bidi overrides and other format characters, and invalid UTF-8 bytes are
// written as Go escapes (\x1b, \u009b, \u202e), and a backslash is doubled,
// so a hostile string from the wire can never move the cursor, retitle the
// window or reorder text. Printable text, including non-ASCII, is kept.
// JSON output does not use this: it keeps the exact string (outputs.md).
func Escape(s string) string { return escape(s, false) }

// Escaped makes text that is built around strings already passed through
// Escape (message summaries, finding texts: the decoder escaped the wire
// strings inside them) certainly safe without escaping it twice: every rune
// Escape would escape is escaped, and backslashes are kept as they are, so
// an escape sequence already in s stays one. It is Escape's rule with the
// backslash left out; the TUI and the text outputs both print such text
// through it.
func Escaped(s string) string { return escape(s, true) }

// escape is the one escaping rule: Escape, and with keepBackslash Escaped.
func escape(s string, keepBackslash bool) string {
	if isPlain(s, keepBackslash) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\\' && keepBackslash:
			b.WriteByte('\\')
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r) // '\u009b'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII (without backslashes unless
// they are kept), the common case that needs no copy.
func isPlain(s string, keepBackslash bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '\\' && !keepBackslash {
			return false
		}
	}
	return true
}

// Unsafe reports the runes Escape writes as escapes (apart from the
// backslash): C0 and C1 controls, DEL, format characters such as bidi
// overrides and isolates, line and paragraph separators, private and
// unassigned code points, and U+FFFD (which an invalid byte decodes to).
// Writers of other syntaxes (TOML for `schema import`) escape these runes
// in their own way, so the rule stays one.
func Unsafe(r rune) bool { return r < 0x20 || r == 0x7f || unsafeRune(r) }

// unsafeRune reports runes that must not reach a terminal raw: C1 controls,
// format characters (bidi overrides and isolates, zero-width joiners),
// line and paragraph separators, and private or unassigned code points.
func unsafeRune(r rune) bool {
	if r >= 0x80 && r < 0xa0 {
		return true
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) ||
		unicode.Is(unicode.Co, r) || !unicode.IsPrint(r) && !unicode.IsSpace(r) || r == utf8.RuneError
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}
