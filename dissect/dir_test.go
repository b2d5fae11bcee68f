package dissect

import "testing"

// TestParseDir reads back what Dir.String writes, and nothing else.
func TestParseDir(t *testing.T) {
	for _, d := range []Dir{C2S, S2C} {
		if got, ok := ParseDir(d.String()); !ok || got != d {
			t.Errorf("ParseDir(%q) = %v, %v; want %v", d.String(), got, ok, d)
		}
	}
	for _, s := range []string{"", "C2S", "c2s ", "up"} {
		if _, ok := ParseDir(s); ok {
			t.Errorf("ParseDir(%q) = ok; want refused", s)
		}
	}
}
