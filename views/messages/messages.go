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
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// Source fetches messages by number. Reading one may read the capture
// file back (session.Store), so the pane calls it only inside the commands
// that Load and Scan return, never in Update or View.
type Source interface {
	// Message is message n decoded (nil when it cannot be read).
	Message(n int) *session.Message
	// Settled is how many messages (1..Settled) are final: more input
	// cannot change them, so a row read once needs no second read.
	Settled() int
}

// HeadSource is a Source that also gives a message's Head as a filter of
// Heads reads it (session.Index.FilterHead): a scan under a filter with a
// test of Heads (SetFilterHead) reads those instead of the messages.
type HeadSource interface {
	Source
	FilterHead(n int) (session.Head, bool)
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
	frame.ListKeyMap
	PageUp, PageDown, NextMatch, PrevMatch key.Binding
	// The column keys (columns.go, ColumnKey): choose the current column,
	// sort by it, remove, move and resize it.
	ColumnLeft, ColumnRight, Sort, RemoveColumn, MoveLeft, MoveRight, Narrower, Wider key.Binding
}

// DefaultKeyMap returns less/vim-like bindings.
func DefaultKeyMap() KeyMap {
	k := KeyMap{
		ListKeyMap: frame.DefaultListKeyMap(),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		NextMatch:  key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		PrevMatch:  key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "prev match")),

		ColumnLeft:   key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "current column: the one to the left (n, time, conn, dir, msg, then the added ones)")),
		ColumnRight:  key.NewBinding(key.WithKeys(">"), key.WithHelp(">", "current column: the one to the right")),
		Sort:         key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "sort by the current column: ascending, descending, off (stable; numbers as numbers)")),
		RemoveColumn: key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "remove the current column")),
		MoveLeft:     key.NewBinding(key.WithKeys("{"), key.WithHelp("{", "move the current column left")),
		MoveRight:    key.NewBinding(key.WithKeys("}"), key.WithHelp("}", "move the current column right")),
		Narrower:     key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "narrow the current column")),
		Wider:        key.NewBinding(key.WithKeys("+"), key.WithHelp("+", "widen the current column")),
	}
	k.Top.SetHelp("g", "first")
	k.Bottom.SetHelp("G", "last")
	return k
}

// The filter always hides what does not match, so n/N (next match) would
// only move a row: they are not offered in the help.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.Up, k.PageDown} }
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown}, {k.Top, k.Bottom}}
}

// Styles of the pane. Severity is shown by a letter as well as a colour so
// that NO_COLOR loses nothing.
type Styles struct {
	frame.ListStyles
	Match, Dim lipgloss.Style
	Severity   [3]lipgloss.Style
}

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	return Styles{
		ListStyles: frame.DefaultListStyles(),
		Match:      lipgloss.NewStyle().Bold(true),
		Dim:        lipgloss.NewStyle().Faint(true),
		Severity:   frame.SeverityStyles(dark),
	}
}

// Model is the message list. Its zero value is not usable; call New.
type Model struct {
	KeyMap KeyMap
	Styles Styles
	Title  string // what the list shows, e.g. a connection
	// ConnLabel, when set, names each row's connection in a column (the
	// list of all connections, where rows of two connections mix).
	ConnLabel  func(dissect.Conn) string
	frame.List // the cursor is an index into the displayed list

	src    Source
	base   Rows
	t0     time.Time
	follow bool

	// The time column and the marks (timemarks.go).
	timeFmt TimeFormat
	ref     int
	refTime time.Time
	stamp   StampFunc
	marks   map[int]bool

	pred     func(*session.Message) bool
	head     func(session.Head) bool // pred on the index record alone, when it needs no more (SetFilterHead)
	hide     bool
	matches  []int // indices into base that match pred, for base rows < scanned
	scanned  int
	want     int    // message to select once the scan reaches it, 0 if none
	gen      uint32 // bumped when pred or base change: older scans are dropped
	scanning bool   // a scan command of gen is under way

	cache *cache // the messages of the rows shown, read by Load's commands

	// Columns and sort (columns.go).
	cols     []Column
	colCur   int
	lookup   LookupFunc
	sortBy   string
	sortDesc bool
	order    []int32 // display row → listed row, when sorted and current
	sortGen  uint32
	sorting  bool
}

// New returns a list over src showing rows.
func New(src Source, rows Rows) Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true), src: src, base: rows, cache: newCache()}
}

// SetSize sets the pane size, title line included.
func (m *Model) SetSize(w, h int) { m.List.SetSize(w, h); m.clamp() }

// SetStart sets the time that relative times count from.
func (m *Model) SetStart(t time.Time) { m.t0 = t }

// SetFollow makes the list follow the tail (live capture).
func (m *Model) SetFollow(on bool) {
	m.follow = on
	if on {
		m.SetCursor(m.Len()-1, m.Len())
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
	cursor := m.Cursor()
	if restart {
		m.matches, m.scanned = m.matches[:0], 0
		m.restartScan()
		m.want = sel
		m.Home()
		cursor = 0
		if m.pred == nil {
			cursor = m.find(sel, cursor)
		}
	}
	if m.follow {
		cursor = m.Len() - 1
	}
	if restart || m.order != nil && len(m.order) != m.rawLen() {
		m.resort()
	}
	m.SetCursor(cursor, m.Len())
}

// SetFilter sets the display filter (nil for none). With hide, only matching
// rows are listed; without, all are and n/N jump between matches.
func (m *Model) SetFilter(pred func(*session.Message) bool, hide bool) {
	m.SetFilterHead(pred, nil, hide)
}

// SetFilterHead is SetFilter with head, pred's test of a message's index
// record when pred reads nothing more (nil otherwise): a scan then reads
// records from a HeadSource and decodes no message, as dump's filter does
// (filter.Select). head must match exactly the messages pred matches.
func (m *Model) SetFilterHead(pred func(*session.Message) bool, head func(session.Head) bool, hide bool) {
	sel := m.Selected()
	m.pred, m.head, m.hide = pred, head, hide
	if pred == nil {
		m.head = nil
	}
	m.matches, m.scanned = nil, 0
	m.resort()
	m.restartScan()
	m.want = sel
	cursor := m.Cursor()
	if pred == nil || !hide {
		cursor = m.find(sel, cursor)
		m.want = 0
	}
	m.SetCursor(cursor, m.Len())
}

// restartScan drops the scan under way: its rows were of another base or
// filter.
func (m *Model) restartScan() { m.gen++; m.scanning = false }

// Filtered reports whether a display filter is set.
func (m Model) Filtered() bool { return m.pred != nil }

// ScannedMsg carries the rows of one Scan command that match the filter.
type ScannedMsg struct {
	gen      uint32
	from, to int   // the base rows tested
	matches  []int // the matching ones, ascending
}

// Scan returns a command that tests up to budget more rows against the
// filter, reading them from the source off the UI goroutine; Update takes
// its ScannedMsg. It returns nil when there is no filter, no row left to
// test or a scan under way. The root asks again after each, so no single
// command touches the whole capture.
func (m *Model) Scan(budget int) tea.Cmd {
	if m.pred == nil || m.scanning || m.scanned >= m.base.Len() || budget <= 0 {
		return nil
	}
	m.scanning = true
	src, base, pred, gen := m.src, m.base, m.pred, m.gen
	from, to := m.scanned, min(m.scanned+budget, m.base.Len())
	if hs, ok := src.(HeadSource); ok && m.head != nil {
		head := m.head
		return func() tea.Msg {
			out := ScannedMsg{gen: gen, from: from, to: to}
			for i := from; i < to; i++ {
				if h, ok := hs.FilterHead(base.At(i)); ok && head(h) {
					out.matches = append(out.matches, i)
				}
			}
			return out
		}
	}
	return func() tea.Msg {
		out := ScannedMsg{gen: gen, from: from, to: to}
		for i := from; i < to; i++ {
			if msg := src.Message(base.At(i)); msg != nil && pred(msg) {
				out.matches = append(out.matches, i)
			}
		}
		return out
	}
}

// record keeps the matches of a scan of the current filter and base.
func (m *Model) record(s ScannedMsg) {
	if s.gen != m.gen {
		return // of a filter or rows since replaced
	}
	m.scanning = false
	if s.from != m.scanned {
		return
	}
	cursor := m.Cursor()
	for _, i := range s.matches {
		m.matches = append(m.matches, i)
		if m.want != 0 && m.hide && m.base.At(i) >= m.want {
			cursor = len(m.matches) - 1
			m.want = 0
		}
	}
	m.scanned = s.to
	if len(s.matches) > 0 {
		m.resort()
	}
	if m.want != 0 && m.hide && m.scanned >= m.base.Len() {
		// No match at or after the selection: the nearest is the last.
		cursor = len(m.matches) - 1
		m.want = 0
	}
	if m.follow {
		cursor = m.Len() - 1
	}
	m.SetCursor(cursor, m.Len())
}

// Scanning reports whether the filter has rows left to test.
func (m Model) Scanning() bool { return m.pred != nil && m.scanned < m.base.Len() }

// Len is the number of rows listed.
func (m Model) Len() int { return m.rawLen() }

// rawLen is the number of rows listed, in message order.
func (m Model) rawLen() int {
	if m.pred != nil && m.hide {
		return len(m.matches)
	}
	return m.base.Len()
}

// sorted says the rows show in the sort's order.
func (m Model) sorted() bool { return m.order != nil && len(m.order) == m.rawLen() }

// number returns the message number of displayed row i.
func (m Model) number(i int) int {
	if m.sorted() {
		i = int(m.order[i])
	}
	return m.rawNumber(i)
}

// rawNumber returns the message number of listed row i, in message order.
func (m Model) rawNumber(i int) int {
	if m.pred != nil && m.hide {
		return m.base.At(m.matches[i])
	}
	return m.base.At(i)
}

// Number returns the message number of listed row i (0 ≤ i < Len).
func (m Model) Number(i int) int { return m.number(i) }

// Selected returns the selected message number, or 0 when the list is empty.
func (m Model) Selected() int {
	if c := m.Cursor(); c >= 0 && c < m.Len() {
		return m.number(c)
	}
	return 0
}

// Select moves to message n, or the first listed message after it.
func (m *Model) Select(n int) {
	m.follow = false
	m.want = 0
	m.SetCursor(m.find(n, m.Cursor()), m.Len())
}

// find returns the row of message n, or of the first listed message after
// it (the last row when there is none); cursor when n ≤ 0.
func (m Model) find(n, cursor int) int {
	if n <= 0 {
		return cursor
	}
	l := m.Len()
	if m.sorted() {
		for i := range l {
			if m.number(i) == n {
				return i
			}
		}
		return min(max(cursor, 0), l-1)
	}
	return min(sort.Search(l, func(i int) bool { return m.number(i) >= n }), l-1)
}

func (m *Model) clamp() { m.Clamp(m.Len()) }

// Move moves the cursor by d rows; the user moving stops following.
func (m *Model) Move(d int) {
	m.follow = false
	m.want = 0 // the user's move wins over a pending re-selection
	m.SetCursor(m.Cursor()+d, m.Len())
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
	i := sort.SearchInts(m.matches, m.Cursor()+1)
	if d < 0 {
		i = sort.SearchInts(m.matches, m.Cursor()) - 1
	}
	if i >= 0 && i < len(m.matches) {
		m.SetCursor(m.matches[i], m.Len())
	}
}

// Update handles keys and mouse events given to the pane.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case ScannedMsg:
		m.record(msg)
	case SortedMsg:
		m.takeSorted(msg)
	case RowsMsg:
		m.cache.put(msg, m.shown())
	case tea.KeyPressMsg:
		if c, ok := m.KeyMap.Move(msg, m.Cursor(), m.Len()); ok {
			m.Move(c - m.Cursor())
			break
		}
		switch {
		case key.Matches(msg, m.KeyMap.PageUp):
			m.Move(-m.Rows())
		case key.Matches(msg, m.KeyMap.PageDown):
			m.Move(m.Rows())
		case key.Matches(msg, m.KeyMap.NextMatch):
			m.jumpMatch(1)
		case key.Matches(msg, m.KeyMap.PrevMatch):
			m.jumpMatch(-1)
		}
	case tea.MouseClickMsg:
		// Coordinates are relative to the pane; row 0 is the title.
		if msg.Y >= 1 {
			m.follow = false
			m.SetCursor(m.Mouse(msg), m.Len())
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.Move(-frame.WheelStep)
		case tea.MouseWheelDown:
			m.Move(frame.WheelStep)
		}
	}
	return m, nil
}

var arrows = [...]string{dissect.C2S: "→", dissect.S2C: "←"}

// View renders the pane at its size, from the messages Load's commands
// read.
func (m Model) View() string {
	title := fmt.Sprintf(" Messages: %s  %d/%d", m.Title, m.Cursor()+1, m.Len())
	if m.Len() == 0 {
		title = fmt.Sprintf(" Messages: %s  0/0", m.Title)
	}
	if m.Scanning() {
		title += fmt.Sprintf("  filtering %d%%", m.scanned*100/max(m.base.Len(), 1))
	}
	if m.follow {
		title += "  [following]"
	}
	title += m.timeTitle() + m.colsTitle()
	return m.List.View(m.Styles.ListStyles, title, m.Len(), m.row)
}

func (m Model) row(i int) string {
	n := m.number(i)
	r := m.cache.get(n)
	if !r.ok {
		return frame.Line(fmt.Sprintf("  %7d  (not decoded yet)", n), m.Width())
	}
	letter := " "
	if r.flagged {
		letter = strings.ToUpper(r.sev.String()[:1])
	}
	arrow := "?"
	if int(r.dir) < len(arrows) {
		arrow = arrows[r.dir]
	}
	conn := ""
	if m.ConnLabel != nil {
		conn = fmt.Sprintf("%-3s ", m.ConnLabel(r.conn))
	}
	s := fmt.Sprintf("%s%s%7d %s %s%s %-26s %s%s", letter, m.markCell(n), n, m.timeCell(i, n, r.time, r.conn), conn, arrow, r.name, m.colsCells(r), r.summary)
	s = frame.Line(s, m.Width())
	switch {
	case i == m.Cursor():
		return m.Styles.Selected.Render(s)
	case m.pred != nil && !m.hide && m.isMatch(i):
		s = m.Styles.Match.Render(s)
	case m.pred != nil && !m.hide:
		return m.Styles.Dim.Render(s)
	}
	if r.flagged {
		return m.Styles.Severity[min(int(r.sev), 2)].Render(s)
	}
	return s
}

func (m Model) isMatch(i int) bool {
	if m.sorted() {
		i = int(m.order[i])
	}
	j := sort.SearchInts(m.matches, i)
	return j < len(m.matches) && m.matches[j] == i
}
