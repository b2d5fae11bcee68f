package frame

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		in   string
		w    int
		want []string
	}{
		{"short", 20, []string{"short"}},
		{"run the server with -NetTransport SystemSockets", 20, []string{"run the server with", "-NetTransport", "SystemSockets"}},
		{strings.Repeat("x", 20), 8, []string{"xxxxxxxx", "xxxxxxxx", "xxxx"}},
		{"a\nb", 8, []string{"a", "b"}},
	} {
		if got := Wrap(tt.in, tt.w); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Wrap(%q, %d) = %q; want %q", tt.in, tt.w, got, tt.want)
		}
	}
}
