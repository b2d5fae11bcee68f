package tables

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/fake"
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
	for _, want := range []string{"c4001 → s0 T", "c4002 → ? U", "Missing on server (1)", "  c4002 U", "#8 s2c id 5", "warn/protocol: version 2 ≠ 1"} {
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

// Issue 16 defect 4: a server entry and the client entry mapped to it list
// the same messages, the client's definition (named by its client ID only)
// included.
func TestServerEntryMatchesMappedClient(t *testing.T) {
	u32 := func(v uint32) *uint32 { return &v }
	typ := "Sample.InventoryListener"
	def := &session.Message{N: 9, Conn: fake.USMN, Dir: dissect.C2S, Listener: &unturned.Listener{Type: &typ, ClientID: u32(4002)}}
	inv := &session.Message{N: 10, Conn: fake.USMN, Dir: dissect.S2C, Listener: &unturned.Listener{ServerID: u32(1)}}
	tb := &session.Tables{Conn: fake.USMN, AsOf: 11,
		Server: []session.ServerEntry{{ID: 1, Type: typ}},
		Client: []session.ClientEntry{{ID: 4002, Type: typ, Mapped: true, ServerID: 1}}}
	m := New()
	m.SetSize(80, 20)
	m.SetTables(tb)
	var srv, cli ListenerMsg
	for i := range m.lines {
		if e := m.lines[i].entry; e != nil && e.Server {
			srv = *e
		} else if e != nil {
			cli = *e
		}
	}
	for _, msg := range []*session.Message{def, inv} {
		if srv.Match(msg) != cli.Match(msg) || !srv.Match(msg) {
			t.Errorf("message %d: s1 Match = %v, c4002 Match = %v; want both true", msg.N, srv.Match(msg), cli.Match(msg))
		}
	}
}

// Issue 16 defect 5: missing listeners are named with their type.
func TestMissingNamed(t *testing.T) {
	m := New()
	m.SetSize(80, 20)
	m.SetTables(&session.Tables{Conn: fake.USMN, Server: []session.ServerEntry{{ID: 7, Type: "Sample.Inventory"}},
		MissingOnClient: []uint32{7, 9}})
	got := strings.Join(m.Lines(), "\n")
	for _, want := range []string{"Missing on client (2)", "s7 Sample.Inventory", "s9 (type unknown)"} {
		if !strings.Contains(got, want) {
			t.Errorf("tables lack %q:\n%s", want, got)
		}
	}
}
