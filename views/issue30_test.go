package views

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views/filterbar"
	"github.com/usmnscope/usmnscope/views/status"
)

// TestLegendAt80 (issue 30): at 80 columns the key legend keeps "? help"
// and "q quit" in every pane, and the status bar keeps "loading N%" even
// behind a long capture name.
func TestLegendAt80(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	for i := 0; i < 6; i++ {
		lines := strings.Split(screen(m), "\n")
		legend := lines[len(lines)-1]
		if !strings.Contains(legend, "? help") || !strings.Contains(legend, "q quit") {
			t.Errorf("80x24, pane %d: legend %q lacks \"? help\" or \"q quit\"", i, legend)
		}
		m = press(t, m, "tab")
	}
	in := status.Info{Name: "a-capture-with-a-rather-long-name-from-the-server-2026-12-04.pcapng", Profile: "my-modded-server",
		Messages: 123456, Conns: 12, Loading: true, Progress: 0.42}
	bar := status.View(status.Styles{}, in, 80)
	if !strings.Contains(bar, "loading 42%") {
		t.Errorf("status bar at 80 columns %q lacks \"loading 42%%\"", bar)
	}
	if !strings.Contains(bar, "123456 msgs") {
		t.Errorf("status bar at 80 columns %q lacks the message count", bar)
	}
}

// TestLegendContrast (issue 30): the legend's keys and descriptions keep
// a contrast of at least 4.5:1 (WCAG AA) against the background of their
// theme, dark (black, and a common #1E1E1E) and light (white).
func TestLegendContrast(t *testing.T) {
	for _, dark := range []bool{true, false} {
		m := New(&fake.Source{}, Config{Name: "x"})
		m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
		m.setStyles(dark)
		bgs := []color.Color{color.White}
		if dark {
			bgs = []color.Color{color.Black, color.RGBA{0x1e, 0x1e, 0x1e, 0xff}}
		}
		for name, fg := range map[string]color.Color{
			"key":         m.help.Styles.ShortKey.GetForeground(),
			"description": m.help.Styles.ShortDesc.GetForeground(),
		} {
			for _, bg := range bgs {
				if c := contrast(fg, bg); c < 4.5 {
					t.Errorf("dark=%v: legend %s colour %v on %v: contrast %.2f:1; want at least 4.5:1", dark, name, fg, bg, c)
				}
			}
		}
	}
}

// contrast is WCAG 2's contrast ratio of two colours.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(c color.Color) float64 {
	if c == nil {
		return 0
	}
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// TestFollowOpensAtSelection (issue 30): F opens the connection's follow
// view with the cursor on the selected message, not on the first.
func TestFollowOpensAtSelection(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "down", "down", "down")
	sel := m.Selected()
	if sel <= 1 {
		t.Fatalf("selected %d after three downs; want past message 1", sel)
	}
	m = press(t, m, "F")
	if m.over != FollowOverlay {
		t.Fatalf("F: overlay %v; want the follow view", m.over)
	}
	lines := m.pager.Lines()
	if c := m.pager.Cursor(); c >= len(lines) || lines[c].Msg != sel {
		t.Errorf("F on message %d: cursor on line %d (message %d); want the first line of message %d", sel, c, lines[min(c, len(lines)-1)].Msg, sel)
	}
	if !strings.Contains(screen(m), fmt.Sprintf(" #%d ", sel)) {
		t.Errorf("F on message %d: the screen does not show it:\n%s", sel, screen(m))
	}
}

// TestCopySaysWhatWasDone (issue 30): y sends an OSC 52 copy, which the
// terminal may drop without a word (tmux by default): the note says it
// was sent, never that it was copied.
func TestCopySaysWhatWasDone(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 24)
	m = press(t, m, "down", "y")
	note := m.Note()
	if strings.Contains(note, "copied") || !strings.Contains(note, "sent message ") || !strings.Contains(note, "OSC 52") || !strings.Contains(note, "may ignore") {
		t.Errorf("y: note %q; want it to say the message was sent by OSC 52 and may be ignored", note)
	}
}

// TestExpertListsMissingListeners (issue 30): the expert view lists the
// listeners a side said it lacks, by type, with their connection.
func TestExpertListsMissingListeners(t *testing.T) {
	src := fake.Capture()
	tables := src.Table
	src.Table = func(c dissect.Conn, asOf int) *session.Tables {
		tb := tables(c, asOf)
		if tb != nil && c == fake.USMN {
			tb.MissingOnServer = []uint32{4003}
			tb.Client = append(tb.Client, session.ClientEntry{ID: 4003, Type: "Sample.RadioListener, Sample", Version: 2})
			tb.MissingOnClient = []uint32{9}
		}
		return tb
	}
	m := loaded(t, src, 160, 48)
	m = press(t, m, "e")
	s := screen(m)
	for _, want := range []string{
		"missing on the server: Sample.RadioListener, Sample v2 (client ID 4003)",
		"missing on the client: server listener ID 9",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("expert view lacks %q:\n%s", want, s)
		}
	}
}

// TestFilterCompletesListeners (issue 30): Tab in the filter bar completes
// the listener types of the whole capture, not only those of the selected
// message's tables (message 1 here is on a vanilla connection, which has
// none).
func TestFilterCompletesListeners(t *testing.T) {
	src := fake.Capture()
	tables := src.Table
	src.Table = func(c dissect.Conn, asOf int) *session.Tables {
		if asOf == 0 { // the end of the capture
			asOf = 100
		}
		return tables(c, asOf)
	}
	m := New(src, Config{Name: "t", Parse: testParse, Words: []string{"listener", "msg"}})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = send(m, ProgressMsg{Fraction: 1, Done: true})
	if m.Selected() != 1 {
		t.Fatalf("selected %d; want message 1 (vanilla)", m.Selected())
	}
	m = press(t, m, "/")
	for _, r := range "listener~Sample.Ch" {
		m = press(t, m, string(r))
	}
	m = press(t, m, "tab")
	if got, want := m.bar.Value(), `listener~"Sample.ChatListener, Sample"`; got != want {
		t.Errorf("tab after listener~Sample.Ch: %q; want %q", got, want)
	}
}

// TestWriteAsksAndKeeps (issue 30): w asks for a file name (offering the
// configured one), writes a new file at once, and replaces an existing one
// only after a yes.
func TestWriteAsksAndKeeps(t *testing.T) {
	dir := t.TempDir()
	var wrote []string
	export := func(frames []int, path string) (int, error) {
		wrote = append(wrote, path)
		return len(frames), os.WriteFile(path, []byte("x"), 0o644)
	}
	def := filepath.Join(dir, "capture-filtered.pcapng")
	m := New(fake.Capture(), Config{Name: "t", Parse: testParse, Export: export, ExportPath: def})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = send(m, ProgressMsg{Fraction: 1, Done: true})
	m = press(t, m, "w")
	if m.bar.Mode() != filterbar.Write || m.bar.Value() != def {
		t.Fatalf("w: bar mode %v value %q; want the write prompt offering %q", m.bar.Mode(), m.bar.Value(), def)
	}
	if !strings.Contains(screen(m), "write to: ") {
		t.Errorf("w: the screen does not show the prompt:\n%s", screen(m))
	}
	m = press(t, m, "enter")
	if len(wrote) != 1 || wrote[0] != def {
		t.Fatalf("enter on a new name: wrote %q; want %q once", wrote, def)
	}
	// The file exists now: no without a yes.
	m = press(t, m, "w", "enter")
	if m.bar.Mode() != filterbar.Confirm || !strings.Contains(screen(m), "the file exists: replace it? (y/n)") {
		t.Fatalf("w on an existing file: mode %v; want the question:\n%s", m.bar.Mode(), screen(m))
	}
	m = press(t, m, "n")
	if len(wrote) != 1 || !strings.Contains(m.Note(), "not written") {
		t.Errorf("n: wrote %q, note %q; want nothing written and said so", wrote, m.Note())
	}
	m = press(t, m, "w", "enter", "y")
	if len(wrote) != 2 {
		t.Errorf("y: wrote %q; want the file replaced", wrote)
	}
	// Another name, typed.
	m = press(t, m, "w")
	m = send(m, tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	other := filepath.Join(dir, "mine.pcapng")
	for _, r := range other {
		m = press(t, m, string(r))
	}
	m = press(t, m, "enter")
	if len(wrote) != 3 || wrote[2] != other {
		t.Errorf("a typed name: wrote %q; want %q last", wrote, other)
	}
}
