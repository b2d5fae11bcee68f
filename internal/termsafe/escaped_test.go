package termsafe

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscaped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`plain`, `plain`},
		{`"\x1b[2J" kept`, `"\x1b[2J" kept`}, // already escaped by the decoder
		{"raw \x1b[2J", `raw \x1b[2J`},       // left raw: escaped now
		{"bidi \u202e", `bidi \u202e`},       // format character
		{`a\\b`, `a\\b`},                     // backslashes as they are
		{"\\\x1b", `\\x1b`},                  // a kept backslash before an escape
		{"bad \xff", `bad \xff`},             // invalid UTF-8
	} {
		if got := Escaped(tc.in); got != tc.want {
			t.Errorf("Escaped(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestEscapedIsTheFormerRules checks Escaped against the two rules it
// replaced: the TUI's (Escape, then every doubled backslash halved) and the
// text outputs' (Escape rune by rune, backslashes kept).
func TestEscapedIsTheFormerRules(t *testing.T) {
	tui := func(s string) string { return strings.ReplaceAll(Escape(s), `\\`, `\`) }
	text := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if chunk := s[i : i+n]; r == '\\' {
				b.WriteString(chunk)
			} else {
				b.WriteString(Escape(chunk))
			}
			i += n
		}
		return b.String()
	}
	alphabet := []string{"a", "\\", "\\\\", "\x1b", "\x7f", "\xff", "\u009b", "\u202e", "é", "\ufffd", "x", " ", "\n", "\u2028"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		got := Escaped(s)
		if want := tui(s); got != want {
			t.Fatalf("Escaped(%q) = %q; the TUI's rule gave %q", s, got, want)
		}
		if want := text(s); got != want {
			t.Fatalf("Escaped(%q) = %q; the text rule gave %q", s, got, want)
		}
	}
}
