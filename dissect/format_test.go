package dissect

import "testing"

func TestFormatValue(t *testing.T) {
	long := make([]byte, 33)
	for _, tt := range []struct {
		in         any
		tree, text string
	}{
		{nil, "-", "(none)"},
		{true, "true", "true"},
		{uint64(4001), "4001 (0xfa1)", "4001"},
		{int64(-3), "-3", "-3"},
		{1.5, "1.5", "1.5"},
		{"Sample.Chat\x1b]0;pwned\x07", `"Sample.Chat\x1b]0;pwned\x07"`, `"Sample.Chat\x1b]0;pwned\x07"`},
		{[]byte{0xde, 0xad}, "dead", "dead"},
		{long, "0000000000000000000000000000000000000000000000000000000000000000… (33 bytes)", "0000000000000000000000000000000000000000000000000000000000000000… (33 bytes)"},
		{C2S, "c2s", "c2s"},
	} {
		if got := FormatValue(tt.in, TreeValues); got != tt.tree {
			t.Errorf("FormatValue(%#v, TreeValues) = %s; want %s", tt.in, got, tt.tree)
		}
		if got := FormatValue(tt.in, TextValues); got != tt.text {
			t.Errorf("FormatValue(%#v, TextValues) = %s; want %s", tt.in, got, tt.text)
		}
	}
}

func TestOwners(t *testing.T) {
	fields := []Field{{Name: "a", Bit: 0, Bits: 3}, {Name: "b", Bit: 3, Bits: 0}, {Name: "c", Bit: 5, Bits: 4}, {Name: "bad", Bit: 14, Bits: 10}}
	got := Owners(fields, 16)
	want := []int32{0, 0, 0, -1, -1, 2, 2, 2, 2, -1, -1, -1, -1, -1, 3, 3}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Owners(...)[%d] = %d; want %d", i, got[i], want[i])
		}
	}
}
