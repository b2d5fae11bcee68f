package views

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/views/fake"
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
func testParse(expr string) (func(*decode.Message) bool, int, error) {
	f := strings.Fields(expr)
	switch {
	case len(f) == 1 && f[0] == "sev":
		return func(m *decode.Message) bool { return len(m.Findings) > 0 }, 0, nil
	case len(f) == 3 && f[1] != "==":
		return nil, strings.Index(expr, f[1]), errTest("expected ==")
	case len(f) == 3 && f[0] == "msg":
		return func(m *decode.Message) bool { return m.Name == f[2] }, 0, nil
	case len(f) == 3 && f[0] == "dir":
		return func(m *decode.Message) bool { return m.Dir.String() == f[2] }, 0, nil
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

func TestPrint(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "j", "tab", "j", "j", "j", "j")
	t.Log("\n" + screen(m))
}
