package conns

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// KeyMap holds the pane's bindings: the list's.
type KeyMap struct {
	frame.ListKeyMap
}

// DefaultKeyMap returns vim-like bindings; the first row is "all
// connections".
func DefaultKeyMap() KeyMap {
	k := KeyMap{frame.DefaultListKeyMap()}
	k.Top.SetHelp("g", "all connections")
	k.Bottom.SetHelp("G", "last")
	return k
}

func (k KeyMap) ShortHelp() []key.Binding  { return []key.Binding{k.Down, k.Up} }
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}} }

// Styles of the pane.
type Styles struct {
	frame.ListStyles
	Severity [3]lipgloss.Style
}

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	return Styles{ListStyles: frame.DefaultListStyles(), Severity: frame.SeverityStyles(dark)}
}

// Model is the connections list.
type Model struct {
	KeyMap     KeyMap
	Styles     Styles
	frame.List // row 0 is all connections, row i is list[i-1]

	list  []session.ConnInfo // in address order
	label map[dissect.Conn]string
	miss  map[dissect.Conn]int
	spark map[dissect.Conn][]int
	total int
}

// New returns an empty pane.
func New() Model {
	// label is shared by the copies of the model (Label is handed to the
	// message list as a method value).
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true), label: map[dissect.Conn]string{}}
}

// SetSize sets the pane size, title line included.
func (m *Model) SetSize(w, h int) { m.List.SetSize(w, h); m.clamp() }

// SetConnections replaces the list, keeping the selected connection.
func (m *Model) SetConnections(list []session.ConnInfo, total int) {
	sel, ok := m.Selected()
	// Labels follow the order connections were seen, so they stay put
	// while a live capture adds more; rows are in address order.
	for _, c := range list {
		if _, ok := m.label[c.Conn]; !ok {
			m.label[c.Conn] = fmt.Sprintf("c%d", len(m.label)+1)
		}
	}
	list = slices.Clone(list)
	slices.SortFunc(list, func(a, b session.ConnInfo) int {
		if c := a.Conn.Client.Compare(b.Conn.Client); c != 0 {
			return c
		}
		return a.Conn.Server.Compare(b.Conn.Server)
	})
	m.list, m.total = list, total
	cursor := m.Cursor()
	if ok {
		for i, c := range list {
			if c.Conn == sel {
				cursor = i + 1
			}
		}
	}
	m.SetCursor(cursor, m.rows())
}

// Label is connection c's short name (c1, c2, … in the order seen), the
// one the message list shows beside each row of all connections.
func (m Model) Label(c dissect.Conn) string { return m.label[c] }

// SetMissing sets how many listeners each connection's sides said they
// lack (TellServerMissingListener, TellClientMissingListener); those rows
// are flagged.
func (m *Model) SetMissing(miss map[dissect.Conn]int) { m.miss = miss }

// SetSpark sets per-connection message counts per second, oldest first.
func (m *Model) SetSpark(s map[dissect.Conn][]int) { m.spark = s }

// Selected returns the selected connection; false means all connections.
func (m Model) Selected() (dissect.Conn, bool) {
	if c := m.Cursor(); c > 0 && c <= len(m.list) {
		return m.list[c-1].Conn, true
	}
	return dissect.Conn{}, false
}

// Info returns the selected connection's summary.
func (m Model) Info() (session.ConnInfo, bool) {
	if c := m.Cursor(); c > 0 && c <= len(m.list) {
		return m.list[c-1], true
	}
	return session.ConnInfo{}, false
}

// Select selects connection c (the zero Conn selects all).
func (m *Model) Select(c dissect.Conn) {
	cursor := 0
	for i, ci := range m.list {
		if ci.Conn == c {
			cursor = i + 1
		}
	}
	m.SetCursor(cursor, m.rows())
}

// rows counts the rows: all connections, then each connection.
func (m Model) rows() int { return len(m.list) + 1 }

func (m *Model) clamp() { m.Clamp(m.rows()) }

// Update handles keys and mouse events given to the pane.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	cursor := m.Cursor()
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		cursor, _ = m.KeyMap.Move(msg, cursor, m.rows())
	case tea.MouseClickMsg:
		cursor = m.Mouse(msg)
	case tea.MouseWheelMsg:
		// One connection a notch: the list is short.
		switch msg.Button {
		case tea.MouseWheelUp:
			cursor--
		case tea.MouseWheelDown:
			cursor++
		}
	}
	m.SetCursor(cursor, m.rows())
	return m, nil
}

// View renders the pane.
func (m Model) View() string {
	return m.List.View(m.Styles.ListStyles, fmt.Sprintf(" Connections  %d", len(m.list)), m.rows(), m.row)
}

func (m Model) row(i int) string {
	var s string
	sev, any := dissect.Note, false
	if i == 0 {
		s = "  all connections  " + dissect.Count(m.total, "msg")
	} else {
		c := m.list[i-1]
		s = m.line(c)
		sev, any = c.Worst, c.HasFinding
	}
	s = frame.Line(s, m.Width())
	switch {
	case i == m.Cursor():
		s = m.Styles.Selected.Render(s)
	case any:
		s = m.Styles.Severity[min(int(sev), 2)].Render(s)
	}
	return s
}

// line formats one connection. The USMN column reads client/server: U a
// marker was seen, - none; then the widened directions, and "?" when the
// widening was inferred rather than seen in a handshake (wire.md 4.2). A
// hosted protocol's connection shows its Label there ("ulinkrpc tcp").
func (m Model) line(c session.ConnInfo) string {
	worst := "ok"
	if c.HasFinding {
		worst = c.Worst.String()
	}
	if k := m.miss[c.Conn]; k > 0 {
		worst += fmt.Sprintf(" missing %d", k)
	}
	// A hosted protocol's connection names its protocol (and a ULinkRPC
	// one its transport: ulinkrpc.md 2) where an Unturned one has its USMN
	// and widening columns.
	proto := fmt.Sprintf("usmn %s/%s %s", flag(c.USMNClient, "C"), flag(c.USMNServer, "S"), c.WidenedText(session.Brief))
	switch {
	case c.Label != "":
		proto = termsafe.Escape(c.Label)
	case c.Proto != "":
		proto = termsafe.Escape(c.Proto) // a registered protocol (decode.Register) without a label
	}
	label := m.label[c.Conn]
	if c.Host != "" {
		// Several captures: the host the connection was first seen on.
		label += " " + termsafe.Escape(c.Host)
	}
	return fmt.Sprintf("%-3s %s ↔ %s  %s  %s %d/%dB  %s  %s",
		label, c.Conn.Client, c.Conn.Server, proto,
		dissect.Count(c.Messages, "msg"), c.Bytes[dissect.C2S], c.Bytes[dissect.S2C], worst, Sparkline(m.spark[c.Conn], 12))
}

func flag(on bool, s string) string {
	if on {
		return s
	}
	return "-"
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
