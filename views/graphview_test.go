package views

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views/filterbar"
)

func typeText(t *testing.T, m Model, s string) Model {
	t.Helper()
	for _, r := range s {
		m = press(t, m, string(r))
	}
	return m
}

// TestGraphSeries: i opens the graph with messages and bytes; a adds a
// series with its own filter and Y value, drawn under its own legend line
// and colour; a bad filter is shown in the prompt and not taken; d drops
// the last series.
func TestGraphSeries(t *testing.T) {
	m := loaded(t, fake.Capture(), 80, 40)
	m = press(t, m, "i")
	if m.Overlay() != GraphOverlay || len(m.graph.specs) != 2 {
		t.Fatalf("i: overlay %v, %d series; want the graph with 2", m.Overlay(), len(m.graph.specs))
	}
	m = press(t, m, "a")
	if m.bar.Mode() != filterbar.Series || !strings.Contains(screen(m), "series (Y [filter]): ") {
		t.Fatalf("a: mode %v; want the series prompt:\n%s", m.bar.Mode(), screen(m))
	}
	m = typeText(t, m, "len msg = X")
	if err, _ := m.bar.Err(); err == nil {
		t.Errorf("a series with a bad filter: no error shown")
	}
	m = press(t, m, "enter") // refused while the filter is wrong
	if m.bar.Mode() != filterbar.Series {
		t.Fatalf("enter on a bad filter closed the prompt")
	}
	m = send(m, tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	m = typeText(t, m, "max(len) msg == PingRequest")
	m = press(t, m, "enter")
	if len(m.graph.specs) != 3 || m.graph.specs[2].String() != "max(len) msg == PingRequest" {
		t.Fatalf("after a: series %v; want a third, max(len) msg == PingRequest", m.graph.specs)
	}
	s := screen(m)
	for _, want := range []string{"1 ■ messages per", "2 ■ bytes per", "3 ■ max(len)  where msg == PingRequest per"} {
		if !strings.Contains(s, want) {
			t.Errorf("the graph lacks %q:\n%s", want, s)
		}
	}
	colours := map[uint8]bool{}
	for _, r := range m.pager.Lines() {
		colours[r.Colour] = true
	}
	if !colours[1] || !colours[2] || !colours[3] {
		t.Errorf("row colours %v; want one per series", colours)
	}
	m = press(t, m, "d")
	if len(m.graph.specs) != 2 || strings.Contains(screen(m), "3 ■") {
		t.Errorf("d: %d series; want 2, the third gone", len(m.graph.specs))
	}
	m = press(t, m, "d", "d")
	if len(m.graph.specs) != 1 || !strings.Contains(m.Note(), "one series at least") {
		t.Errorf("d to the last: %d series, note %q; want 1 kept and said so", len(m.graph.specs), m.Note())
	}
	// The series stay for the next opening.
	m = press(t, m, "esc", "i")
	if len(m.graph.specs) != 1 {
		t.Errorf("reopened with %d series; want the 1 kept", len(m.graph.specs))
	}
}

// TestGraphWriteCSV: w in the graph asks for a name beside the capture,
// writes the CSV, and replaces an existing file only after a yes.
func TestGraphWriteCSV(t *testing.T) {
	dir := t.TempDir()
	def := filepath.Join(dir, "capture-filtered.pcapng")
	m := New(fake.Capture(), Config{Name: "t", Parse: testParse, ExportPath: def})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = send(m, ProgressMsg{Fraction: 1, Done: true})
	m = press(t, m, "i", "w")
	want := filepath.Join(dir, "capture-filtered-iograph.csv")
	if m.bar.Mode() != filterbar.Write || m.bar.Value() != want {
		t.Fatalf("w: mode %v value %q; want the write prompt offering %q", m.bar.Mode(), m.bar.Value(), want)
	}
	m = press(t, m, "enter")
	got, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("enter: %v (note %q)", err, m.Note())
	}
	if !strings.HasPrefix(string(got), "t,messages,bytes\n") || strings.Count(string(got), "\n") != 52 {
		t.Errorf("CSV =\n%s\nwant the header and 51 intervals of 10ms", got)
	}
	if !strings.Contains(m.Note(), "wrote 51 intervals of 10ms") || !strings.Contains(m.Note(), "stats --interval 10ms --series messages --series bytes --csv") {
		t.Errorf("note %q; want what was written and the command that prints the same", m.Note())
	}
	if m.Overlay() != GraphOverlay {
		t.Errorf("the graph closed on w")
	}
	os.WriteFile(want, []byte("mine"), 0o644)
	m = press(t, m, "w", "enter")
	if m.bar.Mode() != filterbar.Confirm {
		t.Fatalf("w on an existing file: mode %v; want the question", m.bar.Mode())
	}
	m = press(t, m, "n")
	if b, _ := os.ReadFile(want); string(b) != "mine" {
		t.Errorf("n: the file holds %q; want it kept", b)
	}
	m = press(t, m, "w", "enter", "y")
	if b, _ := os.ReadFile(want); string(b) != string(got) {
		t.Errorf("y: the file holds %q; want the CSV", b)
	}
}
