package session

import "testing"

func TestWidenedText(t *testing.T) {
	for _, tt := range []struct {
		ci          ConnInfo
		brief, full string
	}{
		{ConnInfo{}, "vanilla", ""},
		{ConnInfo{Widened: [2]bool{true, true}, WidenedAt: [2]int{3, 4}}, "wide:c2s,s2c", "widened c2s from #3, s2c from #4"},
		{ConnInfo{Widened: [2]bool{false, true}, WidenedAt: [2]int{0, 9}, Inferred: true}, "wide:s2c?", "widened s2c from #9 (inferred)"},
		// Both markers seen, no message since (a capture or a tables --at
		// cut that ends at the handshake).
		{ConnInfo{Widened: [2]bool{true, true}, WidenedAt: [2]int{0, 4}}, "wide:c2s,s2c", "widened c2s from its next message, s2c from #4"},
	} {
		if got := tt.ci.WidenedText(Brief); got != tt.brief {
			t.Errorf("WidenedText(Brief) of %+v = %q; want %q", tt.ci, got, tt.brief)
		}
		if got := tt.ci.WidenedText(Full); got != tt.full {
			t.Errorf("WidenedText(Full) of %+v = %q; want %q", tt.ci, got, tt.full)
		}
	}
}
