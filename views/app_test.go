package views

import (
	"bytes"
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
)

// press sends keys (as tea.KeyPressMsg) to m, running returned commands
// that produce messages for the model synchronously.
func press(t testing.TB, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		m = send(m, keyMsg(k))
	}
	return m
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// send delivers msg and then, up to a bound, the messages its commands
// return (scans, filter results), as the program loop would.
func send(m Model, msg tea.Msg) Model {
	queue := []tea.Msg{msg}
	for i := 0; len(queue) > 0 && i < 1000; i++ {
		next, cmd := m.Update(queue[0])
		m = next.(Model)
		queue = queue[1:]
		queue = append(queue, run(cmd)...)
	}
	return m
}

func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, run(c)...)
		}
		return out
	case tea.QuitMsg, nil:
		return nil
	}
	return []tea.Msg{msg}
}

func loaded(t testing.TB, src Source, w, h int) Model {
	t.Helper()
	m := New(src, Config{Name: "test.pcapng", Parse: testParse})
	m = send(m, tea.WindowSizeMsg{Width: w, Height: h})
	return send(m, ProgressMsg{Fraction: 1, Done: true})
}

// testParse is a stand-in for the CLI's filter language: "msg == NAME",
// "sev" (has findings) or "dir == c2s"; anything else fails at offset 0,
// a bad operator at its offset.
func testParse(expr string) (func(*session.Message) bool, int, error) {
	f := strings.Fields(expr)
	switch {
	case len(f) == 1 && f[0] == "sev":
		return func(m *session.Message) bool { return len(m.Findings) > 0 }, 0, nil
	case len(f) == 3 && f[1] != "==":
		return nil, strings.Index(expr, f[1]), errTest("expected ==")
	case len(f) == 3 && f[0] == "msg":
		return func(m *session.Message) bool { return m.Name() == f[2] }, 0, nil
	case len(f) == 3 && f[0] == "dir":
		return func(m *session.Message) bool { return m.Dir.String() == f[2] }, 0, nil
	}
	return nil, 0, errTest("unknown field")
}

type errTest string

func (e errTest) Error() string { return string(e) }

func screen(m Model) string { return ansi.Strip(m.View().Content) }

func TestScreenSize(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}, {40, 10}} {
		m := loaded(t, fake.Capture(), sz[0], sz[1])
		lines := strings.Split(screen(m), "\n")
		if len(lines) != sz[1] {
			t.Errorf("%dx%d: %d lines; want %d", sz[0], sz[1], len(lines), sz[1])
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w != sz[0] {
				t.Errorf("%dx%d: line %d is %d wide; want %d: %q", sz[0], sz[1], i, w, sz[0], l)
			}
		}
	}
}

func TestSelectionDrivesPanes(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	if m.Selected() != 1 || m.Detail().Message() == nil || m.Detail().Message().N != 1 {
		t.Fatalf("first message not shown: selected %d", m.Selected())
	}
	m = press(t, m, "j", "j", "j") // message 4: definition of server listener 1
	if m.Selected() != 4 {
		t.Fatalf("j j j: selected %d; want 4", m.Selected())
	}
	tb := m.Tables().Tables()
	if tb == nil || tb.AsOf != 4 || len(tb.Server) != 2 || !tb.Server[1].Changed || tb.Server[0].Changed {
		t.Fatalf("tables as of 4: %+v", tb)
	}
	m = press(t, m, "k", "k")
	if tb := m.Tables().Tables(); tb.AsOf != 2 || len(tb.Server) != 1 || !tb.Server[0].Changed {
		t.Errorf("tables as of 2: %+v", tb)
	}
}

func TestDetailBitsLinked(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "j", "tab") // message 2, focus detail
	if m.Focused() != FocusDetail {
		t.Fatalf("tab from messages: focus %v; want detail", m.Focused())
	}
	m = press(t, m, "j", "j", "j", "j", "j", "j") // header, enum, Fields, enum, Has_Def, Count, Listener_ID
	if f := m.Detail().SelectedField(); f != 3 || m.Bits().SelectedField() != 3 || m.Bits().Cursor() != 12 {
		t.Errorf("detail field %d → bits field %d cursor %d; want 3 3 12", f, m.Bits().SelectedField(), m.Bits().Cursor())
	}
	m = press(t, m, "tab", "l", "l") // bits: 12 → 14, the type name
	if m.Focused() != FocusBits || m.Bits().Cursor() != 14 || m.Detail().SelectedField() != 4 {
		t.Errorf("bits cursor %d → detail field %d; want 14 4", m.Bits().Cursor(), m.Detail().SelectedField())
	}
}

func TestListenerFilter(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "G", "t") // message 6, tables as of 6
	if m.Focused() != FocusTables {
		t.Fatalf("t: focus %v", m.Focused())
	}
	m = press(t, m, "j", "j", "enter") // server listener 1
	msgs := m.Messages()
	if msgs.Len() != 2 || m.Focused() != FocusMessages {
		t.Fatalf("listener filter: %d rows, focus %v; want 2 messages", msgs.Len(), m.Focused())
	}
	m = press(t, m, "g")
	if m.Selected() != 4 {
		t.Errorf("first row of listener 1: %d; want 4", m.Selected())
	}
	if c, ok := m.Conns().Selected(); !ok || c != fake.USMN {
		t.Errorf("connection not selected: %v %v", c, ok)
	}
	if s := screen(m); !strings.Contains(s, "listener: server 1") {
		t.Errorf("screen does not say which listener filters:\n%s", s)
	}
	m = press(t, m, "esc")
	if m.Messages().Len() != 4 { // the USMN connection's four
		t.Errorf("esc: %d rows; want 4", m.Messages().Len())
	}
}

func TestDisplayFilterAndGoto(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "/", "m", "s", "g", " ", "=", " ", "P")
	if err, _ := m.Bar().Err(); err == nil {
		t.Error(`"msg =": no live error`)
	}
	if s := screen(m); !strings.Contains(s, "/msg = P  ← expected == at 5") {
		t.Errorf("error not shown with its position:\n%s", s)
	}
	m = press(t, m, "backspace", "backspace", "=", " ", "P", "i", "n", "g", "R", "e", "q", "u", "e", "s", "t", "enter")
	if m.Messages().Len() != 2 || m.Selected() != 1 {
		t.Fatalf("msg == PingRequest: %d rows, selected %d; want 2, 1", m.Messages().Len(), m.Selected())
	}
	m = press(t, m, "j")
	if m.Selected() != 5 {
		t.Errorf("next filtered row: %d; want 5", m.Selected())
	}
	m = press(t, m, ":", "3", "enter") // 3 is hidden: the filter goes
	if m.Selected() != 3 || m.Messages().Filtered() {
		t.Errorf(":3 = %d (filtered %v); want 3 unfiltered", m.Selected(), m.Messages().Filtered())
	}
}

func TestConnectionSelection(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "shift+tab", "j") // conns: vanilla
	if m.Focused() != FocusConns || m.Messages().Len() != 2 || m.Selected() != 1 {
		t.Fatalf("vanilla conn: focus %v, %d rows, selected %d", m.Focused(), m.Messages().Len(), m.Selected())
	}
	m = press(t, m, "j")
	if m.Messages().Len() != 4 || m.Selected() != 2 {
		t.Errorf("USMN conn: %d rows, selected %d; want 4, 2", m.Messages().Len(), m.Selected())
	}
	m = press(t, m, "g")
	if m.Messages().Len() != 6 {
		t.Errorf("all: %d rows; want 6", m.Messages().Len())
	}
}

func TestMouse(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	// Layout at 80×24: connections rows 0-3, messages 4-11 (title at 4).
	m = send(m, tea.MouseClickMsg{X: 10, Y: 7, Button: tea.MouseLeft})
	if m.Focused() != FocusMessages || m.Selected() != 3 {
		t.Errorf("click on row 3: focus %v selected %d", m.Focused(), m.Selected())
	}
	m = send(m, tea.MouseClickMsg{X: 10, Y: 3, Button: tea.MouseLeft})
	if c, ok := m.Conns().Selected(); m.Focused() != FocusConns || !ok || c != fake.USMN {
		t.Errorf("click on the USMN connection: focus %v, %v %v", m.Focused(), c, ok)
	}
	m = send(m, tea.MouseWheelMsg{X: 10, Y: 8, Button: tea.MouseWheelDown})
	if m.Focused() != FocusConns || m.Selected() != 6 {
		t.Errorf("wheel over messages: focus %v selected %d; want conns, 6", m.Focused(), m.Selected())
	}
}

func TestLiveFollowPause(t *testing.T) {
	src := fake.Big(10)
	m := New(src, Config{Name: "eth0", Live: true})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = send(m, ProgressMsg{Fraction: -1})
	if m.Selected() != 10 {
		t.Fatalf("live: selected %d; want the tail 10", m.Selected())
	}
	src.N = 20
	m = send(m, LiveMsg{PacketsPerS: 12, Drops: 3})
	m = send(m, ProgressMsg{Fraction: -1})
	if m.Selected() != 20 {
		t.Errorf("following: %d; want 20", m.Selected())
	}
	if s := screen(m); !strings.Contains(s, "12 pkt/s │ 3 drops │ following") {
		t.Errorf("status lacks live counters:\n%s", s)
	}
	m = press(t, m, "k")
	src.N = 30
	m = send(m, ProgressMsg{Fraction: -1})
	if m.Selected() != 19 || m.Messages().Len() != 30 {
		t.Errorf("after moving: selected %d of %d; want 19 of 30", m.Selected(), m.Messages().Len())
	}
	m = press(t, m, "space")
	src.N = 40
	m = send(m, ProgressMsg{Fraction: -1})
	if m.Messages().Len() != 30 || !strings.Contains(screen(m), "PAUSED") {
		t.Errorf("paused: %d rows; want 30 and PAUSED", m.Messages().Len())
	}
	m = press(t, m, "f")
	if m.Selected() != 40 {
		t.Errorf("f: selected %d; want 40", m.Selected())
	}
}

func TestLoadingProgress(t *testing.T) {
	src := &fake.Source{}
	m := New(src, Config{Name: "big.pcapng"})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if s := screen(m); !strings.Contains(s, "loading…") {
		t.Errorf("first screen before any data lacks loading:\n%s", s)
	}
	full := fake.Capture()
	src.Msgs, src.Conns = full.Msgs[:3], full.Conns
	m = send(m, ProgressMsg{Fraction: 0.5})
	if s := screen(m); !strings.Contains(s, "loading 50%") || !strings.Contains(s, "3 msgs") {
		t.Errorf("half loaded:\n%s", s)
	}
	src.Msgs = full.Msgs
	m = send(m, ProgressMsg{Fraction: 1, Done: true})
	if s := screen(m); strings.Contains(s, "loading") || !strings.Contains(s, "6 msgs") {
		t.Errorf("loaded:\n%s", s)
	}
}

func TestHostileNeverRaw(t *testing.T) {
	m := loaded(t, fake.Capture(), 160, 48)
	m = press(t, m, "j", "j", "j", "t", "tab", "j", "j", "j", "j", "j", "j", "j")
	raw := m.View().Content
	// Styling escapes (CSI … m) are fine; the hostile name's own bytes are not.
	for _, bad := range []string{"\x1b[2J", "\x1b]0;", "\x07", "\u202e", "\x9b"} {
		if strings.Contains(raw, bad) {
			t.Errorf("screen holds raw %q", bad)
		}
	}
	if !strings.Contains(ansi.Strip(raw), `Evil\x1b[2J`) {
		t.Error("hostile name not shown escaped")
	}
}

func TestHelpAndQuit(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "?")
	if s := screen(m); !strings.Contains(s, "go to message") || strings.Contains(s, "next match") {
		t.Errorf("full help:\n%s", s)
	}
	// The help scrolls; esc (or q, or ?) closes it without acting.
	m = press(t, m, "j", "esc")
	if m.Selected() != 1 || m.Overlay() != NoOverlay {
		t.Error("j scrolls the help, esc closes it")
	}
	_, cmd := m.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q: no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q does not quit")
	}
}

// BenchmarkOpen measures opening a million-message capture until the first
// frame is rendered (target ≤ 100 ms).
func BenchmarkOpen(b *testing.B) {
	b.ReportAllocs()
	src := fake.Big(1_000_000)
	for b.Loop() {
		m := New(src, Config{Name: "big"})
		next, _ := m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		next, _ = next.Update(ProgressMsg{Fraction: 1, Done: true})
		_ = next.View()
	}
}

// BenchmarkKey measures one key press that moves the selection, with the
// frame it renders, on a million-message capture (target ≤ 16 ms).
func BenchmarkKey(b *testing.B) {
	b.ReportAllocs()
	src := fake.Big(1_000_000)
	var m tea.Model = New(src, Config{Name: "big"})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m, _ = m.Update(ProgressMsg{Fraction: 1, Done: true})
	j := keyMsg("j")
	for b.Loop() {
		m, _ = m.Update(j)
		_ = m.View()
	}
}

func TestBackgroundStyles(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	dark := m.View().Content
	light := send(m, tea.BackgroundColorMsg{Color: color.White}).View().Content
	if dark == light {
		t.Error("a light background renders the same colours as a dark one")
	}
	if ansi.Strip(dark) != ansi.Strip(light) {
		t.Error("the background changes the text, not only the colours")
	}
}

// TestNoColor renders through the colour profile that NO_COLOR selects
// (the renderer does this for the program): colours go, the reversed
// selection stays.
func TestNoColor(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	var buf bytes.Buffer
	p := colorprofile.Env([]string{"NO_COLOR=1", "TERM=xterm-256color", "COLORTERM=truecolor"})
	if p != colorprofile.Ascii {
		t.Fatalf("NO_COLOR profile = %v; want Ascii", p)
	}
	w := &colorprofile.Writer{Forward: &buf, Profile: p}
	if _, err := w.Write([]byte(m.View().Content)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "38;") || strings.Contains(out, "48;") {
		t.Error("colours left under NO_COLOR")
	}
	if !strings.Contains(out, "\x1b[7m") && !strings.Contains(out, ";7m") {
		t.Error("the selection is not reversed under NO_COLOR")
	}
}

// TestProgressIndexesAtOnce: the update that brings a progress message
// indexes the new messages by connection itself (up to progressBudget,
// beyond a background step's indexBudget), so a load draws a frame per
// progress message and none for background steps (issue 28: a
// million-message load drew two to three times as many frames).
func TestProgressIndexesAtOnce(t *testing.T) {
	for _, n := range []int{syncBudget + 1, indexBudget / 2, indexBudget, 3 * indexBudget, progressBudget} {
		src := fake.Big(0)
		m := New(src, Config{Name: "big.pcapng"})
		m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
		src.N = n
		next, cmd := m.Update(ProgressMsg{Fraction: 0.5})
		m = next.(Model)
		if m.idx.scanned != n {
			t.Errorf("n=%d: one progress update indexed %d messages; want %d", n, m.idx.scanned, n)
		}
		for _, msg := range run(cmd) {
			if _, ok := msg.(scanMsg); ok {
				t.Errorf("n=%d: the progress update scheduled a background step", n)
			}
		}
		if got, want := m.idx.byConn[fake.USMN].Len(), n-(n+2)/3; got != want {
			t.Errorf("n=%d: USMN connection indexed %d messages; want %d", n, got, want)
		}
	}
}
