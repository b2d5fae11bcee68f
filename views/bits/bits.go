package bits

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// KeyMap holds the pane's bindings.
type KeyMap struct {
	Left, Right, Up, Down, NextField, PrevField, First, Last, Order key.Binding
}

// DefaultKeyMap returns vim-like bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Left:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "bit left")),
		Right:     key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "bit right")),
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "row up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "row down")),
		NextField: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "next field")),
		PrevField: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "previous field")),
		First:     key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "first bit")),
		Last:      key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "last bit")),
		Order:     key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "LSB/MSB first")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Right, k.NextField, k.Order} }
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Left, k.Right, k.Up, k.Down}, {k.NextField, k.PrevField, k.First, k.Last, k.Order}}
}

// Styles of the pane. Shade alternates between neighbouring fields.
type Styles struct {
	Title, TitleFocused, Field, Cursor lipgloss.Style
	Shade                              [2]lipgloss.Style
}

// DefaultStyles returns styles for a dark or light background. The
// selected field is reversed and the cursor underlined, which survive
// NO_COLOR; the shades are colour only.
func DefaultStyles(dark bool) Styles {
	ld := lipgloss.LightDark(dark)
	return Styles{
		Title:        lipgloss.NewStyle().Bold(true),
		TitleFocused: lipgloss.NewStyle().Bold(true).Reverse(true),
		Field:        lipgloss.NewStyle().Reverse(true),
		Cursor:       lipgloss.NewStyle().Bold(true).Underline(true).Reverse(true),
		Shade: [2]lipgloss.Style{
			lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#005f87"), lipgloss.Color("#87d7ff"))),
			lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#870087"), lipgloss.Color("#ffafff"))),
		},
	}
}

// Model is the hexdump.
type Model struct {
	KeyMap KeyMap
	Styles Styles

	data   []byte
	fields []netpak.Span
	owner  []int32 // field index owning each stream bit, -1 for none
	sel    int     // selected field, -1 for none
	cursor int     // stream bit under the cursor
	msb    bool
	offset int // first visible row
	w, h   int
	focus  bool
}

// New returns an empty pane.
func New() Model { return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true), sel: -1} }

func (m *Model) SetSize(w, h int) { m.w, m.h = w, h; m.clamp() }
func (m *Model) Focus()           { m.focus = true }
func (m *Model) Blur()            { m.focus = false }
func (m Model) Focused() bool     { return m.focus }

// SetMessage shows msg's bytes and fields; nil clears the pane.
func (m *Model) SetMessage(msg *session.Message) {
	m.data, m.fields, m.sel, m.cursor, m.offset = nil, nil, -1, 0, 0
	if msg != nil {
		m.data, m.fields = msg.Data, msg.Fields
	}
	m.owner = Owners(m.fields, len(m.data)*8)
	m.clamp()
}

// Owners maps each of n stream bits to the index of the field that covers
// it, -1 where none does. When fields nest, the later (inner) one wins.
func Owners(fields []netpak.Span, n int) []int32 {
	o := make([]int32, n)
	for i := range o {
		o[i] = -1
	}
	for i, f := range fields {
		for b := max(f.Bit, 0); b < f.End() && b < n; b++ {
			o[b] = int32(i)
		}
	}
	return o
}

// Cursor returns the stream bit under the cursor.
func (m Model) Cursor() int { return m.cursor }

// SelectedField returns the selected field index, or -1.
func (m Model) SelectedField() int { return m.sel }

// MSBFirst reports whether bytes are shown MSB first.
func (m Model) MSBFirst() bool { return m.msb }

// SelectField highlights field i and moves the cursor to its first bit.
func (m *Model) SelectField(i int) {
	if i < 0 || i >= len(m.fields) {
		m.sel = -1
		return
	}
	m.sel = i
	if f := m.fields[i]; f.Bits > 0 && f.Bit >= 0 && f.Bit < len(m.owner) {
		m.cursor = f.Bit
	}
	m.clamp()
}

// SetCursor moves the cursor to stream bit b and selects its owner.
func (m *Model) SetCursor(b int) {
	m.cursor = b
	m.clamp()
	if m.cursor < len(m.owner) {
		m.sel = int(m.owner[m.cursor])
	}
}

func (m Model) perRow() int { return max(1, (m.w-7)/13) }

func (m *Model) clamp() {
	m.cursor = max(0, min(m.cursor, len(m.owner)-1))
	row := m.cursor / 8 / m.perRow()
	rows := (len(m.data) + m.perRow() - 1) / m.perRow()
	m.offset = frame.Scroll(m.offset, row, max(m.h-1, 1), rows)
}

// nextField returns the first bit of the next (d > 0) or previous field
// boundary from the cursor.
func (m Model) nextField(d int) int {
	cur := int32(-2)
	if m.cursor < len(m.owner) {
		cur = m.owner[m.cursor]
	}
	b := m.cursor
	for b+d >= 0 && b+d < len(m.owner) {
		b += d
		if m.owner[b] != cur && m.owner[b] >= 0 {
			if d < 0 { // go to the start of that field
				o := m.owner[b]
				for b > 0 && m.owner[b-1] == o {
					b--
				}
			}
			return b
		}
	}
	return m.cursor
}

// Update handles keys and mouse events given to the pane.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.KeyMap.Left):
			m.SetCursor(m.cursor - 1)
		case key.Matches(msg, m.KeyMap.Right):
			m.SetCursor(m.cursor + 1)
		case key.Matches(msg, m.KeyMap.Up):
			m.SetCursor(m.cursor - 8*m.perRow())
		case key.Matches(msg, m.KeyMap.Down):
			m.SetCursor(m.cursor + 8*m.perRow())
		case key.Matches(msg, m.KeyMap.NextField):
			m.SetCursor(m.nextField(1))
		case key.Matches(msg, m.KeyMap.PrevField):
			m.SetCursor(m.nextField(-1))
		case key.Matches(msg, m.KeyMap.First):
			m.SetCursor(0)
		case key.Matches(msg, m.KeyMap.Last):
			m.SetCursor(len(m.owner) - 1)
		case key.Matches(msg, m.KeyMap.Order):
			m.msb = !m.msb
		}
	case tea.MouseClickMsg:
		if b, ok := m.bitAt(msg.X, msg.Y); ok {
			m.SetCursor(b)
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.SetCursor(m.cursor - 8*m.perRow())
		case tea.MouseWheelDown:
			m.SetCursor(m.cursor + 8*m.perRow())
		}
	}
	return m, nil
}

// Row layout: "oooo " + k×"xx " + "│" + k×"bbbbbbbb " + "│" + k ASCII.
func (m Model) bitAt(x, y int) (int, bool) {
	k := m.perRow()
	row := m.offset + y - 1
	x -= 5 + 3*k + 1
	if y < 1 || x < 0 || x >= 9*k || x%9 == 8 {
		return 0, false
	}
	byt, col := row*k+x/9, x%9
	if m.msb {
		col = 7 - col
	}
	b := byt*8 + col
	return b, b < len(m.owner)
}

// View renders the pane.
func (m Model) View() string {
	ts := m.Styles.Title
	if m.focus {
		ts = m.Styles.TitleFocused
	}
	order := "LSB first"
	if m.msb {
		order = "MSB first"
	}
	title := fmt.Sprintf(" Bits (%s)", order)
	if len(m.owner) > 0 {
		title += fmt.Sprintf("  bit %d", m.cursor)
		if m.sel >= 0 {
			f := m.fields[m.sel]
			title += fmt.Sprintf("  %s @%d+%d", termsafe.Escape(f.Name), f.Bit, f.Bits)
		}
	}
	lines := []string{ts.Render(frame.Line(title, m.w))}
	k := m.perRow()
	for r := m.offset; r*k < len(m.data) && len(lines) < m.h; r++ {
		lines = append(lines, m.row(r, k))
	}
	return frame.Block(lines, m.w, m.h)
}

func (m Model) row(r, k int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%04x ", r*k)
	lo, hi := r*k, min(r*k+k, len(m.data))
	for i := lo; i < lo+k; i++ {
		if i >= hi {
			b.WriteString("   ")
			continue
		}
		s := fmt.Sprintf("%02x", m.data[i])
		if m.sel >= 0 && m.byteInField(i) {
			s = m.Styles.Field.Render(s)
		}
		b.WriteString(s + " ")
	}
	b.WriteString("│")
	for i := lo; i < lo+k; i++ {
		if i >= hi {
			b.WriteString("         ")
			continue
		}
		for j := 0; j < 8; j++ {
			bit := j
			if m.msb {
				bit = 7 - j
			}
			sb := i*8 + bit
			c := string('0' + rune(m.data[i]>>bit&1))
			b.WriteString(m.bitStyle(sb).Render(c))
		}
		b.WriteByte(' ')
	}
	b.WriteString("│")
	for i := lo; i < hi; i++ {
		c := m.data[i]
		if c < 0x20 || c >= 0x7f {
			c = '.'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func (m Model) bitStyle(sb int) lipgloss.Style {
	o := m.owner[sb]
	switch {
	case sb == m.cursor:
		return m.Styles.Cursor
	case o >= 0 && int(o) == m.sel:
		return m.Styles.Field
	case o >= 0:
		return m.Styles.Shade[o%2]
	}
	return lipgloss.NewStyle()
}

func (m Model) byteInField(i int) bool {
	for b := i * 8; b < i*8+8 && b < len(m.owner); b++ {
		if int(m.owner[b]) == m.sel {
			return true
		}
	}
	return false
}
