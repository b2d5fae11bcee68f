package views

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/unturned/fake"
)

// TestOpenWithFilter: open --filter F opens the TUI with F in force: the
// list holds the matching messages only and the bar shows F (issue 30).
func TestOpenWithFilter(t *testing.T) {
	src := fake.Capture()
	all := loaded(t, src, 80, 24)
	m := New(src, Config{Name: "test.pcapng", Parse: testParse, Filter: "dir == c2s"})
	m = send(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = send(m, ProgressMsg{Fraction: 1, Done: true})
	want := 0
	for n := 1; n <= src.Len(); n++ {
		if msg := src.Message(n); msg != nil && msg.Dir.String() == "c2s" {
			want++
		}
	}
	if got := m.Messages().Len(); got != want || want == 0 || want == all.Messages().Len() {
		t.Errorf("New(Config{Filter: dir == c2s}): %d messages listed; want %d of %d", got, want, all.Messages().Len())
	}
	if got := m.Bar().Applied(); got != "dir == c2s" {
		t.Errorf("bar shows %q; want the filter given", got)
	}
}
