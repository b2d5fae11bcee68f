package enum

import "testing"

func TestName(t *testing.T) {
	names := []string{0: "zero", 2: "two"}
	for _, tc := range []struct {
		v    int
		want string
	}{{0, "zero"}, {1, "Unknown(1)"}, {2, "two"}, {3, "Unknown(3)"}, {-1, "Unknown(-1)"}} {
		if got := Name(names, tc.v); got != tc.want {
			t.Errorf("Name(%d) = %q; want %q", tc.v, got, tc.want)
		}
	}
	if got := Name(names, uint8(255)); got != "Unknown(255)" {
		t.Errorf("Name(uint8 255) = %q; want Unknown(255)", got)
	}
}
