package messages

import (
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
)

// counting wraps a source and counts the messages fetched.
type counting struct {
	src     *fake.Source
	calls   int
	settled int // messages 1..settled are final; 0 means all
}

func (c *counting) Message(n int) *session.Message { c.calls++; return c.src.Message(n) }

func (c *counting) Settled() int {
	if c.settled == 0 {
		return c.src.Len()
	}
	return c.settled
}

// scan runs one Scan command and gives its message to the pane, as the
// root does, and reports whether rows remain to test.
func scan(m *Model, budget int) bool {
	if cmd := m.Scan(budget); cmd != nil {
		*m, _ = m.Update(cmd())
	}
	return m.Scanning()
}

// view reads the rows in view as the root does (Load), then renders.
func view(m *Model) string {
	if cmd := m.Load(); cmd != nil {
		*m, _ = m.Update(cmd())
	}
	return m.View()
}

func press(k string) tea.KeyPressMsg {
	switch k {
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}

func TestNavigation(t *testing.T) {
	src := fake.Big(1000)
	m := New(src, All(1000))
	m.SetSize(80, 11) // 10 rows
	for _, tc := range []struct {
		key  string
		want int
	}{
		{"j", 2}, {"down", 3}, {"k", 2}, {"pgdown", 12}, {"G", 1000}, {"j", 1000}, {"g", 1}, {"k", 1},
	} {
		m, _ = m.Update(press(tc.key))
		if got := m.Selected(); got != tc.want {
			t.Errorf("after %q: Selected() = %d; want %d", tc.key, got, tc.want)
		}
	}
	m.Select(500)
	if m.Selected() != 500 {
		t.Errorf("Select(500): %d", m.Selected())
	}
	m.SetRows(Numbers{3, 7, 9}, true)
	if m.Selected() != 9 { // nothing at or after 500: the last row
		t.Errorf("SetRows keeps nearest: %d; want 9", m.Selected())
	}
	m.SetRows(Numbers{3, 7, 9, 11}, true)
	m.Select(7)
	m.SetRows(Numbers{1, 3, 7, 9, 11}, true)
	if m.Selected() != 7 {
		t.Errorf("SetRows keeps the selected message: %d; want 7", m.Selected())
	}
}

func TestVirtualised(t *testing.T) {
	c := &counting{src: fake.Big(1_000_000)}
	m := New(c, All(1_000_000))
	m.SetSize(80, 21)
	_ = view(&m)
	m, _ = m.Update(press("G"))
	_ = view(&m)
	if c.calls > 2*20 {
		t.Errorf("two frames fetched %d messages; want at most %d (visible rows)", c.calls, 40)
	}
}

// TestInvalidateRereadsOnlyUnsettled: while a capture loads, every progress
// redraw invalidates the rows read; those that were settled when read are
// final and not read again, the others are.
func TestInvalidateRereadsOnlyUnsettled(t *testing.T) {
	c := &counting{src: fake.Big(100), settled: 5}
	m := New(c, All(100))
	m.SetSize(80, 11) // 10 rows: messages 1..10
	if cmd := m.Load(); cmd != nil {
		m, _ = m.Update(cmd())
	}
	if c.calls != 10 {
		t.Fatalf("first load read %d messages; want 10", c.calls)
	}
	c.calls = 0
	m.Invalidate()
	if cmd := m.Load(); cmd != nil {
		m, _ = m.Update(cmd())
	}
	if c.calls != 5 {
		t.Errorf("after Invalidate, Load read %d messages; want 5 (6..10, unsettled when read)", c.calls)
	}
	c.calls = 0
	m.Invalidate()
	if cmd := m.Load(); cmd != nil {
		m, _ = m.Update(cmd())
	}
	if c.calls != 5 {
		t.Errorf("still unsettled: Load read %d messages; want 5", c.calls)
	}
}

func TestFilterHide(t *testing.T) {
	c := &counting{src: fake.Big(100)}
	m := New(c, All(100))
	m.SetSize(80, 11)
	m.Select(50)
	isPing := func(msg *session.Message) bool { return msg.Name() == "PingRequest" } // n % 3 == 1
	m.SetFilter(isPing, true)
	c.calls = 0
	more := scan(&m, 30)
	if !more || c.calls != 30 {
		t.Errorf("Scan(30) = %v after %d fetches; want true after 30", more, c.calls)
	}
	if m.Len() != 10 { // 1,4,…,28
		t.Errorf("after 30 rows: Len() = %d; want 10", m.Len())
	}
	for scan(&m, 30) {
	}
	if m.Len() != 34 {
		t.Errorf("Len() = %d; want 34", m.Len())
	}
	if m.Selected() != 52 { // first match at or after 50
		t.Errorf("selection after filtering = %d; want 52", m.Selected())
	}
	m, _ = m.Update(press("j"))
	if m.Selected() != 55 {
		t.Errorf("j in filtered list: %d; want 55", m.Selected())
	}
	m.SetFilter(nil, true)
	if m.Len() != 100 || m.Selected() != 55 {
		t.Errorf("clearing the filter: Len %d Selected %d; want 100 55", m.Len(), m.Selected())
	}
}

// TestFilterNearest: when nothing at or after the selection matches, the
// filtered list selects the last match (the nearest); a move made while
// the filter is still scanning is not undone when the scan ends.
func TestFilterNearest(t *testing.T) {
	isPing := func(msg *session.Message) bool { return msg.Name() == "PingRequest" } // n % 3 == 1
	m := New(fake.Big(100), All(100))
	m.SetSize(80, 11)
	m.Select(80)
	m.SetFilter(func(msg *session.Message) bool { return msg.N <= 60 }, true)
	for scan(&m, 30) {
	}
	if m.Selected() != 60 {
		t.Errorf("filter after the last match: Selected() = %d; want 60", m.Selected())
	}

	m = New(fake.Big(100), All(100))
	m.SetSize(80, 11)
	m.Select(50)
	m.SetFilter(isPing, true)
	scan(&m, 10) // matches 1,4,7,10 so far; 52 not reached
	m, _ = m.Update(press("j"))
	for scan(&m, 30) {
	}
	if m.Selected() != 4 {
		t.Errorf("j during the scan, then the scan ends: Selected() = %d; want 4", m.Selected())
	}
}

func TestNextMatch(t *testing.T) {
	m := New(fake.Big(100), All(100))
	m.SetSize(80, 11)
	m.SetFilter(func(msg *session.Message) bool { return msg.N%10 == 0 }, false)
	for scan(&m, 1000) {
	}
	if m.Len() != 100 {
		t.Fatalf("mark mode lists all: Len %d", m.Len())
	}
	for _, tc := range []struct {
		key  string
		want int
	}{{"n", 10}, {"n", 20}, {"N", 10}, {"N", 10}, {"G", 100}, {"n", 100}, {"N", 90}} {
		m, _ = m.Update(press(tc.key))
		if m.Selected() != tc.want {
			t.Errorf("after %q: Selected() = %d; want %d", tc.key, m.Selected(), tc.want)
		}
	}
}

func TestFollow(t *testing.T) {
	m := New(fake.Big(10), All(10))
	m.SetSize(80, 5)
	m.SetFollow(true)
	m.SetRows(All(20), false)
	if m.Selected() != 20 || !m.Following() {
		t.Errorf("following: Selected %d Following %v; want 20 true", m.Selected(), m.Following())
	}
	m, _ = m.Update(press("k"))
	m.SetRows(All(30), false)
	if m.Selected() != 19 || m.Following() {
		t.Errorf("after moving: Selected %d Following %v; want 19 false", m.Selected(), m.Following())
	}
}

func TestEmpty(t *testing.T) {
	m := New(fake.Big(0), All(0))
	m.SetSize(20, 3)
	for _, k := range []string{"j", "k", "G", "g", "n", "N"} {
		m, _ = m.Update(press(k))
	}
	if m.Selected() != 0 {
		t.Errorf("empty list: Selected() = %d; want 0", m.Selected())
	}
	_ = m.View()
}

func BenchmarkView(b *testing.B) {
	b.ReportAllocs()
	m := New(fake.Big(1_000_000), All(1_000_000))
	m.SetSize(160, 20)
	for b.Loop() {
		m.Move(1)
		_ = view(&m)
	}
}

// heading is counting that also gives Heads as a filter reads them
// (HeadSource), counting those too.
type heading struct {
	counting
	heads int
}

func (h *heading) FilterHead(n int) (session.Head, bool) {
	h.heads++
	m := h.src.Message(n)
	if m == nil {
		return session.Head{}, false
	}
	return m.Head(), true
}

// TestFilterHeadScan: a filter with a test of Heads (SetFilterHead) scans
// a HeadSource's Heads and decodes no message, and lists what its test of
// messages lists; a source without Heads is scanned with that test.
func TestFilterHeadScan(t *testing.T) {
	isPing := func(msg *session.Message) bool { return msg.Name() == "PingRequest" }
	isPingHead := func(h session.Head) bool { return h.Kind.String() == "PingRequest" }
	listed := func(m *Model) []int {
		var ns []int
		for i := range m.Len() {
			ns = append(ns, m.Number(i))
		}
		return ns
	}
	ref := New(&counting{src: fake.Big(100)}, All(100))
	ref.SetFilter(isPing, true)
	for scan(&ref, 30) {
	}
	want := listed(&ref)
	if len(want) != 34 {
		t.Fatalf("the filter of messages lists %d; want 34", len(want))
	}
	for _, tc := range []struct {
		name      string
		wantHeads int
	}{
		{name: "heads", wantHeads: 100},
		{name: "no heads", wantHeads: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &heading{counting: counting{src: fake.Big(100)}}
			var src Source = h
			if tc.wantHeads == 0 {
				src = &h.counting
			}
			m := New(src, All(100))
			m.SetFilterHead(isPing, isPingHead, true)
			for scan(&m, 30) {
			}
			if got := listed(&m); !slices.Equal(got, want) {
				t.Errorf("listed %v; want %v", got, want)
			}
			if wantMsgs := 100 - tc.wantHeads; h.heads != tc.wantHeads || h.calls != wantMsgs {
				t.Errorf("scan read %d Heads and %d messages; want %d and %d", h.heads, h.calls, tc.wantHeads, wantMsgs)
			}
		})
	}
}
