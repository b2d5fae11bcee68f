package detail

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/fake"
)

func press(k string) tea.KeyPressMsg {
	if k == "enter" {
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}

func TestTree(t *testing.T) {
	m := New()
	m.SetSize(60, 30)
	m.SetMessage(fake.InvokeDefinition(2, 0, fake.ChatType))
	got := strings.Join(m.Lines(), "\n")
	for _, want := range []string{
		"  #2 frame 2 s2c 10.0.0.3:50001-10.0.0.1:27016 ",
		"InvokeMessageListener: enum 32 (6 bits, widened)",
		"▾ Fields (6)",
		"    @0+6 enum = 32 (0x20)",
		"    @6+1 Has_Listener_Definition = true",
		"    @7+5 Serverside_ID_Bit_Count = 2 (0x2)",
		"    @12+2 Listener_ID = 0 (0x0)",
		// 1 + 11 bits, 6 pad bits to align at 32, 27 bytes (wire.md 1.3)
		`    @14+234 Listener_Type_Name = "Sample.ChatListener, Sample"`,
		"▾ Listener resolved",
		`    type: "Sample.ChatListener, Sample"`,
		"    server id: 0",
		"    client id: unknown",
		"  @280+16 payload: 16 bits",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tree lacks %q; tree:\n%s", want, got)
		}
	}
}

func TestExpandCollapseAndSelect(t *testing.T) {
	m := New()
	m.SetSize(60, 30)
	m.SetMessage(fake.InvokeDefinition(2, 0, fake.ChatType))
	all := len(m.Lines())
	m, _ = m.Update(press("j"))
	m, _ = m.Update(press("j")) // on "Fields"
	if m.SelectedField() != -1 {
		t.Errorf("on the Fields group: SelectedField() = %d; want -1", m.SelectedField())
	}
	m, _ = m.Update(press("enter"))
	if got := len(m.Lines()); got != all-6 {
		t.Errorf("collapsed Fields: %d lines; want %d", got, all-6)
	}
	// The state is the pane's: it survives another message.
	m.SetMessage(fake.InvokeDefinition(4, 1, "X"))
	if got := m.Lines()[2]; !strings.HasPrefix(got, "▸ Fields") {
		t.Errorf("after SetMessage, line 2 = %q; want collapsed Fields", got)
	}
	m.SelectField(3) // opens the group
	if m.SelectedField() != 3 || !strings.Contains(m.Lines()[2], "▾ Fields") {
		t.Errorf("SelectField(3): SelectedField %d, line %q", m.SelectedField(), m.Lines()[2])
	}
	m, _ = m.Update(press("j"))
	if m.SelectedField() != 4 {
		t.Errorf("j after field 3: SelectedField() = %d; want 4", m.SelectedField())
	}
}

func TestDottedAndHostile(t *testing.T) {
	m := New()
	m.SetSize(80, 30)
	m.SetMessage(&session.Message{N: 1, Kind: unturned.Kind(250), Data: []byte{0, 1},
		Fields: []netpak.Span{
			{Name: "enum", Bit: 0, Bits: 4, Value: uint64(0)},
			{Name: "marker.magic", Bit: 4, Bits: 32, Value: uint64(0x4E4D5355)},
			{Name: "marker.usmn_version", Bit: 36, Bits: 32, Value: uint64(1)},
			{Name: "name", Bit: 68, Bits: 8, Value: "a\x1b]0;x\x07\u202e"},
		},
		Findings: []dissect.Finding{{Severity: dissect.Warn, Group: dissect.Protocol, Text: "bad\x9bthing", Bit: -1}},
	})
	got := strings.Join(m.Lines(), "\n")
	for _, want := range []string{"  ▾ marker", "      @4+32 magic = 1313690453 (0x4e4d5355)", `name = "a\x1b]0;x\x07\u202e"`, `warn/protocol: bad\x9bthing`, `Unknown(250)`} {
		if !strings.Contains(got, want) {
			t.Errorf("tree lacks %q:\n%s", want, got)
		}
	}
	v := ansi.Strip(m.View())
	if strings.ContainsAny(v, "\x1b\x07\u202e\u009b") {
		t.Errorf("view holds raw control characters: %q", v)
	}
}
