package frame

import "testing"

func TestLineAndBlock(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{{"abc", 5, "abc  "}, {"abcdef", 4, "abc…"}, {"↔x", 3, "↔x "}, {"x", 0, ""}} {
		if got := Line(tc.in, tc.w); got != tc.want {
			t.Errorf("Line(%q, %d) = %q; want %q", tc.in, tc.w, got, tc.want)
		}
	}
	if got, want := Block([]string{"a", "b", "c"}, 2, 2), "a \nb "; got != want {
		t.Errorf("Block = %q; want %q", got, want)
	}
}

func TestScroll(t *testing.T) {
	for _, tc := range []struct{ off, cur, h, n, want int }{
		{0, 5, 10, 100, 0}, {0, 10, 10, 100, 1}, {50, 20, 10, 100, 20}, {95, 99, 10, 100, 90}, {0, 0, 10, 3, 0},
	} {
		if got := Scroll(tc.off, tc.cur, tc.h, tc.n); got != tc.want {
			t.Errorf("Scroll(%d, %d, %d, %d) = %d; want %d", tc.off, tc.cur, tc.h, tc.n, got, tc.want)
		}
	}
}
