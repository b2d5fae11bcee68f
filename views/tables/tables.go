package tables

import (
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// PendingMsg asks to go to message N: a row of a protocol's tables (a
// ULinkRPC Request still pending), chosen in the tables pane.
type PendingMsg struct{ N int }

// ListenerMsg asks to show only the messages of one listener: a server ID,
// or a client ID (with the server ID it maps to, when Mapped).
type ListenerMsg struct {
	Conn     dissect.Conn
	Server   bool // ID is a server ID
	ID       uint32
	Mapped   bool
	ServerID uint32
	// Clients are the client IDs mapped to a server ID (Server): their
	// messages before the mapping (the definition) belong to it too.
	Clients []uint32
	Label   string
}

// KeyMap holds the pane's bindings.
type KeyMap struct {
	frame.ListKeyMap
	Select key.Binding
}

// DefaultKeyMap returns vim-like bindings. The tables have no first/last
// keys: Top and Bottom are disabled.
func DefaultKeyMap() KeyMap {
	k := KeyMap{
		ListKeyMap: frame.DefaultListKeyMap(),
		Select:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "filter by listener")),
	}
	k.Top.SetEnabled(false)
	k.Bottom.SetEnabled(false)
	return k
}

func (k KeyMap) ShortHelp() []key.Binding  { return []key.Binding{k.Down, k.Up, k.Select} }
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Up, k.Down, k.Select}} }

// Styles of the pane.
type Styles struct {
	frame.ListStyles
	Heading, Warn lipgloss.Style
}

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	ld := lipgloss.LightDark(dark)
	return Styles{
		ListStyles: frame.DefaultListStyles(),
		Heading:    lipgloss.NewStyle().Underline(true),
		Warn:       lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#af5f00"), lipgloss.Color("#ffd75f"))),
	}
}

type line struct {
	text  string
	entry *ListenerMsg    // selectable when non-nil
	goes  int             // a protocol table's row (decode.Row.Go): the message Enter goes to
	style decode.RowStyle // plain, heading or warning
}

// Model is the tables pane.
type Model struct {
	KeyMap KeyMap
	Styles Styles
	frame.List

	t     *session.Tables
	lines []line
}

// New returns an empty pane.
func New() Model { return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true)} }

// SetSize sets the pane size, title line included.
func (m *Model) SetSize(w, h int) { m.List.SetSize(w, h); m.Clamp(len(m.lines)) }

// SetTables shows t (nil: no connection selected), keeping the cursor row.
func (m *Model) SetTables(t *session.Tables) {
	m.t = t
	p := t.Proto()
	m.lines = render(t, p)
	// Enter acts on what the pane lists: a listener, or a row of a
	// protocol's tables (a ULinkRPC connection's pending request).
	desc := "filter by listener"
	if p != nil {
		desc = p.Goes()
	}
	m.KeyMap.Select.SetHelp("enter", desc)
	m.Clamp(len(m.lines))
}

// Tables returns the tables shown.
func (m Model) Tables() *session.Tables { return m.t }

// Lines returns the pane's lines without styling (for tests).
func (m Model) Lines() []string {
	out := make([]string, len(m.lines))
	for i, l := range m.lines {
		out[i] = l.text
	}
	return out
}

// Entry returns the listener under the cursor.
func (m Model) Entry() (ListenerMsg, bool) {
	if c := m.Cursor(); c < len(m.lines) && m.lines[c].entry != nil {
		return *m.lines[c].entry, true
	}
	return ListenerMsg{}, false
}

// Update handles keys and mouse events given to the pane.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	cursor := m.Cursor()
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if c, ok := m.KeyMap.Move(msg, cursor, len(m.lines)); ok {
			cursor = c
		} else if key.Matches(msg, m.KeyMap.Select) {
			if e, ok := m.Entry(); ok {
				cmd = func() tea.Msg { return e }
			} else if c := m.Cursor(); c < len(m.lines) && m.lines[c].goes > 0 {
				p := PendingMsg{N: m.lines[c].goes}
				cmd = func() tea.Msg { return p }
			}
		}
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		cursor = m.Mouse(msg)
	}
	m.SetCursor(cursor, len(m.lines))
	return m, cmd
}

// View renders the pane.
func (m Model) View() string {
	title := " Tables"
	if m.t != nil {
		title = fmt.Sprintf(" Tables as of message %d", m.t.AsOf)
	}
	return m.List.View(m.Styles.ListStyles, title, len(m.lines), m.row)
}

func (m Model) row(i int) string {
	l := m.lines[i]
	s := frame.Line(l.text, m.Width())
	switch {
	case i == m.Cursor() && m.Focused():
		s = m.Styles.Selected.Render(s)
	case l.style == decode.RowHeading:
		s = m.Styles.Heading.Render(s)
	case l.style == decode.RowWarn:
		s = m.Styles.Warn.Render(s)
	}
	return s
}

func changed(c bool) string {
	if c {
		return "*"
	}
	return " "
}

// render lays out t, whose protocol tables are p (nil: t's listener
// tables).
func render(t *session.Tables, p decode.Tables) []line {
	if t == nil {
		return []line{{text: "  select a connection to see its listener tables"}}
	}
	if p != nil {
		return renderProto(t, p)
	}
	ls := []line{{text: fmt.Sprintf("Server table (%d)", len(t.Server)), style: decode.RowHeading}}
	for _, e := range t.Server {
		var clients []uint32
		for _, c := range t.Client {
			if c.Mapped && c.ServerID == e.ID {
				clients = append(clients, c.ID)
			}
		}
		ls = append(ls, line{
			text:  fmt.Sprintf("%s s%-4d %s v%d  %s #%d  %d inv %db", changed(e.Changed), e.ID, termsafe.Escape(e.Type), e.Version, e.Learned, e.First, e.Invokes, e.PayloadBits),
			entry: &ListenerMsg{Conn: t.Conn, Server: true, ID: e.ID, Clients: clients, Label: fmt.Sprintf("server %d", e.ID)},
		})
	}
	ls = append(ls, line{text: fmt.Sprintf("Client table (%d)", len(t.Client)), style: decode.RowHeading})
	for _, e := range t.Client {
		mapped := "→ ?"
		if e.Mapped {
			mapped = fmt.Sprintf("→ s%d", e.ServerID)
		}
		ls = append(ls, line{
			text:  fmt.Sprintf("%s c%-4d %s %s v%d  %s #%d  %d inv %db", changed(e.Changed), e.ID, mapped, termsafe.Escape(e.Type), e.Version, e.Learned, e.First, e.Invokes, e.PayloadBits),
			entry: &ListenerMsg{Conn: t.Conn, ID: e.ID, Mapped: e.Mapped, ServerID: e.ServerID, Label: fmt.Sprintf("client %d", e.ID)},
		})
	}
	// Missing listeners are named by their type, looked up on the side
	// that defined them: the server lacks client IDs, the client server IDs.
	if len(t.MissingOnServer) > 0 {
		ls = append(ls, line{text: fmt.Sprintf("Missing on server (%d)", len(t.MissingOnServer)), style: decode.RowWarn})
		for _, id := range t.MissingOnServer {
			ls = append(ls, line{text: fmt.Sprintf("  c%d %s", id, typeOf(t, false, id)), style: decode.RowWarn})
		}
	}
	if len(t.MissingOnClient) > 0 {
		ls = append(ls, line{text: fmt.Sprintf("Missing on client (%d)", len(t.MissingOnClient)), style: decode.RowWarn})
		for _, id := range t.MissingOnClient {
			ls = append(ls, line{text: fmt.Sprintf("  s%d %s", id, typeOf(t, true, id)), style: decode.RowWarn})
		}
	}
	if len(t.Unresolved) > 0 {
		ls = append(ls, line{text: fmt.Sprintf("Unresolved (%d)", len(t.Unresolved)), style: decode.RowHeading})
		for _, r := range t.Unresolved {
			ls = append(ls, line{text: fmt.Sprintf("  #%d %s id %d", r.N, r.Dir, r.ID), style: decode.RowWarn})
		}
	}
	return warnings(ls, t)
}

// renderProto lays out a protocol's own tables (a ULinkRPC connection's
// `rpc` table) as of t.AsOf: its rows, then t's warnings.
func renderProto(t *session.Tables, p decode.Tables) []line {
	var ls []line
	for _, r := range p.Rows() {
		ls = append(ls, line{text: r.Text, style: r.Style, goes: r.Go})
	}
	return warnings(ls, t)
}

// warnings appends t's table-level findings to ls.
func warnings(ls []line, t *session.Tables) []line {
	for _, w := range t.Warnings {
		ls = append(ls, line{text: fmt.Sprintf("%s/%s: %s", w.Severity, w.Group, termsafe.Escaped(w.Text)), style: decode.RowWarn})
	}
	return ls
}

// typeOf names listener id of one side's table, escaped; "(type unknown)"
// when the table does not hold it.
func typeOf(t *session.Tables, server bool, id uint32) string {
	if server {
		for _, e := range t.Server {
			if e.ID == id {
				return termsafe.Escape(e.Type)
			}
		}
	} else {
		for _, e := range t.Client {
			if e.ID == id {
				return termsafe.Escape(e.Type)
			}
		}
	}
	return "(type unknown)"
}

// Match reports whether msg belongs to the listener l: a server ID matches
// messages naming that server ID; a client ID matches those naming it, or
// naming its mapped server ID (wire.md 4.3: the client switches to the
// server's ID once it learns it).
func (l ListenerMsg) Match(msg *session.Message) bool {
	if msg.Conn != l.Conn || msg.Listener == nil {
		return false
	}
	sid, cid := msg.Listener.ServerID, msg.Listener.ClientID
	if l.Server {
		return sid != nil && *sid == l.ID || cid != nil && slices.Contains(l.Clients, *cid)
	}
	return cid != nil && *cid == l.ID || l.Mapped && sid != nil && *sid == l.ServerID
}
