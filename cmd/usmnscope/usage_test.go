package main

import (
	"strings"
	"testing"
)

// TestFriendlyUsageErrors is issue 16 defect 10's CLI half: argument and
// flag errors say what is wrong in words, with the usage line; --at 0 and
// --at -3 are refused alike; unknown commands get suggestions.
func TestFriendlyUsageErrors(t *testing.T) {
	basic := fixture(t, "usmn-basic.pcapng")
	tests := []struct {
		args []string
		want []string // substrings of stderr
	}{
		{[]string{"dump"}, []string{"dump: missing CAPTURE", "\nUsage: usmnscope dump CAPTURE [flags]\n", "usmnscope dump --help"}},
		// tables takes several captures (read as one): none is the usage error.
		{[]string{"tables"}, []string{"tables: missing CAPTURE", "Usage: usmnscope tables CAPTURE"}},
		{[]string{"bits"}, []string{"bits: missing HEX", "Usage: usmnscope bits"}},
		{[]string{"tables", "--at", "abc", basic}, []string{`tables: --at "abc": want a whole number`, "Usage: usmnscope tables CAPTURE"}},
		{[]string{"tables", "--at", "0", basic}, []string{"tables: --at 0: message numbers start at 1 (leave out --at for the end of the capture)"}},
		{[]string{"tables", "--at", "-3", basic}, []string{"tables: --at -3: message numbers start at 1 (leave out --at for the end of the capture)"}},
		{[]string{"tables", "--json", "--at", "0", basic}, []string{"message numbers start at 1"}},
		{[]string{"tables", "--at", "99999999999999999999", basic}, []string{"--at \"99999999999999999999\": out of range"}},
		{[]string{"bits", "--id-bits", "x", "00"}, []string{`--id-bits "x": want a whole number`}},
		{[]string{"bits", "--widened=maybe", "00"}, []string{`--widened "maybe": want true or false`}},
		{[]string{"dump", "--max-flows", "abc", basic}, []string{`--max-flows "abc": want a whole number`}},
		{[]string{"live", "--duration", "10"}, []string{`--duration "10": want a duration`}},
		{[]string{"simulate", "--speed", "fast"}, []string{`--speed "fast": want a number`}},
		{[]string{"dupm", basic}, []string{"Did you mean this?\n\tdump\n", "Run 'usmnscope --help' for usage."}},
		{[]string{"tabel", basic}, []string{"\ttables\n"}},
		{[]string{"inspect", basic}, []string{"\topen\n"}},
		{[]string{"decode", "00"}, []string{"\tbits\n"}},
		{[]string{"profile", "shwo"}, []string{`unknown command "shwo" for "usmnscope profile"`, "\tshow\n"}},
	}
	for _, tt := range tests {
		code, out, errOut := run(t, nil, tt.args...)
		if code != exitUsage || out != "" {
			t.Errorf("usmnscope %s = exit %d, stdout %q; want exit 2 and nothing", strings.Join(tt.args, " "), code, out)
		}
		for _, w := range tt.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("usmnscope %s: stderr %q; want %q", strings.Join(tt.args, " "), errOut, w)
			}
		}
		// No raw parser text (strconv.ParseInt: parsing "abc": invalid syntax).
		for _, raw := range []string{"strconv.", "invalid syntax", "time: invalid", "arg(s)"} {
			if strings.Contains(errOut, raw) {
				t.Errorf("usmnscope %s: stderr %q holds the raw %q", strings.Join(tt.args, " "), errOut, raw)
			}
		}
	}
	// Without --at the tables are the end of the capture's.
	if code, out, _ := run(t, nil, "tables", basic); code != exitOK || !strings.Contains(out, "as of end of capture") {
		t.Errorf("tables without --at = exit %d, %q; want the end of the capture", code, out)
	}
}
