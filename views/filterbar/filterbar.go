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
	Write   // a file name to write to (w)
	Confirm // a yes or no: y accepts, anything else declines
	Find    // text or hex bytes to find (ctrl+f)
	Series  // an I/O graph series: a Y value, then a filter (issue 26)
)

// FindMsg reports the text accepted in Find mode.
type FindMsg struct{ Text string }

// WriteMsg reports the file name accepted in Write mode.
type WriteMsg struct{ Path string }

// SeriesMsg reports the series accepted in Series mode, as written.
type SeriesMsg struct{ Spec string }

// ConfirmMsg reports the answer in Confirm mode.
type ConfirmMsg struct{ Yes bool }

// FilterMsg reports an accepted filter; Match is nil for an empty one.
type FilterMsg struct {
	Expr  string
	Match func(*session.Message) bool
}

// GotoMsg asks to select message N.
type GotoMsg struct{ N int }

// KeyMap holds the bar's editing bindings.
type KeyMap struct {
	Accept, Cancel, Delete, Complete, Prev, Next, ClearLine key.Binding
}

// DefaultKeyMap returns readline-like bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Accept:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		Cancel:    key.NewBinding(key.WithKeys("esc", "ctrl+c"), key.WithHelp("esc", "cancel")),
		Delete:    key.NewBinding(key.WithKeys("backspace", "ctrl+h"), key.WithHelp("⌫", "delete")),
		Complete:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		Prev:      key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "older filter")),
		Next:      key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "newer filter")),
		ClearLine: key.NewBinding(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "clear line")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Accept, k.Cancel, k.Complete, k.Prev, k.ClearLine}
}
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Accept, k.Cancel, k.Delete}, {k.Complete, k.Prev, k.Next, k.ClearLine}}
}

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

	question string   // Confirm's question
	words    []string // completions: field names, message names, listener types
	cands    []string // the completions of the last Tab, when several
	history  []string // accepted filters, oldest first
	hist     int      // position in history while browsing, len(history) when not
}

// SetWords sets what Tab completes.
func (m *Model) SetWords(w []string) { m.words = w }

// History returns the accepted filters, oldest first.
func (m Model) History() []string { return m.history }

// Value returns the text being edited.
func (m Model) Value() string { return m.value }

// New returns a bar that validates with parse.
func New(parse ParseFunc) Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true), parse: parse}
}

func (m *Model) SetWidth(w int) { m.w = w }

// OpenWrite asks for a file name, starting from path.
func (m *Model) OpenWrite(path string) {
	m.mode, m.err, m.cands = Write, nil, nil
	m.value = path
}

// OpenConfirm asks question, answered with y (yes) or any other key (no).
func (m *Model) OpenConfirm(question string) {
	m.mode, m.err, m.cands = Confirm, nil, nil
	m.value, m.question = "", question
}

// Mode returns what the bar is reading.
func (m Model) Mode() Mode { return m.mode }

// Err returns the current validation error and its position.
func (m Model) Err() (error, int) { return m.err, m.errPos }

// Applied returns the filter expression in force.
func (m Model) Applied() string { return m.applied }

// SetApplied shows expr as the filter in force, applied from elsewhere
// (the statistics pane's Enter), as if accepted here.
func (m *Model) SetApplied(expr string) { m.applied, m.mode, m.err = expr, Off, nil }

// Clear forgets the filter in force.
func (m *Model) Clear() { m.applied, m.mode, m.err = "", Off, nil }

// Open starts reading in mode md; a filter starts from the one in force.
func (m *Model) Open(md Mode) {
	m.mode, m.err = md, nil
	m.value, m.cands, m.hist = "", nil, len(m.history)
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
	case m.mode == Series && m.parse != nil:
		// The filter after the Y value is checked as it is typed.
		y, f, _ := strings.Cut(strings.TrimSpace(m.value), " ")
		if strings.TrimSpace(f) != "" {
			_, m.errPos, m.err = m.parse(strings.TrimSpace(f))
			m.errPos += len(y) + 1
		}
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
	m.cands = nil
	if m.mode == Confirm {
		m.mode = Off
		yes := k.Text == "y" || k.Text == "Y"
		return m, func() tea.Msg { return ConfirmMsg{Yes: yes} }
	}
	switch {
	case key.Matches(k, m.KeyMap.Cancel):
		m.mode, m.err = Off, nil
		return m, nil
	case key.Matches(k, m.KeyMap.ClearLine):
		m.value = ""
	case (m.mode == Filter || m.mode == Series) && key.Matches(k, m.KeyMap.Complete):
		m.complete()
	case m.mode == Filter && key.Matches(k, m.KeyMap.Prev):
		if m.hist > 0 {
			m.hist--
			m.value = m.history[m.hist]
		}
	case m.mode == Filter && key.Matches(k, m.KeyMap.Next):
		if m.hist < len(m.history) {
			m.hist++
			m.value = ""
			if m.hist < len(m.history) {
				m.value = m.history[m.hist]
			}
		}
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
	if mode == Find {
		text := m.value
		if text == "" {
			return m, nil
		}
		return m, func() tea.Msg { return FindMsg{Text: text} }
	}
	if mode == Write {
		path := strings.TrimSpace(m.value)
		if path == "" {
			return m, nil
		}
		return m, func() tea.Msg { return WriteMsg{Path: path} }
	}
	if mode == Series {
		spec := strings.TrimSpace(m.value)
		if spec == "" {
			return m, nil
		}
		return m, func() tea.Msg { return SeriesMsg{Spec: spec} }
	}
	if mode == Goto {
		n, err := strconv.Atoi(m.value)
		if err != nil {
			return m, nil
		}
		return m, func() tea.Msg { return GotoMsg{N: n} }
	}
	m.applied = strings.TrimSpace(m.value)
	if m.applied != "" && (len(m.history) == 0 || m.history[len(m.history)-1] != m.applied) {
		m.history = append(m.history, m.applied)
	}
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
	case Confirm:
		return m.Styles.Error.Render(frame.Line(termsafe.Escape(m.question), m.w))
	case Filter, Goto, Write, Find, Series:
		p := "/"
		switch m.mode {
		case Find:
			p = "find (text or hex bytes): "
		case Goto:
			p = ":"
		case Write:
			p = "write to: "
		case Series:
			p = "series (Y [filter]): "
		}
		s := p + v + "█"
		if len(m.cands) > 0 {
			s += "  " + termsafe.Escape(strings.Join(m.cands, " | "))
		}
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

// complete extends the word before the cursor (after the last space or
// operator) to the words that start with it, case folded: the whole word
// when one fits, else their common prefix, listing them in the bar.
func (m *Model) complete() {
	start := strings.LastIndexAny(m.value, " =~!<>()&|\"'") + 1
	pfx := m.value[start:]
	var fit []string
	for _, w := range m.words {
		if len(w) >= len(pfx) && strings.EqualFold(w[:len(pfx)], pfx) {
			fit = append(fit, w)
		}
	}
	switch len(fit) {
	case 0:
		return
	case 1:
		m.value = m.value[:start] + quote(fit[0])
		return
	}
	common := fit[0]
	for _, w := range fit[1:] {
		i := 0
		for i < len(common) && i < len(w) && strings.EqualFold(common[i:i+1], w[i:i+1]) {
			i++
		}
		common = common[:i]
	}
	if len(common) > len(pfx) {
		m.value = m.value[:start] + common
	}
	m.cands = fit[:min(len(fit), 20)]
}

// quote writes a completed word as a filter value: bare when it can be.
func quote(w string) string {
	if strings.ContainsAny(w, " ,()&|=~!<>\"'") {
		return strconv.Quote(w)
	}
	return w
}
