package views_test

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
	"github.com/usmnscope/usmnscope/views"
	"github.com/usmnscope/usmnscope/views/messages"
)

// columnsConfig is the synthetic capture's config with columns: len and
// listener in the "all" view, read by the filter language's lookup.
func columnsConfig(saved *map[string][]messages.Column) views.Config {
	return views.Config{Name: "synthetic", Parse: func(string) (func(*session.Message) bool, int, error) { return nil, 0, nil },
		Columns: views.Columns{
			Sets: map[string][]messages.Column{"all": {{Field: "len", Width: 5}, {Field: "listener", Width: 16}}},
			Lookup: func(f string, m *session.Message) messages.Value {
				v := filter.Lookup(f, m)
				return messages.Value{Text: v.Text, Num: v.Num, Numeric: v.Numeric, OK: v.OK}
			},
			Field: func(span string) string {
				if span == "enum" {
					return "msg"
				}
				if filter.IsField(span) {
					return span
				}
				return ""
			},
			Save: func(sets map[string][]messages.Column) error {
				if saved != nil {
					*saved = sets
				}
				return nil
			},
		}}
}

// TestGoldenColumns: issue 30's columns and sort at 80×24 and 160×48: the
// configured columns, a sort by len (a number: 10 after 9) ascending and
// descending, a column moved and widened, one removed, and a field of the
// detail pane applied as a column.
func TestGoldenColumns(t *testing.T) {
	for _, sc := range []struct {
		name string
		keys []string
	}{
		{"cols", nil},
		{"cols-sort", []string{">", ">", ">", ">", ">", "o"}},
		{"cols-sortdesc", []string{">", ">", ">", ">", ">", "o", "o"}},
		{"cols-move", []string{">", ">", ">", ">", ">", "}", "+", "+"}},
		{"cols-remove", []string{">", ">", ">", ">", ">", "X"}},
		{"cols-apply", []string{"tab", "j", "j", "j", "c"}},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			name := sc.name + "-" + map[int]string{80: "80x24", 160: "160x48"}[sz[0]]
			t.Run(name, func(t *testing.T) {
				m := views.New(fake.Capture(), columnsConfig(nil))
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
				tm.Send(views.ProgressMsg{Fraction: 1, Done: true})
				for _, k := range sc.keys {
					tm.Send(keyPress(k))
				}
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(views.Model)
				golden(t, name, ansi.Strip(fm.View().Content))
			})
		}
	}
}

// TestSortNumericStable: sorting by len orders numbers as numbers and
// keeps message order among equal values; descending reverses the values,
// not the ties.
func TestSortNumericStable(t *testing.T) {
	src := fake.Capture()
	m := views.New(src, columnsConfig(nil))
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48))
	tm.Send(views.ProgressMsg{Fraction: 1, Done: true})
	for _, k := range []string{">", ">", ">", ">", ">", "o"} {
		tm.Send(keyPress(k))
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(views.Model)
	l := fm.Messages()
	if by, desc := l.SortedBy(); by != "len" || desc {
		t.Fatalf("SortedBy() = %q, %v; want len ascending", by, desc)
	}
	prevLen, prevN := -1, 0
	for i := range l.Len() {
		n := l.Number(i)
		msg := src.Message(n)
		switch {
		case len(msg.Data) < prevLen:
			t.Errorf("row %d: message %d of len %d after len %d: not ascending", i, n, len(msg.Data), prevLen)
		case len(msg.Data) == prevLen && n < prevN:
			t.Errorf("row %d: message %d after %d of the same len: not stable", i, n, prevN)
		}
		prevLen, prevN = len(msg.Data), n
	}
	if !strings.Contains(ansi.Strip(fm.View().Content), "len▲") {
		t.Errorf("title does not show the sort")
	}
}

// typed returns the key presses of s.
func typed(s string) []string {
	var out []string
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

// TestGoldenFind: issue 30's find at 80×24 and 160×48: ctrl+f over the
// message list (a text in a summary, hex bytes), ctrl+n to the next, in
// the field tree and in the bytes.
func TestGoldenFind(t *testing.T) {
	for _, sc := range []struct {
		name string
		keys []string
	}{
		{"find-list", append(append([]string{"ctrl+f"}, typed("server 1")...), "enter")},
		{"find-next", append(append([]string{"ctrl+f"}, typed("server")...), "enter", "ctrl+n", "ctrl+n")},
		{"find-prev", append(append([]string{"ctrl+f"}, typed("ping")...), "enter", "ctrl+b")},
		{"find-tree", append(append([]string{":", "2", "enter", "tab", "ctrl+f"}, typed("version")...), "enter")},
		{"find-bytes", append(append([]string{":", "2", "enter", "tab", "tab", "ctrl+f"}, typed("53 61")...), "enter")},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			name := sc.name + "-" + map[int]string{80: "80x24", 160: "160x48"}[sz[0]]
			t.Run(name, func(t *testing.T) {
				m := views.New(fake.Capture(), columnsConfig(nil))
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
				tm.Send(views.ProgressMsg{Fraction: 1, Done: true})
				for _, k := range sc.keys {
					tm.Send(keyPress(k))
				}
				if err := tm.Quit(); err != nil {
					t.Fatal(err)
				}
				fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(views.Model)
				golden(t, name, ansi.Strip(fm.View().Content))
			})
		}
	}
}

// TestFindSelects: find in the tree selects the first field whose line
// holds the text (Listener_Version, field 5 of message 2), and hex bytes
// in the bits pane select the field holding them ("Sa" of the type name,
// field 4).
func TestFindSelects(t *testing.T) {
	for _, tt := range []struct {
		keys []string
		want int
	}{
		{append(append([]string{":", "2", "enter", "tab", "ctrl+f"}, typed("version")...), "enter"), 5},
		{append(append([]string{":", "2", "enter", "tab", "tab", "ctrl+f"}, typed("53 61")...), "enter"), 4},
	} {
		m := views.New(fake.Capture(), columnsConfig(nil))
		tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 48))
		tm.Send(views.ProgressMsg{Fraction: 1, Done: true})
		for _, k := range tt.keys {
			tm.Send(keyPress(k))
		}
		if err := tm.Quit(); err != nil {
			t.Fatal(err)
		}
		fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(views.Model)
		if got := fm.Detail().SelectedField(); got != tt.want {
			t.Errorf("keys %v: detail field %d selected; want %d", tt.keys, got, tt.want)
		}
		if got := fm.Bits().SelectedField(); got != tt.want {
			t.Errorf("keys %v: bits field %d selected; want %d", tt.keys, got, tt.want)
		}
	}
}
