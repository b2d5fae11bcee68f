package expert

import (
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

func TestLinesGroupedWorstFirst(t *testing.T) {
	c := dissect.Conn{}
	items := []Item{
		{Finding: dissect.Finding{Severity: dissect.Note, Group: dissect.Protocol, Text: "n1"}},
		{Finding: dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: "e1"}, Msg: 5},
		{Finding: dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Text: "w1"}, Conn: &c},
		{Finding: dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: "e2\x1b[2J"}, Msg: 7},
	}
	var got []string
	for _, l := range Lines(items, 80) {
		got = append(got, strings.TrimSpace(l.Text))
	}
	want := []string{"ERROR (2)", "malformed (2)", "E #5: e1", `E #7: e2\x1b[2J`, "WARN (1)", "protocol (1)", "W invalid AddrPort-invalid AddrPort: w1", "NOTE (1)", "protocol (1)", "N capture: n1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Lines =\n%q\nwant\n%q", got, want)
	}
	if l := Lines(items, 80)[2]; l.Msg != 5 {
		t.Errorf("message finding goes to %d; want 5", l.Msg)
	}
}
