package messages

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// Source fetches messages by number.
type Source interface {
	Message(n int) *session.Message
}

// Rows lists the message numbers a list shows, in ascending order.
type Rows interface {
	Len() int
	At(i int) int
}

// All is every message 1..N, without storing them.
type All int

func (a All) Len() int         { return int(a) }
func (a All) At(i int) int     { return i + 1 }
func (n Numbers) Len() int     { return len(n) }
func (n Numbers) At(i int) int { return int(n[i]) }

// Numbers is an explicit list of message numbers (one connection's),
// 32-bit as the capture's index is: the TUI keeps one per message (issue 7
// counts its bytes per message).
type Numbers []int32

// KeyMap holds the pane's bindings.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom, NextMatch, PrevMatch key.Binding
}

// DefaultKeyMap returns less/vim-like bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:       key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first")),
		Bottom:    key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last")),
		NextMatch: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		PrevMatch: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "prev match")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.Up, k.NextMatch} }
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown}, {k.Top, k.Bottom, k.NextMatch, k.PrevMatch}}
}

// Styles of the pane. Severity is shown by a letter as well as a colour so
// that NO_COLOR loses nothing.
type Styles struct {
	Title, TitleFocused, Selected, Match, Dim lipgloss.Style
	Severity                                  [3]lipgloss.Style
}

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	return Styles{
		Title:        lipgloss.NewStyle().Bold(true),
		TitleFocused: lipgloss.NewStyle().Bold(true).Reverse(true),
		Selected:     lipgloss.NewStyle().Reverse(true),
		Match:        lipgloss.NewStyle().Bold(true),
		Dim:          lipgloss.NewStyle().Faint(true),
		Severity:     frame.SeverityStyles(dark),
	}
}

// Model is the message list. Its zero value is not usable; call New.
type Model struct {
	KeyMap KeyMap
	Styles Styles
	Title  string // what the list shows, e.g. a connection

	src    Source
	base   Rows
	t0     time.Time
	w, h   int
	cursor int // index into the displayed list
	offset int
	focus  bool
	follow bool

	pred    func(*session.Message) bool
	hide    bool
	matches []int // indices into base that match pred, for base rows < scanned
	scanned int
	want    int // message to select once the scan reaches it, 0 if none
}

// New returns a list over src showing rows.
func New(src Source, rows Rows) Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true), src: src, base: rows}
}

// SetSize sets the pane size, title line included.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.clamp() }

// Focus and Blur mark the pane focused.
func (m *Model) Focus()       { m.focus = true }
func (m *Model) Blur()        { m.focus = false }
func (m Model) Focused() bool { return m.focus }

// SetStart sets the time that relative times count from.
func (m *Model) SetStart(t time.Time) { m.t0 = t }

// SetFollow makes the list follow the tail (live capture).
func (m *Model) SetFollow(on bool) {
	m.follow = on
	if on {
		m.cursor = m.Len() - 1
		m.clamp()
	}
}

// Following reports whether the list follows the tail.
func (m Model) Following() bool { return m.follow }

// SetRows replaces the listed rows (more messages arrived, or another
// connection was chosen), keeping the selected message when it is still
// listed. A filter rescans only when the base changed identity.
func (m *Model) SetRows(rows Rows, restart bool) {
	sel := m.Selected()
	m.base = rows
	if restart {
		m.matches, m.scanned = m.matches[:0], 0
		m.want = sel
		m.cursor, m.offset = 0, 0
		if m.pred == nil {
			m.selectNumber(sel)
		}
	}
	if m.follow {
		m.cursor = m.Len() - 1
	}
	m.clamp()
}

// SetFilter sets the display filter (nil for none). With hide, only matching
// rows are listed; without, all are and n/N jump between matches.
func (m *Model) SetFilter(pred func(*session.Message) bool, hide bool) {
	sel := m.Selected()
	m.pred, m.hide = pred, hide
	m.matches, m.scanned = nil, 0
	m.want = sel
	if pred == nil || !hide {
		m.selectNumber(sel)
		m.want = 0
	}
	m.clamp()
}

// Filtered reports whether a display filter is set.
func (m Model) Filtered() bool { return m.pred != nil }

// Scan tests up to budget more rows against the filter and reports whether
// rows remain to test. The root calls it on every tick until it is done, so
// no single update touches the whole capture.
func (m *Model) Scan(budget int) bool {
	if m.pred == nil {
		return false
	}
	n := m.base.Len()
	for ; m.scanned < n && budget > 0; budget-- {
		i := m.scanned
		m.scanned++
		num := m.base.At(i)
		msg := m.src.Message(num)
		if msg == nil || !m.pred(msg) {
			continue
		}
		m.matches = append(m.matches, i)
		if m.want != 0 && m.hide && num >= m.want {
			m.cursor = len(m.matches) - 1
			m.want = 0
		}
	}
	if m.want != 0 && m.hide && m.scanned >= n {
		// No match at or after the selection: the nearest is the last.
		m.cursor = len(m.matches) - 1
		m.want = 0
	}
	if m.follow {
		m.cursor = m.Len() - 1
	}
	m.clamp()
	return m.scanned < n
}

// Scanning reports whether the filter has rows left to test.
func (m Model) Scanning() bool { return m.pred != nil && m.scanned < m.base.Len() }

// Len is the number of rows listed.
func (m Model) Len() int {
	if m.pred != nil && m.hide {
		return len(m.matches)
	}
	return m.base.Len()
}

// number returns the message number of listed row i.
func (m Model) number(i int) int {
	if m.pred != nil && m.hide {
		return m.base.At(m.matches[i])
	}
	return m.base.At(i)
}

// Selected returns the selected message number, or 0 when the list is empty.
func (m Model) Selected() int {
	if m.cursor < 0 || m.cursor >= m.Len() {
		return 0
	}
	return m.number(m.cursor)
}

// Cursor returns the selected row index.
func (m Model) Cursor() int { return m.cursor }

// Select moves to message n, or the first listed message after it.
func (m *Model) Select(n int) {
	m.follow = false
	m.want = 0
	m.selectNumber(n)
	m.clamp()
}

func (m *Model) selectNumber(n int) {
	if n <= 0 {
		return
	}
	l := m.Len()
	m.cursor = sort.Search(l, func(i int) bool { return m.number(i) >= n })
	if m.cursor >= l {
		m.cursor = l - 1
	}
}

func (m *Model) clamp() {
	l := m.Len()
	if m.cursor >= l {
		m.cursor = l - 1
	}
	if m.cursor < 0 {
		m.cursor = 0
	}
	m.offset = frame.Scroll(m.offset, m.cursor, m.rows(), l)
}

func (m Model) rows() int { return max(m.h-1, 1) }

// Move moves the cursor by d rows; the user moving stops following.
func (m *Model) Move(d int) {
	m.follow = false
	m.want = 0 // the user's move wins over a pending re-selection
	m.cursor += d
	m.clamp()
}

// jumpMatch moves to the next (d > 0) or previous listed row that matches.
func (m *Model) jumpMatch(d int) {
	if m.pred == nil {
		return
	}
	m.follow = false
	if m.hide {
		m.Move(d)
		return
	}
	// matches holds base indices in ascending order.
	i := sort.SearchInts(m.matches, m.cursor+1)
	if d < 0 {
		i = sort.SearchInts(m.matches, m.cursor) - 1
	}
	if i >= 0 && i < len(m.matches) {
		m.cursor = m.matches[i]
		m.clamp()
	}
}

// Update handles keys and mouse events given to the pane.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.KeyMap.Up):
			m.Move(-1)
		case key.Matches(msg, m.KeyMap.Down):
			m.Move(1)
		case key.Matches(msg, m.KeyMap.PageUp):
			m.Move(-m.rows())
		case key.Matches(msg, m.KeyMap.PageDown):
			m.Move(m.rows())
		case key.Matches(msg, m.KeyMap.Top):
			m.Move(-m.Len())
		case key.Matches(msg, m.KeyMap.Bottom):
			m.Move(m.Len())
		case key.Matches(msg, m.KeyMap.NextMatch):
			m.jumpMatch(1)
		case key.Matches(msg, m.KeyMap.PrevMatch):
			m.jumpMatch(-1)
		}
	case tea.MouseClickMsg:
		// Coordinates are relative to the pane; row 0 is the title.
		if msg.Y >= 1 {
			m.follow = false
			m.cursor = m.offset + msg.Y - 1
			m.clamp()
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.Move(-3)
		case tea.MouseWheelDown:
			m.Move(3)
		}
	}
	return m, nil
}

var arrows = [...]string{dissect.C2S: "→", dissect.S2C: "←"}

// View renders the pane at its size.
func (m Model) View() string {
	lines := make([]string, 0, m.h)
	title := fmt.Sprintf(" Messages: %s  %d/%d", m.Title, m.cursor+1, m.Len())
	if m.Len() == 0 {
		title = fmt.Sprintf(" Messages: %s  0/0", m.Title)
	}
	if m.Scanning() {
		title += fmt.Sprintf("  filtering %d%%", m.scanned*100/max(m.base.Len(), 1))
	}
	if m.follow {
		title += "  [following]"
	}
	ts := m.Styles.Title
	if m.focus {
		ts = m.Styles.TitleFocused
	}
	lines = append(lines, ts.Render(frame.Line(title, m.w)))
	end := min(m.offset+m.rows(), m.Len())
	for i := m.offset; i < end; i++ {
		lines = append(lines, m.row(i))
	}
	return frame.Block(lines, m.w, m.h)
}

func (m Model) row(i int) string {
	n := m.number(i)
	msg := m.src.Message(n)
	if msg == nil {
		return frame.Line(fmt.Sprintf("  %7d  (not decoded yet)", n), m.w)
	}
	sev, any := msg.Worst()
	letter := " "
	if any {
		letter = strings.ToUpper(sev.String()[:1])
	}
	arrow := "?"
	if int(msg.Dir) < len(arrows) {
		arrow = arrows[msg.Dir]
	}
	name := termsafe.Escape(msg.Name)
	if msg.Enum.Widened {
		name += "⁺" // read with the widened enum width (wire.md 4.2)
	}
	rel := 0.0
	if !m.t0.IsZero() {
		rel = msg.Time.Sub(m.t0).Seconds()
	}
	// The summary may start with the name already shown in its own column.
	sum := strings.TrimPrefix(msg.Summary, msg.Name+" ")
	if sum == msg.Name {
		sum = ""
	}
	s := fmt.Sprintf("%s %7d %10.6f %s %-26s %s", letter, n, rel, arrow, name, frame.Safe(sum))
	s = frame.Line(s, m.w)
	switch {
	case i == m.cursor:
		return m.Styles.Selected.Render(s)
	case m.pred != nil && !m.hide && m.isMatch(i):
		s = m.Styles.Match.Render(s)
	case m.pred != nil && !m.hide:
		return m.Styles.Dim.Render(s)
	}
	if any {
		return m.Styles.Severity[min(int(sev), 2)].Render(s)
	}
	return s
}

func (m Model) isMatch(i int) bool {
	j := sort.SearchInts(m.matches, i)
	return j < len(m.matches) && m.matches[j] == i
}
