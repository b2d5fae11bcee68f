package detail

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// KeyMap holds the pane's bindings.
type KeyMap struct {
	frame.ListKeyMap
	Toggle, Expand, Collapse key.Binding
	// ApplyColumn adds the selected field as a message-list column; the
	// root handles it (views/columns.go).
	ApplyColumn key.Binding
}

// DefaultKeyMap returns vim-like bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		ListKeyMap:  frame.DefaultListKeyMap(),
		Toggle:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "expand/collapse")),
		Expand:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "expand")),
		Collapse:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "collapse")),
		ApplyColumn: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "add the selected field as a message-list column (apply as column)")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.Up, k.Toggle} }
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}, {k.Toggle, k.Expand, k.Collapse}}
}

// Styles of the pane.
type Styles struct {
	frame.ListStyles
	Offset   lipgloss.Style
	Severity [3]lipgloss.Style
}

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	return Styles{
		ListStyles: frame.DefaultListStyles(),
		Offset:     lipgloss.NewStyle().Faint(true),
		Severity:   frame.SeverityStyles(dark),
	}
}

// node is one line of the tree.
type node struct {
	path     string // identifies the node across messages, for expansion
	text     string
	off      string // "bit 5 +32"
	depth    int
	field    int // index into Message.Fields, or -1
	group    bool
	own      bool // a group that is field itself, not a group of fields
	sev      int  // severity+1 for finding lines, 0 otherwise
	children []*node
}

// Model is the field tree.
type Model struct {
	KeyMap     KeyMap
	Styles     Styles
	frame.List // a row per visible node

	msg    *session.Message
	root   []*node
	lines  []*node // visible nodes, flattened
	closed map[string]bool
}

// New returns an empty pane.
func New() Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true), closed: map[string]bool{}}
}

// SetSize sets the pane size, title line included.
func (m *Model) SetSize(w, h int) { m.List.SetSize(w, h); m.clamp() }

// SetMessage shows msg (decoded with spans); nil clears the pane. The
// cursor returns to the top.
func (m *Model) SetMessage(msg *session.Message) {
	m.msg = msg
	m.root = build(msg)
	m.Home()
	m.flatten()
}

// Message returns the message shown.
func (m Model) Message() *session.Message { return m.msg }

// SelectedField returns the index in Message.Fields of the field under the
// cursor, or -1.
func (m Model) SelectedField() int {
	if c := m.Cursor(); c >= 0 && c < len(m.lines) {
		return m.lines[c].field
	}
	return -1
}

// SelectField moves the cursor to field i, opening the groups around it:
// to the field's own line, or, for a field that is itself a group (a
// ULinkRPC payload member holding others), to the group's.
func (m *Model) SelectField(i int) {
	if !m.selectField(i, false) {
		m.selectField(i, true)
	}
}

func (m *Model) selectField(i int, groups bool) bool {
	is := func(n *node) bool { return n.field == i && (!n.group || groups && n.own) }
	var walk func(ns []*node, parents []string) bool
	walk = func(ns []*node, parents []string) bool {
		for _, n := range ns {
			if is(n) {
				for _, p := range parents {
					delete(m.closed, p)
				}
				return true
			}
			if walk(n.children, append(parents, n.path)) {
				return true
			}
		}
		return false
	}
	if !walk(m.root, nil) {
		return false
	}
	m.flatten()
	cursor := m.Cursor()
	for j, n := range m.lines {
		if is(n) {
			cursor = j
		}
	}
	m.SetCursor(cursor, len(m.lines))
	return true
}

// Lines returns the visible tree lines without styling (for tests).
func (m Model) Lines() []string {
	out := make([]string, len(m.lines))
	for i, n := range m.lines {
		out[i] = m.plain(n)
	}
	return out
}

func (m *Model) flatten() {
	m.lines = m.lines[:0]
	var walk func(ns []*node)
	walk = func(ns []*node) {
		for _, n := range ns {
			m.lines = append(m.lines, n)
			if n.group && !m.closed[n.path] {
				walk(n.children)
			}
		}
	}
	walk(m.root)
	m.clamp()
}

func (m *Model) clamp() { m.Clamp(len(m.lines)) }

func (m *Model) setOpen(open bool) {
	c := m.Cursor()
	if c >= len(m.lines) || !m.lines[c].group {
		return
	}
	if open {
		delete(m.closed, m.lines[c].path)
	} else {
		m.closed[m.lines[c].path] = true
	}
	m.flatten()
}

// Update handles keys and mouse events given to the pane.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if c, ok := m.KeyMap.Move(msg, m.Cursor(), len(m.lines)); ok {
			m.SetCursor(c, len(m.lines))
			break
		}
		switch {
		case key.Matches(msg, m.KeyMap.Toggle):
			if c := m.Cursor(); c < len(m.lines) {
				m.setOpen(m.closed[m.lines[c].path])
			}
		case key.Matches(msg, m.KeyMap.Expand):
			m.setOpen(true)
		case key.Matches(msg, m.KeyMap.Collapse):
			m.setOpen(false)
		}
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		m.SetCursor(m.Mouse(msg), len(m.lines))
	}
	m.clamp()
	return m, nil
}

func (m Model) plain(n *node) string {
	mark := "  "
	if n.group {
		mark = "▾ "
		if m.closed[n.path] {
			mark = "▸ "
		}
	}
	off := ""
	if n.off != "" {
		off = n.off + " "
	}
	return strings.Repeat("  ", n.depth) + mark + off + n.text
}

// View renders the pane.
func (m Model) View() string {
	if m.msg == nil {
		// No rows: the one line under the title says why.
		return m.List.View(m.Styles.ListStyles, " Detail", 1, func(int) string { return "  (no message selected)" })
	}
	return m.List.View(m.Styles.ListStyles, fmt.Sprintf(" Detail: message %d", m.msg.N), len(m.lines), m.row)
}

func (m Model) row(i int) string {
	n := m.lines[i]
	s := frame.Line(m.plain(n), m.Width())
	switch {
	case i == m.Cursor():
		s = m.Styles.Selected.Render(s)
	case n.sev > 0:
		s = m.Styles.Severity[min(n.sev-1, 2)].Render(s)
	}
	return s
}

// build turns a message into the tree. Dotted field names (outputs.md:
// "marker.magic") nest under a group named by their prefix.
func build(msg *session.Message) []*node {
	if msg == nil {
		return nil
	}
	if msg.Record() != nil {
		return buildRPC(msg)
	}
	head := &node{path: "msg", field: -1, text: fmt.Sprintf("#%d frame %d %s %s %s", msg.N, msg.Frame, msg.Dir, msg.Conn, dissect.Count(len(msg.Data), "byte"))}
	enum := &node{path: "enum", field: -1, text: fmt.Sprintf("%s: enum %d (%s%s)", termsafe.Escape(msg.Name()), msg.Enum.Value, dissect.Count(msg.Enum.Bits, "bit"), widenedText(msg.Enum.Widened))}
	out := append([]*node{head}, sightNodes(msg)...)
	out = append(out, enum)

	fields := &node{path: "fields", field: -1, group: true, text: fmt.Sprintf("Fields (%d)", len(msg.Fields))}
	groups := map[string]*node{}
	for i, sp := range msg.Fields {
		name := termsafe.Escape(sp.Name)
		parent := fields
		if dot := strings.IndexByte(name, '.'); dot > 0 {
			pfx := name[:dot]
			g := groups[pfx]
			if g == nil {
				g = &node{path: "fields/" + pfx, field: i, group: true, depth: 1, text: groupText(msg, pfx)}
				groups[pfx] = g
				fields.children = append(fields.children, g)
			}
			parent, name = g, name[dot+1:]
		}
		parent.children = append(parent.children, &node{
			path: fmt.Sprintf("fields/%d", i), field: i, depth: parent.depth + 1,
			text: name + " = " + dissect.FormatValue(sp.Value, dissect.TreeValues),
			off:  fmt.Sprintf("@%d+%d", sp.Bit, sp.Bits),
		})
	}
	out = append(out, fields)
	if mode := msg.ModeName(); mode != "" {
		out = append(out, &node{path: "mode", field: -1, text: "mode: " + termsafe.Escape(mode)})
	}
	if l := msg.Listener; l != nil {
		g := &node{path: "listener", field: -1, group: true, text: "Listener " + resolved(l.Resolved)}
		add := func(k, v string) {
			g.children = append(g.children, &node{path: "listener/" + k, field: -1, depth: 1, text: k + ": " + v})
		}
		add("type", strOr(l.Type))
		add("version", u32Or(l.Version))
		add("server id", u32Or(l.ServerID))
		add("client id", u32Or(l.ClientID))
		out = append(out, g)
	}
	if msg.PayloadBits > 0 || msg.Listener != nil {
		out = append(out, &node{path: "payload", field: -1, text: fmt.Sprintf("payload: %s", dissect.Count(msg.PayloadBits, "bit")), off: fmt.Sprintf("@%d+%d", msg.PayloadBit, msg.PayloadBits)})
	}
	if len(msg.Findings) > 0 {
		g := &node{path: "findings", field: -1, group: true, text: fmt.Sprintf("Findings (%d)", len(msg.Findings))}
		for i, f := range msg.Findings {
			g.children = append(g.children, findingNode(i, f))
		}
		out = append(out, g)
	}
	return out
}

// findingNode is finding i's line, in its severity's colour.
func findingNode(i int, f dissect.Finding) *node {
	n := &node{path: fmt.Sprintf("findings/%d", i), field: -1, depth: 1, sev: int(f.Severity) + 1,
		text: fmt.Sprintf("%s/%s: %s", f.Severity, f.Group, termsafe.Escaped(f.Text))}
	if f.Bit >= 0 {
		n.off = fmt.Sprintf("@%d", f.Bit)
	}
	return n
}

// groupText is a field group's line: its prefix, and for the payload a
// schema decoded (schema.md) the payload's message or method name.
func groupText(msg *session.Message, pfx string) string {
	if pfx != "payload" {
		return pfx
	}
	name := msg.PayloadMessage
	if msg.PayloadMethod != "" {
		name = strings.TrimPrefix(name+" "+msg.PayloadMethod, " ")
	}
	if name == "" {
		return pfx
	}
	return pfx + " " + termsafe.Escape(name)
}

func widenedText(w bool) string {
	if w {
		return ", widened"
	}
	return ""
}

func resolved(r bool) string {
	if r {
		return "resolved"
	}
	return "unresolved"
}

func strOr(s *string) string {
	if s == nil {
		return "unknown"
	}
	return `"` + termsafe.Escape(*s) + `"`
}

func u32Or(v *uint32) string {
	if v == nil {
		return "unknown"
	}
	return strconv.FormatUint(uint64(*v), 10)
}
