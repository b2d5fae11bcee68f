package bits

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// KeyMap holds the pane's bindings.
// The list keys move by rows of the hexdump (Up, Down) and to the first
// and last bit (Top, Bottom).
type KeyMap struct {
	frame.ListKeyMap
	Left, Right, NextField, PrevField, Order, Bytes key.Binding
}

// DefaultKeyMap returns vim-like bindings.
func DefaultKeyMap() KeyMap {
	k := KeyMap{
		ListKeyMap: frame.DefaultListKeyMap(),
		Left:       key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "bit left")),
		Right:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "bit right")),
		NextField:  key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "next field")),
		PrevField:  key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "previous field")),
		Order:      key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "LSB/MSB first")),
		Bytes:      key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "bits/bytes view")),
	}
	k.Up.SetHelp("↑/k", "row up")
	k.Down.SetHelp("↓/j", "row down")
	k.Top.SetHelp("g", "first bit")
	k.Bottom.SetHelp("G", "last bit")
	return k
}

func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Right, k.NextField, k.Order} }
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Left, k.Right, k.Up, k.Down}, {k.NextField, k.PrevField, k.Top, k.Bottom, k.Order, k.Bytes}}
}

// Styles of the pane: Selected marks the selected field's bytes and bits.
// Shade alternates between neighbouring fields.
type Styles struct {
	frame.ListStyles
	Cursor lipgloss.Style
	Shade  [2]lipgloss.Style
}

// DefaultStyles returns styles for a dark or light background. The
// selected field is reversed and the cursor underlined, which survive
// NO_COLOR; the shades are colour only.
func DefaultStyles(dark bool) Styles {
	ld := lipgloss.LightDark(dark)
	return Styles{
		ListStyles: frame.DefaultListStyles(),
		Cursor:     lipgloss.NewStyle().Bold(true).Underline(true).Reverse(true),
		Shade: [2]lipgloss.Style{
			lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#005f87"), lipgloss.Color("#87d7ff"))),
			lipgloss.NewStyle().Foreground(ld(lipgloss.Color("#870087"), lipgloss.Color("#ffafff"))),
		},
	}
}

// MaxBytes bounds the bytes the pane shows of one message.
const MaxBytes = 1 << 16

// Model is the hexdump.
type Model struct {
	KeyMap     KeyMap
	Styles     Styles
	frame.List // a row per perRow bytes; the cursor below is a bit

	data    []byte
	fields  []netpak.Span
	owner   []int32 // field index owning each stream bit, -1 for none
	sel     int     // selected field, -1 for none
	cursor  int     // stream bit under the cursor
	total   int     // the message's bytes, of which data holds at most MaxBytes
	msb     bool    // the order toggle (m): flips the message's own order
	byteMSB bool    // the message is byte-oriented, big-endian (ULinkRPC, ulinkrpc.md 4): MSB first unless toggled
	bytes   bool    // the byte view: hex and ASCII only, many bytes a row
}

// New returns an empty pane.
func New() Model { return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(true), sel: -1} }

// SetSize sets the pane size, title line included.
func (m *Model) SetSize(w, h int) { m.List.SetSize(w, h); m.clamp() }

// SetMessage shows msg's bytes and fields (frame.Bytes); nil clears the pane.
func (m *Model) SetMessage(msg *session.Message) {
	m.data, m.fields, m.sel, m.cursor = nil, nil, -1, 0
	m.Home()
	// A ULinkRPC message shows its envelope, whose fields' spans it indexes.
	m.data, m.fields = frame.Bytes(msg)
	// A ULinkRPC envelope may hold up to 64 MiB (ulinkrpc.md 2) and the
	// owner map takes 32 bytes a byte: the pane shows the first MaxBytes
	// (an Unturned message, under a 16-bit length, always fits).
	m.total = len(m.data)
	m.data = m.data[:min(len(m.data), MaxBytes)]
	m.byteMSB = msg != nil && msg.Record() != nil
	m.owner = dissect.Owners(m.fields, len(m.data)*8)
	m.clamp()
}

// Cursor returns the stream bit under the cursor.
func (m Model) Cursor() int { return m.cursor }

// SelectedField returns the selected field index, or -1.
func (m Model) SelectedField() int { return m.sel }

// MSBFirst reports whether bytes are shown MSB first.
func (m Model) MSBFirst() bool { return m.msb != m.byteMSB }

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

func (m Model) perRow() int {
	if m.bytes {
		return bytesPerRow(m.Width())
	}
	return max(1, (m.Width()-7)/13)
}

// bytesPerRow is how many bytes a row of the byte view holds at width w:
// "oooo " + k×"xx " + "│" + k ASCII + "│" takes 4k+7 cells; past 8 bytes
// the count is a multiple of 8, as Wireshark's hex pane keeps it.
func bytesPerRow(w int) int {
	k := max(1, (w-7)/4)
	if k > 8 {
		k -= k % 8
	}
	return k
}

// rows counts the hexdump's rows.
func (m Model) rows() int { return (len(m.data) + m.perRow() - 1) / m.perRow() }

func (m *Model) clamp() {
	m.cursor = max(0, min(m.cursor, len(m.owner)-1))
	m.ScrollTo(m.cursor/8/m.perRow(), m.rows())
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
			m.SetCursor(m.cursor - m.step())
		case key.Matches(msg, m.KeyMap.Right):
			m.SetCursor(m.cursor + m.step())
		case key.Matches(msg, m.KeyMap.Up):
			m.SetCursor(m.cursor - 8*m.perRow())
		case key.Matches(msg, m.KeyMap.Down):
			m.SetCursor(m.cursor + 8*m.perRow())
		case key.Matches(msg, m.KeyMap.NextField):
			m.SetCursor(m.nextField(1))
		case key.Matches(msg, m.KeyMap.PrevField):
			m.SetCursor(m.nextField(-1))
		case key.Matches(msg, m.KeyMap.Top):
			m.SetCursor(0)
		case key.Matches(msg, m.KeyMap.Bottom):
			m.SetCursor(len(m.owner) - 1)
		case key.Matches(msg, m.KeyMap.Order):
			m.msb = !m.msb
		case key.Matches(msg, m.KeyMap.Bytes):
			m.bytes = !m.bytes
			m.clamp()
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

// step is how far left and right move the cursor: a bit, or a byte in the
// byte view.
func (m Model) step() int {
	if m.bytes {
		return 8
	}
	return 1
}

// Row layout: "oooo " + k×"xx " + "│" + k×"bbbbbbbb " + "│" + k ASCII;
// in the byte view "oooo " + k×"xx " + "│" + k ASCII + "│".
func (m Model) bitAt(x, y int) (int, bool) {
	k := m.perRow()
	row := m.Offset() + y - 1
	if m.bytes {
		x -= 5
		if y < 1 || x < 0 || x >= 3*k || x%3 == 2 {
			return 0, false
		}
		b := (row*k + x/3) * 8
		return b, b < len(m.owner)
	}
	x -= 5 + 3*k + 1
	if y < 1 || x < 0 || x >= 9*k || x%9 == 8 {
		return 0, false
	}
	byt, col := row*k+x/9, x%9
	if m.MSBFirst() {
		col = 7 - col
	}
	b := byt*8 + col
	return b, b < len(m.owner)
}

// View renders the pane.
func (m Model) View() string {
	order := "LSB first"
	if m.MSBFirst() {
		order = "MSB first"
	}
	title := fmt.Sprintf(" Bits (%s)", order)
	if m.bytes {
		title = fmt.Sprintf(" Bytes (%d a row)", m.perRow())
	}
	if m.total > len(m.data) {
		title += fmt.Sprintf("  first %d of %d bytes", len(m.data), m.total)
	}
	if len(m.owner) > 0 {
		title += fmt.Sprintf("  bit %d", m.cursor)
		if m.sel >= 0 {
			f := m.fields[m.sel]
			title += fmt.Sprintf("  %s @%d+%d", termsafe.Escape(f.Name), f.Bit, f.Bits)
		}
	}
	k := m.perRow()
	if m.bytes {
		return m.List.View(m.Styles.ListStyles, title, m.rows(), func(r int) string { return m.byteRow(r, k) })
	}
	return m.List.View(m.Styles.ListStyles, title, m.rows(), func(r int) string { return m.row(r, k) })
}

// byteRow draws row r of the byte view: the bytes of the selected field
// and the byte under the cursor are highlighted, as in the bit view.
func (m Model) byteRow(r, k int) string {
	var b strings.Builder
	lo, hi := m.hexCells(&b, r, k, true)
	b.WriteString("│")
	m.asciiCells(&b, lo, hi)
	return b.String()
}

// hexCells writes a row's offset and its k hex cells (blank past the data),
// the selected field's bytes highlighted and, with cursor, the byte under
// the cursor; it returns the row's byte range.
func (m Model) hexCells(b *strings.Builder, r, k int, cursor bool) (lo, hi int) {
	fmt.Fprintf(b, "%04x ", r*k)
	lo, hi = r*k, min(r*k+k, len(m.data))
	for i := lo; i < lo+k; i++ {
		if i >= hi {
			b.WriteString("   ")
			continue
		}
		s := fmt.Sprintf("%02x", m.data[i])
		switch {
		case cursor && i == m.cursor/8:
			s = m.Styles.Cursor.Render(s)
		case m.sel >= 0 && m.byteInField(i):
			s = m.Styles.Selected.Render(s)
		}
		b.WriteString(s + " ")
	}
	return lo, hi
}

// asciiCells writes bytes lo..hi as ASCII, a dot for anything unprintable.
func (m Model) asciiCells(b *strings.Builder, lo, hi int) {
	for i := lo; i < hi; i++ {
		c := m.data[i]
		if c < 0x20 || c >= 0x7f {
			c = '.'
		}
		b.WriteByte(c)
	}
}

func (m Model) row(r, k int) string {
	var b strings.Builder
	msb := m.MSBFirst()
	lo, hi := m.hexCells(&b, r, k, false)
	b.WriteString("│")
	for i := lo; i < lo+k; i++ {
		if i >= hi {
			b.WriteString("         ")
			continue
		}
		// Runs of bits drawn alike are rendered together: a style per bit
		// cost most of the frame (lipgloss renders each call anew).
		var run [8]byte
		n, class := 0, bitPlain
		for j := 0; j < 8; j++ {
			bit := j
			if msb {
				bit = 7 - j
			}
			sb := i*8 + bit
			if c := m.bitClass(sb); c != class && n > 0 {
				b.WriteString(m.render(class, run[:n]))
				n = 0
				class = c
			} else {
				class = c
			}
			run[n] = '0' + m.data[i]>>bit&1
			n++
		}
		b.WriteString(m.render(class, run[:n]))
		b.WriteByte(' ')
	}
	b.WriteString("│")
	m.asciiCells(&b, lo, hi)
	return b.String()
}

// bitClass says how stream bit sb is drawn.
type bitClass uint8

const (
	bitPlain    bitClass = iota // in no field
	bitCursor                   // under the cursor
	bitSelected                 // in the selected field
	bitShade0                   // in an even field
	bitShade1                   // in an odd field
)

func (m Model) bitClass(sb int) bitClass {
	o := m.owner[sb]
	switch {
	case sb == m.cursor:
		return bitCursor
	case o >= 0 && int(o) == m.sel:
		return bitSelected
	case o >= 0:
		return bitShade0 + bitClass(o%2)
	}
	return bitPlain
}

// render draws bits of one class.
func (m Model) render(c bitClass, bits []byte) string {
	switch c {
	case bitCursor:
		return m.Styles.Cursor.Render(string(bits))
	case bitSelected:
		return m.Styles.Selected.Render(string(bits))
	case bitShade0, bitShade1:
		return m.Styles.Shade[c-bitShade0].Render(string(bits))
	}
	return string(bits)
}

func (m Model) byteInField(i int) bool {
	for b := i * 8; b < i*8+8 && b < len(m.owner); b++ {
		if int(m.owner[b]) == m.sel {
			return true
		}
	}
	return false
}
