package conns

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// KeyMap holds the pane's bindings.
type KeyMap struct {
	Up, Down, Top, Bottom key.Binding
}

// DefaultKeyMap returns vim-like bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Top:    key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "all connections")),
		Bottom: key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding  { return []key.Binding{k.Down, k.Up} }
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}} }

// Styles of the pane.
type Styles struct {
	Title, TitleFocused, Selected lipgloss.Style
	Severity                      [3]lipgloss.Style
}

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	return Styles{
		Title:        lipgloss.NewStyle().Bold(true),
		TitleFocused: lipgloss.NewStyle().Bold(true).Reverse(true),
		Selected:     lipgloss.NewStyle().Reverse(true),
		Severity:     frame.SeverityStyles(dark),
	}
}

// Model is the connections list.
type Model struct {
	KeyMap KeyMap
	Styles Styles

	list   []session.ConnInfo
	spark  map[dissect.Conn][]int
	total  int
	cursor int // 0 = all connections, i = list[i-1]
	offset int
	w, h   int
	focus  bool
}

// New returns an empty pane.
func New() Model { return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true)} }

// SetSize sets the pane size, title line included.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.clamp() }

func (m *Model) Focus()       { m.focus = true }
func (m *Model) Blur()        { m.focus = false }
func (m Model) Focused() bool { return m.focus }

// SetConnections replaces the list, keeping the selected connection.
func (m *Model) SetConnections(list []session.ConnInfo, total int) {
	sel, ok := m.Selected()
	m.list, m.total = list, total
	if ok {
		for i, c := range list {
			if c.Conn == sel {
				m.cursor = i + 1
			}
		}
	}
	m.clamp()
}

// SetSpark sets per-connection message counts per second, oldest first.
func (m *Model) SetSpark(s map[dissect.Conn][]int) { m.spark = s }

// Selected returns the selected connection; false means all connections.
func (m Model) Selected() (dissect.Conn, bool) {
	if m.cursor <= 0 || m.cursor > len(m.list) {
		return dissect.Conn{}, false
	}
	return m.list[m.cursor-1].Conn, true
}

// Info returns the selected connection's summary.
func (m Model) Info() (session.ConnInfo, bool) {
	if m.cursor <= 0 || m.cursor > len(m.list) {
		return session.ConnInfo{}, false
	}
	return m.list[m.cursor-1], true
}

// Select selects connection c (the zero Conn selects all).
func (m *Model) Select(c dissect.Conn) {
	m.cursor = 0
	for i, ci := range m.list {
		if ci.Conn == c {
			m.cursor = i + 1
		}
	}
	m.clamp()
}

func (m *Model) clamp() {
	m.cursor = max(0, min(m.cursor, len(m.list)))
	m.offset = frame.Scroll(m.offset, m.cursor, max(m.h-1, 1), len(m.list)+1)
}

// Update handles keys and mouse events given to the pane.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.KeyMap.Up):
			m.cursor--
		case key.Matches(msg, m.KeyMap.Down):
			m.cursor++
		case key.Matches(msg, m.KeyMap.Top):
			m.cursor = 0
		case key.Matches(msg, m.KeyMap.Bottom):
			m.cursor = len(m.list)
		}
	case tea.MouseClickMsg:
		if msg.Y >= 1 {
			m.cursor = m.offset + msg.Y - 1
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.cursor--
		case tea.MouseWheelDown:
			m.cursor++
		}
	}
	m.clamp()
	return m, nil
}

// View renders the pane.
func (m Model) View() string {
	ts := m.Styles.Title
	if m.focus {
		ts = m.Styles.TitleFocused
	}
	lines := []string{ts.Render(frame.Line(fmt.Sprintf(" Connections  %d", len(m.list)), m.w))}
	for i := m.offset; i <= len(m.list) && len(lines) < m.h; i++ {
		var s string
		sev, any := dissect.Note, false
		if i == 0 {
			s = fmt.Sprintf("  all connections  %d msgs", m.total)
		} else {
			c := m.list[i-1]
			s = m.line(c)
			sev, any = c.Worst, c.HasFinding
		}
		s = frame.Line(s, m.w)
		switch {
		case i == m.cursor:
			s = m.Styles.Selected.Render(s)
		case any:
			s = m.Styles.Severity[min(int(sev), 2)].Render(s)
		}
		lines = append(lines, s)
	}
	return frame.Block(lines, m.w, m.h)
}

// line formats one connection. The USMN column reads client/server: U a
// marker was seen, - none; then the widened directions, and "?" when the
// widening was inferred rather than seen in a handshake (wire.md 4.2).
func (m Model) line(c session.ConnInfo) string {
	worst := "ok"
	if c.HasFinding {
		worst = c.Worst.String()
	}
	return fmt.Sprintf("  %s ↔ %s  usmn %s/%s %s  %d msgs %d/%dB  %s  %s",
		c.Conn.Client, c.Conn.Server, flag(c.USMNClient, "C"), flag(c.USMNServer, "S"), widened(c),
		c.Messages, c.Bytes[dissect.C2S], c.Bytes[dissect.S2C], worst, Sparkline(m.spark[c.Conn], 12))
}

func flag(on bool, s string) string {
	if on {
		return s
	}
	return "-"
}

func widened(c session.ConnInfo) string {
	var w []string
	for d, on := range c.Widened {
		if on {
			w = append(w, dissect.Dir(d).String())
		}
	}
	if len(w) == 0 {
		return "vanilla"
	}
	s := "wide:" + strings.Join(w, ",")
	if c.Inferred {
		s += "?"
	}
	return s
}

var ticks = []rune("▁▂▃▄▅▆▇█")

// Sparkline renders the last n counts scaled to the largest of them; a
// zero count is a space so idle seconds stand out.
func Sparkline(counts []int, n int) string {
	if len(counts) > n {
		counts = counts[len(counts)-n:]
	}
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	var b strings.Builder
	for _, c := range counts {
		switch {
		case c <= 0:
			b.WriteRune(' ')
		default:
			b.WriteRune(ticks[c*(len(ticks)-1)/top])
		}
	}
	return b.String()
}
