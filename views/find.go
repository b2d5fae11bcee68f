package views

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/views/filterbar"
	"github.com/usmnscope/usmnscope/views/frame"
)

// Find (issue 30; Wireshark's ctrl+f, ctrl+n, ctrl+b): ctrl+f asks for a
// text or hex bytes ("de ad be ef", "deadbeef"), then finds it, and ctrl+n
// and ctrl+b find the next and previous again, from the selection and
// wrapping around, in the pane that has the focus:
//   - the message list: the next listed message whose name, summary or
//     bytes hold it (hex bytes in its bytes, text in its line or, as
//     ASCII, in its bytes);
//   - the field tree: the next field or line whose text holds it, closed
//     groups included;
//   - the bits pane: the next place in the message's bytes that holds it,
//     selecting the field there.

// pattern is what find looks for: bytes when the text reads as hex.
type pattern struct {
	text string // case folded
	raw  []byte // the text as typed, as bytes (ASCII find in bytes)
	hex  []byte // non-nil when the text is hex bytes
}

func newPattern(s string) pattern {
	p := pattern{text: strings.ToLower(s), raw: []byte(s)}
	h := strings.Join(strings.Fields(s), "")
	if len(h) >= 2 && len(h)%2 == 0 {
		if b, err := hex.DecodeString(h); err == nil {
			p.hex = b
		}
	}
	return p
}

// inBytes finds the pattern in data from from on: its index, or -1.
func (p pattern) inBytes(data []byte, from int) int {
	from = min(max(from, 0), len(data))
	if p.hex != nil {
		if i := bytes.Index(data[from:], p.hex); i >= 0 {
			return from + i
		}
	}
	if i := bytes.Index(data[from:], p.raw); i >= 0 && len(p.raw) > 0 {
		return from + i
	}
	return -1
}

// findKey handles ctrl+f, ctrl+n and ctrl+b.
func (m *Model) findKey(k tea.KeyPressMsg) bool {
	switch {
	case key.Matches(k, m.KeyMap.Find):
		m.bar.Open(filterbar.Find)
	case key.Matches(k, m.KeyMap.FindNext):
		m.cols.cmd = m.find(1)
	case key.Matches(k, m.KeyMap.FindPrev):
		m.cols.cmd = m.find(-1)
	default:
		return false
	}
	return true
}

// find looks for the find text from the selection in direction d.
func (m *Model) find(d int) tea.Cmd {
	if m.cols.find == "" {
		m.note = "nothing to find: ctrl+f asks what"
		return nil
	}
	p := newPattern(m.cols.find)
	what := termsafe.Escape(m.cols.find)
	switch m.focus {
	case FocusDetail:
		if !m.detail.Find(m.cols.find, d) {
			m.note = "not found in the field tree: " + what
		}
		if f := m.detail.SelectedField(); f >= 0 {
			m.bits.SelectField(f)
		}
		return nil
	case FocusBits:
		msg := m.detail.Message()
		data, fields := frame.Bytes(msg)
		from := 0
		if f := m.bits.SelectedField(); f >= 0 && f < len(fields) {
			from = fields[f].Bit/8 + 1
		}
		i := p.inBytes(data, from)
		if i < 0 {
			i = p.inBytes(data, 0) // wrap around
		}
		if i < 0 {
			m.note = "not found in the message's bytes: " + what
			return nil
		}
		for j, f := range fields {
			if f.Bit <= i*8 && i*8 < f.Bit+max(f.Bits, 1) {
				m.bits.SelectField(j)
				m.detail.SelectField(j)
				break
			}
		}
		m.note = fmt.Sprintf("found at byte %d", i)
		return nil
	}
	// The message list: the listed messages from the selection on, read
	// in a command.
	l := m.msgs.Len()
	if l == 0 {
		return nil
	}
	order := make([]int, 0, l)
	c := max(m.msgs.Cursor(), 0)
	for k := 1; k <= l; k++ {
		order = append(order, m.msgs.Number(((c+d*k)%l+l)%l))
	}
	src := m.src
	return m.read(func() tea.Msg {
		for _, n := range order {
			msg := src.Message(n)
			if msg == nil {
				continue
			}
			data, _ := frame.Bytes(msg)
			line := strings.ToLower(frame.Name(msg) + " " + frame.Summary(msg))
			if p.inBytes(data, 0) >= 0 || strings.Contains(line, p.text) {
				return foundMsg{n: n}
			}
		}
		return foundMsg{text: what}
	})
}

// foundMsg is a find's answer over the message list: the message, or 0.
type foundMsg struct {
	n    int
	text string
}

// found selects what the find over the list found.
func (m *Model) found(f foundMsg) {
	if f.n == 0 {
		m.note = "not found in the listed messages: " + f.text
		return
	}
	m.msgs.Select(f.n)
	m.note = fmt.Sprintf("found in message %d", f.n)
}

// takeCmd returns the command a key left (a save, a find) and forgets it.
func (m *Model) takeCmd() tea.Cmd {
	c := m.cols.cmd
	m.cols.cmd = nil
	return c
}
