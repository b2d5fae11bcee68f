package follow

import "testing"

func TestHex(t *testing.T) {
	got := Hex([]byte("\x1b[2Jhello, world!!!x"))
	want := []string{
		"0000  1b 5b 32 4a 68 65 6c 6c  6f 2c 20 77 6f 72 6c 64  .[2Jhello, world",
		"0010  21 21 21 78                                       !!!x",
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Hex = %q; want %q", got, want)
	}
}
