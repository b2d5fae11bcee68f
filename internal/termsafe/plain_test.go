package termsafe

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestPlainPrefix holds plainPrefix, eight bytes at a time, to the byte
// rule (asciiSafe) for every byte value at every position of strings of
// several lengths, and AppendJSONString, which copies that prefix whole,
// to encoding/json plus EscapeJSON.
func TestPlainPrefix(t *testing.T) {
	byByte := func(s string) int {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c >= 0x80 || !asciiSafe[c] {
				return i
			}
		}
		return len(s)
	}
	for _, n := range []int{0, 1, 7, 8, 9, 12, 15, 16, 17, 23, 31} {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("Listener_Type_Name", 2)[:n])
				b[pos] = byte(c)
				s := string(b)
				if got, want := plainPrefix(s), byByte(s); got != want {
					t.Fatalf("plainPrefix(%q) = %d; want %d", s, got, want)
				}
			}
		}
	}
	for _, s := range []string{"", "Has_Listener_Definition", "marker.Serverside_ID_Bit_Count", "say \"hi\" \\ now", "tab\there and more text", "é accent after eight", "12345678\x7f", "12345678\u202e"} {
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		want := string(EscapeJSON(raw))
		if !strings.Contains(s, "\"") && !strings.Contains(s, "\\") {
			// encoding/json escapes HTML; AppendJSONString does not.
			want = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(want)
		}
		if got := string(AppendJSONString(nil, s)); got != want {
			t.Errorf("AppendJSONString(%q) = %s; want %s", s, got, want)
		}
	}
}

// TestEscapeJSONWords: EscapeJSON, which passes eight plain bytes at a
// time, rewrites what its byte rule does for DEL, the C1 controls and the
// bidi marks at every position of strings of several lengths.
func TestEscapeJSONWords(t *testing.T) {
	byRune := func(b []byte) string {
		var out strings.Builder
		for _, r := range string(b) {
			if r == 0x7f || TerminalRune(r) {
				fmt.Fprintf(&out, `\u%04x`, r)
			} else {
				out.WriteRune(r)
			}
		}
		return out.String()
	}
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 24, 31} {
		for pos := 0; pos <= n; pos++ {
			for _, ins := range []string{"\x7f", "\u0085", "\u202e", "\u200f", "\u061c", "é", "\u2028", "~", "\u00a0"} {
				b := []byte(strings.Repeat("abcdefgh", 4)[:n])
				b = append(b[:pos:pos], append([]byte(ins), b[pos:]...)...)
				if got, want := string(EscapeJSON(b)), byRune(b); got != want {
					t.Fatalf("EscapeJSON(%q) = %q; want %q", b, got, want)
				}
			}
		}
	}
}
