package views_test

import (
	"bytes"
	b64 "encoding/base64"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views"
)

// run16 runs the program over the synthetic capture under teatest, sends
// keys, quits, and returns the final model and everything written to the
// terminal.
func run16(t *testing.T, w, h int, cfg views.Config, keys ...tea.Msg) (views.Model, []byte) {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "synthetic"
	}
	if cfg.Parse == nil {
		cfg.Parse = func(string) (func(*session.Message) bool, int, error) { return nil, 0, nil }
	}
	tm := teatest.NewTestModel(t, views.New(fake.Capture(), cfg), teatest.WithInitialTermSize(w, h))
	tm.Send(views.ProgressMsg{Fraction: 1, Done: true})
	for _, k := range keys {
		tm.Send(k)
	}
	// Let the last key's frame reach the output before quitting.
	teatest.WaitFor(t, tm.Output(), func([]byte) bool { return true }, teatest.WithDuration(time.Second))
	time.Sleep(50 * time.Millisecond)
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(tm.FinalOutput(t, teatest.WithFinalTimeout(5*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	return tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(views.Model), out
}

func keys(ks ...string) []tea.Msg {
	out := make([]tea.Msg, len(ks))
	for i, k := range ks {
		switch k {
		case "up":
			out[i] = tea.KeyPressMsg{Code: tea.KeyUp}
		case "ctrl+u":
			out[i] = tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
		default:
			out[i] = keyPress(k)
		}
	}
	return out
}

// osc matches an operating-system command: ESC ] number ;
var osc = regexp.MustCompile(`\x1b\](\d+);`)

// oscs returns the OSC numbers in out other than the window title (0, 2)
// and the background-colour query (11) that the program always sends.
func oscs(out []byte) []string {
	var got []string
	for _, m := range osc.FindAllSubmatch(out, -1) {
		switch string(m[1]) {
		case "0", "2", "11":
		default:
			got = append(got, string(m[1]))
		}
	}
	return got
}

// Issue 16: y copies the selected message's hex through OSC 52, and no
// other key writes that (or any other) operating-system command.
func TestCopyOSC52OnlyOnY(t *testing.T) {
	_, out := run16(t, 80, 24, views.Config{}, keys("j", "tab", "tab", "e", "esc", "F", "esc", "i", "esc", "?", "esc")...)
	if got := oscs(out); len(got) != 0 {
		t.Errorf("without y the program wrote OSC %v", got)
	}
	m, out := run16(t, 80, 24, views.Config{}, keys("j", "y")...)
	if got := oscs(out); len(got) != 1 || got[0] != "52" {
		t.Fatalf("y wrote OSC %v; want one 52", got)
	}
	// Message 2's bytes, base64 of their hex.
	msg := fake.Capture().Message(2)
	if !bytes.Contains(out, []byte(b64hex(msg.Data))) || !strings.Contains(m.Note(), "sent message 2 ") {
		t.Errorf("clipboard lacks message 2's hex; note %q", m.Note())
	}
}

// Issue 16: F follows the selected message's connection, both directions
// in order with their bytes.
func TestFollowTeatest(t *testing.T) {
	m, _ := run16(t, 80, 24, views.Config{}, keys(":", "3", "enter", "F")...)
	s := ansi.Strip(m.View().Content)
	i2, i3, i4 := strings.Index(s, "← #2"), strings.Index(s, "→ #3"), strings.Index(s, "← #4")
	if m.Overlay() != views.FollowOverlay || i2 < 0 || !(i2 < i3 && i3 < i4) || !strings.Contains(s, "0000  11 05") {
		t.Errorf("follow:\n%s", s)
	}
	if strings.Contains(s, "PingRequest") {
		t.Error("follow shows the other connection's messages")
	}
}

// Issue 16: i draws the I/O graph with a labelled time axis.
func TestGraphTeatest(t *testing.T) {
	m, _ := run16(t, 80, 24, views.Config{}, keys("i")...)
	s := ansi.Strip(m.View().Content)
	for _, want := range []string{"1 ■ messages per 10ms  (6 in all", "2 ■ bytes per 10ms  (90 in all", "└┴", "0.5  s", "█"} {
		if !strings.Contains(s, want) {
			t.Errorf("graph lacks %q:\n%s", want, s)
		}
	}
}

// Issue 16: Tab completes, ↑ recalls the last filter.
func TestCompletionHistoryTeatest(t *testing.T) {
	cfg := views.Config{Words: []string{"msg", "InvokeMessageListener", "PingRequest"}}
	m, _ := run16(t, 80, 24, cfg, keys("/", "m", "s", "g", "=", "=", "I", "tab", "enter", "/", "ctrl+u", "up")...)
	if got := m.Bar().Value(); got != "msg==InvokeMessageListener" {
		t.Errorf("completed and recalled %q; want msg==InvokeMessageListener", got)
	}
	m, _ = run16(t, 80, 24, cfg, keys("/", "P", "tab")...)
	if got := m.Bar().Value(); got != "PingRequest" {
		t.Errorf("tab on P: %q", got)
	}
}

// Issue 16 defect 7: the help fits 80×24: no line is cut, it scrolls to
// the legend, and every global key is listed once.
func TestHelpFits80x24(t *testing.T) {
	ks := append(keys("?"), make([]tea.Msg, 0)...)
	m, _ := run16(t, 80, 24, views.Config{}, ks...)
	lines := m.Pager().Lines()
	seen := map[string]int{}
	bar := false // the filter bar's keys are its own (tab completes there)
	for _, l := range lines {
		if w := ansi.StringWidth(l.Text); w > 80 {
			t.Errorf("help line of %d cells: %q", w, l.Text)
		}
		bar = bar || strings.HasPrefix(l.Text, "Filter bar")
		if bar {
			continue
		}
		if f := strings.Fields(l.Text); len(f) > 0 && strings.HasPrefix(l.Text, "  ") && !strings.HasPrefix(l.Text, "   ") {
			seen[f[0]]++
		}
	}
	for _, k := range []string{"tab", "/", ":N", "e", "F", "i", "y", "w", "v", "?", "q", "space"} {
		if seen[k] != 1 {
			t.Errorf("key %q listed %d times", k, seen[k])
		}
	}
	all := ""
	for _, l := range lines {
		all += l.Text + "\n"
	}
	for _, sym := range []string{"E W N", "⁺", "→ ←", "usmn C/S", "wide:c2s,s2c", "▁▃█", "*"} {
		if !strings.Contains(all, sym) {
			t.Errorf("legend lacks %q", sym)
		}
	}
	for _, l := range strings.Split(ansi.Strip(m.View().Content), "\n")[:21] {
		if strings.Contains(l, "…") {
			t.Errorf("cut line on screen: %q", l)
		}
	}
}

func b64hex(b []byte) string {
	const hexd = "0123456789abcdef"
	h := make([]byte, 0, 2*len(b))
	for _, c := range b {
		h = append(h, hexd[c>>4], hexd[c&15])
	}
	return base64std(h)
}

func base64std(b []byte) string { return b64.StdEncoding.EncodeToString(b) }
