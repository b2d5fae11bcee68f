package views

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views/filterbar"
)

// Issue 16 defect 2: rows of all connections name their connection.
func TestAllConnectionsHaveConnColumn(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	s := screen(m)
	for _, want := range []string{"1   0.000000 c1  → PingRequest", "2   0.100000 c2  ← InvokeMessageListener"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

// Issue 16 defect 3: :N under a filter never leaves the bar showing a
// filter the list no longer applies.
func TestGotoKeepsBarConsistent(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "/", "s", "e", "v", "enter", ":", "2", "enter")
	if m.bar.Applied() != "" && !m.msgs.Filtered() {
		t.Errorf("bar shows %q but the list is unfiltered", m.bar.Applied())
	}
	if m.bar.Applied() == "" && m.msgs.Filtered() {
		t.Error("list filtered with an empty bar")
	}
	if m.Selected() != 2 || !strings.Contains(m.Note(), "cleared") {
		t.Errorf("selected %d, note %q; want 2 and a word that filters were cleared", m.Selected(), m.Note())
	}
}

// Issue 16 defect 10: :999 says it is past the end and stays put.
func TestGotoPastEnd(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "j", ":", "9", "9", "9", "enter")
	if m.Selected() != 2 || !strings.Contains(screen(m), "past the end") {
		t.Errorf("selected %d; screen:\n%s", m.Selected(), screen(m))
	}
}

// Issue 16 defect 10: Ctrl-U clears the filter line.
func TestFilterCtrlUClears(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "/", "s", "e", "v", "enter", "/")
	m = send(m, tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	if m.bar.Value() != "" {
		t.Errorf("ctrl+u left %q", m.bar.Value())
	}
}

// Issue 16 defect 10: space on a file says it paused.
func TestPauseFeedbackOnFile(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "space")
	if s := screen(m); !strings.Contains(s, "PAUSED") {
		t.Errorf("no pause feedback:\n%s", s)
	}
}

// Issue 16 defect 10: the connections pane is as tall as its rows, and in
// address order.
func TestConnsSizedAndOrdered(t *testing.T) {
	src := fake.Capture()
	src.Conns = []session.ConnInfo{src.Conns[1], src.Conns[0]} // seen USMN first
	m := loaded(t, src, 160, 48)
	if h := m.conns.Height(); h != 4 {
		t.Errorf("connections pane %d rows; want 4 (title, all, two)", h)
	}
	if c, _ := m.conns.Info(); true {
		_ = c
	}
	lines := strings.Split(screen(m), "\n")
	if !strings.Contains(lines[2], "10.0.0.2:50000") || !strings.Contains(lines[3], "10.0.0.3:50001") {
		t.Errorf("not in address order:\n%s\n%s", lines[2], lines[3])
	}
}

// Issue 16 defect 6: v shows the selected field whole, wrapped.
func TestLongTextReadable(t *testing.T) {
	long := strings.Repeat("Very.Long.Listener.Type.Name ", 70) // 2030 bytes
	src := fake.Capture()
	field := -1
	for i, f := range src.Msgs[1].Fields {
		if _, ok := f.Value.(string); ok {
			field = i
			src.Msgs[1].Fields[i].Value = long
		}
	}
	m := loaded(t, src, 80, 24)
	m = press(t, m, "j", "tab")
	m.detail.SelectField(field)
	m = press(t, m, "v")
	if m.Overlay() != TextOverlay {
		t.Fatalf("v: overlay %v", m.Overlay())
	}
	var all strings.Builder
	for _, l := range m.pager.Lines() {
		all.WriteString(strings.TrimSpace(l.Text) + " ")
	}
	if got := strings.Count(all.String(), "Very.Long.Listener.Type.Name"); got != 70 {
		t.Errorf("pop-up shows %d of 70 repeats:\n%s", got, screen(m))
	}
}

// Issue 16 defect 7: while typing a filter the help line shows the bar's
// keys, and n is offered nowhere.
func TestHelpLineWhileFiltering(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	if strings.Contains(screen(m), "next match") {
		t.Error("n next match still offered")
	}
	m = press(t, m, "/")
	last := strings.Split(screen(m), "\n")[23]
	if !strings.Contains(last, "apply") || strings.Contains(last, "down") {
		t.Errorf("help line while filtering: %q", last)
	}
}

// Issue 16: Enter in the expert pane goes to the message.
func TestExpertJumps(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "e")
	if m.Overlay() != ExpertOverlay {
		t.Fatal("e opened no expert pane")
	}
	// Move to the first line naming a message, then Enter.
	for i := 0; i < 10 && m.pager.Lines()[m.pager.Cursor()].Msg == 0; i++ {
		m = press(t, m, "j")
	}
	want := m.pager.Lines()[m.pager.Cursor()].Msg
	m = press(t, m, "enter")
	if m.Overlay() != NoOverlay || m.Selected() != want || want == 0 {
		t.Errorf("enter: overlay %v, selected %d; want message %d", m.Overlay(), m.Selected(), want)
	}
}

// Issue 16 defect 1: a capture with no messages but capture findings
// shows them at once.
func TestEmptyCaptureShowsFindings(t *testing.T) {
	src := &fake.Source{Finds: []dissect.Finding{{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
		Text: "UDP on 27016 is SteamNetworkingSockets: run the server with -NetTransport SystemSockets"}}}
	m := loaded(t, src, 80, 24)
	if s := screen(m); !strings.Contains(s, "-NetTransport SystemSockets") {
		t.Errorf("advice not on screen:\n%s", s)
	}
}

// Issue 16: Tab completes message names, ↑ recalls the last filter.
func TestFilterCompletionAndHistory(t *testing.T) {
	m := New(fake.Capture(), Config{Name: "t", Parse: testParse, Words: []string{"msg", "InvokeMessageListener", "PingRequest"}})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = send(m, ProgressMsg{Fraction: 1, Done: true})
	m = press(t, m, "/", "m", "s", "g", " ", "=", "=", " ", "P", "tab")
	if got := m.bar.Value(); got != "msg == PingRequest" {
		t.Fatalf("tab: %q", got)
	}
	m = press(t, m, "enter", "/")
	m = send(m, tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	m = press(t, m, "up")
	if got := m.bar.Value(); got != "msg == PingRequest" || m.bar.Mode() != filterbar.Filter {
		t.Errorf("up: %q", got)
	}
}

// Issue 16 defect 5: a connection whose sides lack listeners is flagged.
func TestConnsFlagMissing(t *testing.T) {
	src := fake.Capture()
	tables := src.Table
	src.Table = func(c dissect.Conn, asOf int) *session.Tables {
		tb := tables(c, asOf)
		if tb != nil && c == fake.USMN {
			tb.MissingOnServer = []uint32{4003}
		}
		return tb
	}
	m := loaded(t, src, 160, 48)
	lines := strings.Split(screen(m), "\n")
	if !strings.Contains(lines[3], "missing 1") || strings.Contains(lines[2], "missing") {
		t.Errorf("connections:\n%s\n%s", lines[2], lines[3])
	}
}

// An overlay open across a resize is built again for the new width.
func TestOverlayRewrapsOnResize(t *testing.T) {
	m := loaded(t, fake.Capture(), 160, 48)
	m = press(t, m, "?")
	wide := len(m.pager.Lines())
	m = send(m, tea.WindowSizeMsg{Width: 60, Height: 20})
	if n := len(m.pager.Lines()); n <= wide {
		t.Errorf("help has %d lines at 60 columns, %d at 160: not wrapped again", n, wide)
	}
	for _, l := range strings.Split(screen(m), "\n")[:17] {
		if strings.Contains(l, "…") {
			t.Errorf("cut line at 60 columns: %q", l)
		}
	}
}

// The full-text pop-up of a message escapes its summary like every
// other wire string.
func TestTextOverlayEscapes(t *testing.T) {
	src := fake.Capture()
	src.Msgs[3].Summary = "def \x1b]0;pwned\x07"
	m := loaded(t, src, 80, 24)
	m = press(t, m, ":", "4", "enter", "v")
	raw := m.View().Content
	if strings.Contains(raw, "\x1b]0;") || strings.Contains(raw, "\x07") {
		t.Error("raw OSC from the summary reached the screen")
	}
}
