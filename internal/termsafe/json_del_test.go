package termsafe

import (
	"encoding/json"
	"testing"
)

// TestJSONDelAndInvalid: DEL is written \u007f by both JSON paths (issue
// 17: encoding/json leaves it raw), which reads back as the same string;
// invalid UTF-8 keeps its exact bytes in hex beside the escaped text, so
// two byte strings that read the same in JSON stay apart.
func TestJSONDelAndInvalid(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\x7fb", `"a\u007fb"`},
		{"\x7f", `"\u007f"`},
		{"a~", `"a~"`},
	} {
		got := string(AppendJSONString(nil, tc.in))
		if got != tc.want {
			t.Errorf("AppendJSONString(%q) = %s; want %s", tc.in, got, tc.want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil || back != tc.in {
			t.Errorf("%s reads back as %q (%v); want %q", got, back, err, tc.in)
		}
		raw, _ := json.Marshal(tc.in)
		if esc := string(EscapeJSON(raw)); esc != tc.want {
			t.Errorf("EscapeJSON(%s) = %s; want %s", raw, esc, tc.want)
		}
	}
	if JSONPlain([]byte("a\x7f")) {
		t.Errorf("JSONPlain(a DEL) = true; want false")
	}
	for _, tc := range []struct{ in, want string }{
		{"ok", ""},
		{"\xff", `,"raw_hex":"ff"`},
		{"\xfe", `,"raw_hex":"fe"`},
		{"a\xc3(", `,"raw_hex":"61c328"`},
	} {
		if got := string(AppendHexIfInvalid(nil, "raw_hex", tc.in)); got != tc.want {
			t.Errorf("AppendHexIfInvalid(%q) = %s; want %s", tc.in, got, tc.want)
		}
	}
	// \xff and \xfe both read "\ufffd" in JSON: only the hex tells them apart.
	if string(AppendJSONString(nil, "\xff")) != string(AppendJSONString(nil, "\xfe")) {
		t.Errorf("invalid bytes no longer collide in the JSON text: the hex key may be unneeded")
	}
}
