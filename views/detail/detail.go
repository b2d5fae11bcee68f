package detail

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// KeyMap holds the pane's bindings.
type KeyMap struct {
	Up, Down, Top, Bottom, Toggle, Expand, Collapse key.Binding
}

// DefaultKeyMap returns vim-like bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		Toggle:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "expand/collapse")),
		Expand:   key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "expand")),
		Collapse: key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "collapse")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.Up, k.Toggle} }
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}, {k.Toggle, k.Expand, k.Collapse}}
}

// Styles of the pane.
type Styles struct {
	Title, TitleFocused, Selected, Offset lipgloss.Style
	Severity                              [3]lipgloss.Style
}

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	return Styles{
		Title:        lipgloss.NewStyle().Bold(true),
		TitleFocused: lipgloss.NewStyle().Bold(true).Reverse(true),
		Selected:     lipgloss.NewStyle().Reverse(true),
		Offset:       lipgloss.NewStyle().Faint(true),
		Severity:     frame.SeverityStyles(dark),
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
	sev      int // severity+1 for finding lines, 0 otherwise
	children []*node
}

// Model is the field tree.
type Model struct {
	KeyMap KeyMap
	Styles Styles

	msg    *session.Message
	root   []*node
	lines  []*node // visible nodes, flattened
	closed map[string]bool
	cursor int
	offset int
	w, h   int
	focus  bool
}

// New returns an empty pane.
func New() Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true), closed: map[string]bool{}}
}

func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.clamp() }
func (m *Model) Focus()           { m.focus = true }
func (m *Model) Blur()            { m.focus = false }
func (m Model) Focused() bool     { return m.focus }

// SetMessage shows msg (decoded with spans); nil clears the pane. The
// cursor returns to the top.
func (m *Model) SetMessage(msg *session.Message) {
	m.msg = msg
	m.root = build(msg)
	m.cursor, m.offset = 0, 0
	m.flatten()
}

// Message returns the message shown.
func (m Model) Message() *session.Message { return m.msg }

// SelectedField returns the index in Message.Fields of the field under the
// cursor, or -1.
func (m Model) SelectedField() int {
	if m.cursor < 0 || m.cursor >= len(m.lines) {
		return -1
	}
	return m.lines[m.cursor].field
}

// SelectField moves the cursor to field i, opening the groups around it.
func (m *Model) SelectField(i int) {
	var walk func(ns []*node, parents []string) bool
	walk = func(ns []*node, parents []string) bool {
		for _, n := range ns {
			if n.field == i && !n.group {
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
		return
	}
	m.flatten()
	for j, n := range m.lines {
		if n.field == i && !n.group {
			m.cursor = j
		}
	}
	m.clamp()
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

func (m *Model) clamp() {
	m.cursor = max(0, min(m.cursor, len(m.lines)-1))
	m.offset = frame.Scroll(m.offset, m.cursor, max(m.h-1, 1), len(m.lines))
}

func (m *Model) setOpen(open bool) {
	if m.cursor >= len(m.lines) || !m.lines[m.cursor].group {
		return
	}
	if open {
		delete(m.closed, m.lines[m.cursor].path)
	} else {
		m.closed[m.lines[m.cursor].path] = true
	}
	m.flatten()
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
			m.cursor = len(m.lines)
		case key.Matches(msg, m.KeyMap.Toggle):
			if m.cursor < len(m.lines) {
				m.setOpen(m.closed[m.lines[m.cursor].path])
			}
		case key.Matches(msg, m.KeyMap.Expand):
			m.setOpen(true)
		case key.Matches(msg, m.KeyMap.Collapse):
			m.setOpen(false)
		}
	case tea.MouseClickMsg, tea.MouseWheelMsg:
		m.cursor = frame.ListMouse(msg, m.cursor, m.offset)
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
	ts := m.Styles.Title
	if m.focus {
		ts = m.Styles.TitleFocused
	}
	title := " Detail"
	if m.msg != nil {
		title = fmt.Sprintf(" Detail: message %d", m.msg.N)
	}
	lines := []string{ts.Render(frame.Line(title, m.w))}
	end := min(m.offset+max(m.h-1, 1), len(m.lines))
	for i := m.offset; i < end; i++ {
		n := m.lines[i]
		s := frame.Line(m.plain(n), m.w)
		switch {
		case i == m.cursor:
			s = m.Styles.Selected.Render(s)
		case n.sev > 0:
			s = m.Styles.Severity[min(n.sev-1, 2)].Render(s)
		}
		lines = append(lines, s)
	}
	if m.msg == nil {
		lines = append(lines, "  (no message selected)")
	}
	return frame.Block(lines, m.w, m.h)
}

// build turns a message into the tree. Dotted field names (outputs.md:
// "marker.magic") nest under a group named by their prefix.
func build(msg *session.Message) []*node {
	if msg == nil {
		return nil
	}
	head := &node{path: "msg", field: -1, text: fmt.Sprintf("#%d frame %d %s %s %d bytes", msg.N, msg.Frame, msg.Dir, msg.Conn, len(msg.Data))}
	enum := &node{path: "enum", field: -1, text: fmt.Sprintf("%s: enum %d (%d bits%s)", termsafe.Escape(msg.Name), msg.Enum.Value, msg.Enum.Bits, widenedText(msg.Enum.Widened))}
	out := []*node{head, enum}

	fields := &node{path: "fields", field: -1, group: true, text: fmt.Sprintf("Fields (%d)", len(msg.Fields))}
	groups := map[string]*node{}
	for i, sp := range msg.Fields {
		name := termsafe.Escape(sp.Name)
		parent := fields
		if dot := strings.IndexByte(name, '.'); dot > 0 {
			pfx := name[:dot]
			g := groups[pfx]
			if g == nil {
				g = &node{path: "fields/" + pfx, field: i, group: true, depth: 1, text: pfx}
				groups[pfx] = g
				fields.children = append(fields.children, g)
			}
			parent, name = g, name[dot+1:]
		}
		parent.children = append(parent.children, &node{
			path: fmt.Sprintf("fields/%d", i), field: i, depth: parent.depth + 1,
			text: name + " = " + Value(sp.Value),
			off:  fmt.Sprintf("@%d+%d", sp.Bit, sp.Bits),
		})
	}
	out = append(out, fields)
	if msg.Mode != "" {
		out = append(out, &node{path: "mode", field: -1, text: "mode: " + termsafe.Escape(msg.Mode)})
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
		out = append(out, &node{path: "payload", field: -1, text: fmt.Sprintf("payload: %d bits", msg.PayloadBits), off: fmt.Sprintf("@%d+%d", msg.PayloadBit, msg.PayloadBits)})
	}
	if len(msg.Findings) > 0 {
		g := &node{path: "findings", field: -1, group: true, text: fmt.Sprintf("Findings (%d)", len(msg.Findings))}
		for i, f := range msg.Findings {
			n := &node{path: fmt.Sprintf("findings/%d", i), field: -1, depth: 1, sev: int(f.Severity) + 1,
				text: fmt.Sprintf("%s/%s: %s", f.Severity, f.Group, frame.Safe(f.Text))}
			if f.Bit >= 0 {
				n.off = fmt.Sprintf("@%d", f.Bit)
			}
			g.children = append(g.children, n)
		}
		out = append(out, g)
	}
	return out
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

// Value formats a span value for the tree; strings are escaped, so a
// hostile type name cannot reach the terminal raw.
func Value(v any) string {
	switch v := v.(type) {
	case nil:
		return "-"
	case bool:
		return strconv.FormatBool(v)
	case uint64:
		return fmt.Sprintf("%d (0x%x)", v, v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		return `"` + termsafe.Escape(v) + `"`
	case []byte:
		if len(v) > 32 {
			return hex.EncodeToString(v[:32]) + fmt.Sprintf("… (%d bytes)", len(v))
		}
		return hex.EncodeToString(v)
	default:
		return termsafe.Escape(fmt.Sprint(v))
	}
}
