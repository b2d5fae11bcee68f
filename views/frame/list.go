package frame

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// The list behaviour every pane shares (connections, messages, detail,
// bits, tables): a title line and rows below it, a cursor row and a scroll
// offset, a size and the focus. Each pane embeds List, ListKeyMap and
// ListStyles in its own Model, KeyMap and Styles and keeps what is its own
// (bubbles' table and viewport are the pattern).

// ListKeyMap holds the movement keys of a list: a row up or down, the
// first and the last row.
type ListKeyMap struct {
	Up, Down, Top, Bottom key.Binding
}

// DefaultListKeyMap returns the less/vim bindings every list uses; a pane
// changes the help text to name its rows (Top.SetHelp("g", "first")), and
// a pane without first/last keys disables them.
func DefaultListKeyMap() ListKeyMap {
	return ListKeyMap{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Top:    key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom: key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
	}
}

// Move returns the row a key press moves cursor to in a list of n rows
// (not clamped), and whether the key is one of k's.
func (k ListKeyMap) Move(msg tea.KeyPressMsg, cursor, n int) (int, bool) {
	switch {
	case key.Matches(msg, k.Up):
		return cursor - 1, true
	case key.Matches(msg, k.Down):
		return cursor + 1, true
	case key.Matches(msg, k.Top):
		return 0, true
	case key.Matches(msg, k.Bottom):
		return n - 1, true
	}
	return cursor, false
}

// ListStyles are the styles every list has: its title, focused or not,
// and the selected row.
type ListStyles struct {
	Title, TitleFocused, Selected lipgloss.Style
}

// DefaultListStyles returns bold titles, reversed when focused, and a
// reversed selection: all survive NO_COLOR.
func DefaultListStyles() ListStyles {
	return ListStyles{
		Title:        lipgloss.NewStyle().Bold(true),
		TitleFocused: lipgloss.NewStyle().Bold(true).Reverse(true),
		Selected:     lipgloss.NewStyle().Reverse(true),
	}
}

// List is the state every list pane keeps: its size (title line
// included), the focus, the cursor row and the first row shown.
type List struct {
	cursor, offset int
	w, h           int
	focus          bool
}

// SetSize sets the size, title line included. A pane's own SetSize calls
// it and then clamps its cursor to its rows.
func (l *List) SetSize(w, h int) { l.w, l.h = w, h }

// Width and Height are the size set by SetSize.
func (l List) Width() int  { return l.w }
func (l List) Height() int { return l.h }

// Focus and Blur mark the pane focused.
func (l *List) Focus()       { l.focus = true }
func (l *List) Blur()        { l.focus = false }
func (l List) Focused() bool { return l.focus }

// Rows is how many rows fit below the title (at least one).
func (l List) Rows() int { return max(l.h-1, 1) }

// Cursor is the row under the cursor; Offset the first row shown.
func (l List) Cursor() int { return l.cursor }
func (l List) Offset() int { return l.offset }

// SetCursor moves the cursor to row i of a list of n rows, kept inside
// it and in view.
func (l *List) SetCursor(i, n int) {
	l.cursor = i
	l.Clamp(n)
}

// Home puts the cursor and the window back on the first row.
func (l *List) Home() { l.cursor, l.offset = 0, 0 }

// Clamp keeps the cursor inside a list of n rows and scrolls it into view.
func (l *List) Clamp(n int) {
	l.cursor = max(0, min(l.cursor, n-1))
	l.ScrollTo(l.cursor, n)
}

// ScrollTo moves the window as little as possible to show row of n rows:
// for a pane whose cursor is not a row (the bits pane's is a bit).
func (l *List) ScrollTo(row, n int) { l.offset = Scroll(l.offset, row, l.Rows(), n) }

// Mouse returns the row a click (row y−1 under the title) or a wheel
// notch (WheelStep rows) moves the cursor to; other messages leave it.
func (l List) Mouse(msg tea.Msg) int { return ListMouse(msg, l.cursor, l.offset) }

// View renders the title, styled focused or not, and the rows shown of a
// list of n, each drawn by row (fitted and styled by the pane), fitted to
// the pane's size.
func (l List) View(st ListStyles, title string, n int, row func(i int) string) string {
	ts := st.Title
	if l.focus {
		ts = st.TitleFocused
	}
	lines := make([]string, 1, max(l.h, 1))
	lines[0] = ts.Render(Line(title, l.w))
	for i, end := l.offset, min(l.offset+l.Rows(), n); i < end; i++ {
		lines = append(lines, row(i))
	}
	return Block(lines, l.w, l.h)
}
