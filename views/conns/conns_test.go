package conns

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
)

func TestSelectAndLine(t *testing.T) {
	src := fake.Capture()
	m := New()
	m.SetSize(100, 6)
	m.SetConnections(src.Conns, 6)
	if _, ok := m.Selected(); ok {
		t.Error("starts on a connection; want all connections")
	}
	m, _ = m.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	m, _ = m.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	if c, ok := m.Selected(); !ok || c != fake.USMN {
		t.Errorf("j j: %v %v; want the USMN connection", c, ok)
	}
	// The selection follows the connection when the list is refreshed.
	m.SetConnections(append(src.Conns[1:2:2], src.Conns[0]), 6)
	if c, _ := m.Selected(); c != fake.USMN {
		t.Errorf("after reordering: %v; want USMN", c)
	}
}

func TestLineShowsUSMNState(t *testing.T) {
	src := fake.Capture()
	m := New()
	m.SetSize(120, 5)
	m.SetConnections(src.Conns, 6)
	v := ansi.Strip(m.View())
	for _, want := range []string{
		"10.0.0.2:50000 ↔ 10.0.0.1:27016  usmn -/- vanilla  2 msgs 1/1B  error",
		"10.0.0.3:50001 ↔ 10.0.0.1:27016  usmn C/S wide:c2s,s2c  4 msgs 4/26B  ok",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	inf := src.Conns[1]
	inf.Inferred, inf.USMNClient = true, false
	if got := inf.WidenedText(session.Brief); got != "wide:c2s,s2c?" {
		t.Errorf("inferred widening = %q; want wide:c2s,s2c?", got)
	}
}

// TestLineShowsHost: with several captures each connection names the host
// it was first seen on (escaped); with one, nothing is added.
func TestLineShowsHost(t *testing.T) {
	src := fake.Capture()
	conns := append([]session.ConnInfo(nil), src.Conns...)
	conns[0].Host, conns[0].Capture = "eu1", "eu1.pcapng"
	conns[1].Host, conns[1].Capture = "us\x1b[2J", "us.pcapng"
	m := New()
	m.SetSize(120, 5)
	m.SetConnections(conns, 6)
	v := ansi.Strip(m.View())
	for _, want := range []string{"c1 eu1 10.0.0.2:50000 ↔", `c2 us\x1b[2J 10.0.0.3:50001 ↔`} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
}
