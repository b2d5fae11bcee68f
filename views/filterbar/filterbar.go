package filterbar

import (
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

// ParseFunc compiles a filter expression; errPos is the byte offset of the
// error in expr.
type ParseFunc func(expr string) (match func(*session.Message) bool, errPos int, err error)

// Mode says what the bar is reading.
type Mode uint8

const (
	Off Mode = iota
	Filter
	Goto
)

// FilterMsg reports an accepted filter; Match is nil for an empty one.
type FilterMsg struct {
	Expr  string
	Match func(*session.Message) bool
}

// GotoMsg asks to select message N.
type GotoMsg struct{ N int }

// KeyMap holds the bar's editing bindings.
type KeyMap struct {
	Accept, Cancel, Delete key.Binding
}

// DefaultKeyMap returns readline-like bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Accept: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Cancel: key.NewBinding(key.WithKeys("esc", "ctrl+c"), key.WithHelp("esc", "cancel")),
		Delete: key.NewBinding(key.WithKeys("backspace", "ctrl+h"), key.WithHelp("⌫", "delete")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding  { return []key.Binding{k.Accept, k.Cancel} }
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Accept, k.Cancel, k.Delete}} }

// Styles of the bar.
type Styles struct{ Normal, Error, Applied lipgloss.Style }

// DefaultStyles returns styles for a dark or light background.
func DefaultStyles(dark bool) Styles {
	ld := lipgloss.LightDark(dark)
	return Styles{
		Normal:  lipgloss.NewStyle(),
		Error:   lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#d70000"), lipgloss.Color("#ff5f5f"))),
		Applied: lipgloss.NewStyle().Bold(true),
	}
}

// Model is the prompt.
type Model struct {
	KeyMap KeyMap
	Styles Styles

	parse   ParseFunc
	mode    Mode
	value   string
	applied string
	err     error
	errPos  int
	w       int
}

// New returns a bar that validates with parse.
func New(parse ParseFunc) Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true), parse: parse}
}

func (m *Model) SetWidth(w int) { m.w = w }

// Mode returns what the bar is reading.
func (m Model) Mode() Mode { return m.mode }

// Err returns the current validation error and its position.
func (m Model) Err() (error, int) { return m.err, m.errPos }

// Applied returns the filter expression in force.
func (m Model) Applied() string { return m.applied }

// Clear forgets the filter in force.
func (m *Model) Clear() { m.applied, m.mode, m.err = "", Off, nil }

// Open starts reading in mode md; a filter starts from the one in force.
func (m *Model) Open(md Mode) {
	m.mode, m.err = md, nil
	m.value = ""
	if md == Filter {
		m.value = m.applied
	}
	m.validate()
}

func (m *Model) validate() {
	m.err, m.errPos = nil, 0
	switch {
	case m.mode == Filter && strings.TrimSpace(m.value) != "" && m.parse != nil:
		_, m.errPos, m.err = m.parse(m.value)
	case m.mode == Goto && m.value != "":
		if n, err := strconv.Atoi(m.value); err != nil || n < 1 {
			m.err = fmt.Errorf("not a message number")
		}
	}
}

// Update edits the line while the bar is open.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || m.mode == Off {
		return m, nil
	}
	switch {
	case key.Matches(k, m.KeyMap.Cancel):
		m.mode, m.err = Off, nil
		return m, nil
	case key.Matches(k, m.KeyMap.Delete):
		if r := []rune(m.value); len(r) > 0 {
			m.value = string(r[:len(r)-1])
		}
	case key.Matches(k, m.KeyMap.Accept):
		return m.accept()
	default:
		if k.Text != "" {
			m.value += k.Text
		}
	}
	m.validate()
	return m, nil
}

func (m Model) accept() (Model, tea.Cmd) {
	if m.err != nil {
		return m, nil // stay open on the error so it can be fixed
	}
	mode := m.mode
	m.mode = Off
	if mode == Goto {
		n, err := strconv.Atoi(m.value)
		if err != nil {
			return m, nil
		}
		return m, func() tea.Msg { return GotoMsg{N: n} }
	}
	m.applied = strings.TrimSpace(m.value)
	if m.applied == "" || m.parse == nil {
		return m, func() tea.Msg { return FilterMsg{} }
	}
	match, _, _ := m.parse(m.applied)
	expr := m.applied
	return m, func() tea.Msg { return FilterMsg{Expr: expr, Match: match} }
}

// View renders the bar's one line; extra describes other filters in force
// (a listener chosen in the tables pane).
func (m Model) View(extra string) string {
	v := termsafe.Escape(m.value)
	switch m.mode {
	case Filter, Goto:
		p := "/"
		if m.mode == Goto {
			p = ":"
		}
		s := p + v + "█"
		if m.err != nil {
			// 1-based, as the CLI's filter errors count (filter.Error).
			col := min(m.errPos, len(m.value)) + 1
			s = fmt.Sprintf("%s%s  ← %s at %d", p, v, termsafe.Escape(m.err.Error()), col)
			return m.Styles.Error.Render(frame.Line(s, m.w))
		}
		return m.Styles.Normal.Render(frame.Line(s, m.w))
	}
	var parts []string
	if m.applied != "" {
		parts = append(parts, "filter: "+termsafe.Escape(m.applied))
	}
	if extra != "" {
		parts = append(parts, extra)
	}
	if len(parts) == 0 {
		return frame.Line("", m.w)
	}
	return m.Styles.Applied.Render(frame.Line(strings.Join(parts, "  "), m.w))
}
