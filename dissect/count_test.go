package dissect

import "testing"

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		unit string
		want string
	}{
		{0, "byte", "0 bytes"},
		{1, "byte", "1 byte"},
		{2, "byte", "2 bytes"},
		{1, "member", "1 member"},
		{-1, "bit", "-1 bit"},
		{1, "payload bit", "1 payload bit"},
		{40, "payload bit", "40 payload bits"},
	} {
		if got := Count(tt.n, tt.unit); got != tt.want {
			t.Errorf("Count(%d, %q) = %q; want %q", tt.n, tt.unit, got, tt.want)
		}
	}
}
