package pager

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/views/frame"
)

// JumpMsg asks the root to close the pager and select message Msg, or
// connection Conn when Msg is 0.
type JumpMsg struct {
	Msg  int
	Conn *dissect.Conn
}

// KeyMap holds the pager's bindings.
type KeyMap struct {
	frame.ListKeyMap
	PageUp, PageDown, Jump, Close key.Binding
}

// DefaultKeyMap returns less-like bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ListKeyMap: frame.DefaultListKeyMap(),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown", "space", "ctrl+f"), key.WithHelp("pgdn/space", "page down")),
		Jump:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "go to")),
		Close:      key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc/q", "close")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Down, k.Up, k.PageDown, k.Jump, k.Close}
}
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown}, {k.Top, k.Bottom, k.Jump, k.Close}}
}

// Styles of the pager.
type Styles struct {
	frame.ListStyles
	Heading  lipgloss.Style
	Severity [3]lipgloss.Style
	Series   [frame.SeriesColours]lipgloss.Style // frame.Row.Colour
}

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	return Styles{ListStyles: frame.DefaultListStyles(), Heading: lipgloss.NewStyle().Bold(true), Severity: frame.SeverityStyles(dark), Series: frame.SeriesStyles(dark)}
}

// Model is the pager.
type Model struct {
	KeyMap KeyMap
	Styles Styles
	Title  string
	frame.List

	lines []frame.Row
}

// New returns an empty pager.
func New() Model {
	m := Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true)}
	m.Focus()
	return m
}

// SetSize sets the size, title line included.
func (m *Model) SetSize(w, h int) { m.List.SetSize(w, h); m.Clamp(len(m.lines)) }

// SetLines replaces the lines and puts the cursor on the first.
func (m *Model) SetLines(title string, lines []frame.Row) {
	m.Title, m.lines = title, lines
	m.Home()
	m.Clamp(len(lines))
}

// SetCursorMsg puts the cursor on the first line of message n, that line
// at the top of the view when the lines below it fill the view (Follow
// opens at the selected message); it stays where it is when no line is
// message n's.
func (m *Model) SetCursorMsg(n int) {
	for i, l := range m.lines {
		if l.Msg == n {
			m.SetCursor(len(m.lines)-1, len(m.lines))
			m.SetCursor(i, len(m.lines))
			return
		}
	}
}

// Lines returns the lines shown.
func (m Model) Lines() []frame.Row { return m.lines }

// Update handles keys and the mouse. Close is the root's to handle.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	c, n := m.Cursor(), len(m.lines)
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if to, ok := m.KeyMap.Move(msg, c, n); ok {
			c = to
			break
		}
		switch {
		case key.Matches(msg, m.KeyMap.PageUp):
			c -= m.Rows()
		case key.Matches(msg, m.KeyMap.PageDown):
			c += m.Rows()
		case key.Matches(msg, m.KeyMap.Jump):
			if c < n && (m.lines[c].Msg > 0 || m.lines[c].Conn != nil) {
				j := JumpMsg{Msg: m.lines[c].Msg, Conn: m.lines[c].Conn}
				cmd = func() tea.Msg { return j }
			}
		}
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		c = m.Mouse(msg)
	}
	m.SetCursor(c, n)
	return m, cmd
}

// View renders the title with the position, and the lines in view; the
// cursor line is reversed.
func (m Model) View() string {
	title := fmt.Sprintf(" %s  %d/%d", m.Title, min(m.Cursor()+1, len(m.lines)), len(m.lines))
	return m.List.View(m.Styles.ListStyles, title, len(m.lines), m.row)
}

func (m Model) row(i int) string {
	l := m.lines[i]
	s := frame.Line(l.Text, m.Width())
	switch {
	case i == m.Cursor():
		return m.Styles.Selected.Render(s)
	case l.Colour > 0 && int(l.Colour) <= len(m.Styles.Series):
		st := m.Styles.Series[l.Colour-1]
		if l.Style == frame.Heading {
			st = st.Bold(true)
		}
		return st.Render(s)
	case l.Style == frame.Heading:
		return m.Styles.Heading.Render(s)
	case l.Style >= frame.NoteRow:
		return m.Styles.Severity[l.Style-frame.NoteRow].Render(s)
	}
	return s
}
