package views

import (
	"testing"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views/messages"
)

// TestColumnsSaved: removing a column hands the sets to Columns.Save (the
// config file), in a command.
func TestColumnsSaved(t *testing.T) {
	var saved map[string][]messages.Column
	cfg := Config{Name: "t", Parse: testParse, Columns: Columns{
		Sets:   map[string][]messages.Column{"all": {{Field: "len", Width: 5}, {Field: "listener", Width: 16}}},
		Lookup: func(string, *session.Message) messages.Value { return messages.Value{} },
		Save:   func(s map[string][]messages.Column) error { saved = s; return nil },
	}}
	m := New(fake.Capture(), cfg)
	for _, k := range []string{">", ">", ">", ">", ">", "X"} {
		m = send(m, keyMsg(k))
	}
	if got := saved["all"]; len(got) != 1 || got[0].Field != "listener" {
		t.Errorf("saved %v; want all = [listener] after removing len", saved)
	}
}
