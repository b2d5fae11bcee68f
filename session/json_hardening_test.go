package session

import (
	"encoding/json"
	"testing"
)

// A C1 CSI or a bidi override in a listener type name must leave the JSON
// as a \u escape (a terminal showing `dump --json` would act on it raw) and
// decode back to exactly the same string (outputs.md: never altered).
func TestEscapeTerminalJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", `"plain"`},
		{"Evil.\u009b7mC1", `"Evil.\u009b7mC1"`},
		{"a\u202eb\u2066c\u200fd\u061ce", `"a\u202eb\u2066c\u200fd\u061ce"`},
		{"é→✓", `"é→✓"`},
		{"\u0085", `"\u0085"`},
	}
	for _, tc := range tests {
		b, err := marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("marshal(%q) = %s; want %s", tc.in, b, tc.want)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != tc.in {
			t.Errorf("unmarshal(%s) = %q, %v; want %q", b, back, err, tc.in)
		}
	}
}
