package tables

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/fake"
)

func TestLinesAndChanged(t *testing.T) {
	src := fake.Capture()
	m := New()
	m.SetSize(80, 20)
	m.SetTables(src.Tables(fake.USMN, 2))
	got := strings.Join(m.Lines(), "\n")
	if !strings.Contains(got, "* s0    Sample.ChatListener, Sample v1  definition #2") {
		t.Errorf("as of 2, entry 0 changed; got:\n%s", got)
	}
	m.SetTables(src.Tables(fake.USMN, 4))
	got = strings.Join(m.Lines(), "\n")
	if !strings.Contains(got, "  s0 ") || !strings.Contains(got, `* s1    Evil\x1b[2J\x1b]0;pwned\x07\u202eltr\x9b v1`) {
		t.Errorf("as of 4: entry 0 unchanged, 1 changed and escaped; got:\n%s", got)
	}
	m.SetTables(&session.Tables{Conn: fake.USMN, AsOf: 9,
		Client:          []session.ClientEntry{{ID: 4001, Type: "T", Mapped: true, ServerID: 0}, {ID: 4002, Type: "U"}},
		MissingOnServer: []uint32{4002}, Unresolved: []session.Ref{{N: 8, Dir: dissect.S2C, ID: 5}},
		Warnings: []dissect.Finding{{Severity: dissect.Warn, Group: dissect.Protocol, Text: "version 2 ≠ 1"}}})
	got = strings.Join(m.Lines(), "\n")
	for _, want := range []string{"c4001 → s0 T", "c4002 → ? U", "Missing on server: [4002]", "#8 s2c id 5", "warn/protocol: version 2 ≠ 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("tables lack %q:\n%s", want, got)
		}
	}
}

func TestSelectEmitsListener(t *testing.T) {
	src := fake.Capture()
	m := New()
	m.SetSize(80, 20)
	m.Focus()
	m.SetTables(src.Tables(fake.USMN, 6))
	m, _ = m.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	m, _ = m.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter on an entry: no command")
	}
	l, ok := cmd().(ListenerMsg)
	if !ok || !l.Server || l.ID != 1 || l.Conn != fake.USMN {
		t.Fatalf("enter on s1: %+v", l)
	}
	for _, tc := range []struct {
		msg  *session.Message
		want bool
	}{
		{src.Message(4), true}, {src.Message(6), true}, {src.Message(2), false}, {src.Message(1), false},
	} {
		if got := l.Match(tc.msg); got != tc.want {
			t.Errorf("server 1 Match(message %d) = %v; want %v", tc.msg.N, got, tc.want)
		}
	}
	// A client entry matches its own ID and, once mapped, its server ID.
	c := ListenerMsg{Conn: fake.USMN, ID: 4001, Mapped: true, ServerID: 0}
	if !c.Match(src.Message(3)) || c.Match(src.Message(6)) {
		t.Errorf("client 4001→s0: Match(3)=%v Match(6)=%v; want true false", c.Match(src.Message(3)), c.Match(src.Message(6)))
	}
	// On a heading, enter does nothing.
	m.SetCursor(0, len(m.lines))
	if _, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); cmd != nil {
		t.Error("enter on a heading returned a command")
	}
}
