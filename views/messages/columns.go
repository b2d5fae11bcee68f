package messages

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// Columns and sort (issue 30). Besides its fixed columns (severity, mark,
// number, time, connection, direction, name, summary) the list shows the
// columns of its column set, each a field of the filter language read by
// Lookup (so a number stays a number), between the name and the summary.
// One column is current (< and >): o sorts by it (ascending, descending,
// off), X removes it, { and } move it, - and + narrow and widen it. The
// sort is stable and reads every listed message, in a command (Sort).

// Column is one added column: a filter field and its width in cells.
type Column struct {
	Field string
	Width int
}

// Value is a column's value in one message (filter.Value's shape).
type Value struct {
	Text    string
	Num     float64
	Numeric bool
	OK      bool
}

// LookupFunc reads field of a message for a column (the CLI gives the
// filter language's lookup).
type LookupFunc func(field string, m *session.Message) Value

// builtin are the fixed columns the sort can use, by name; their values
// come from the message itself.
var builtin = []string{"n", "time", "conn", "dir", "msg"}

// DefaultWidth is a new column's width.
const DefaultWidth = 12

// SetLookup sets how column values are read.
func (m *Model) SetLookup(f LookupFunc) { m.lookup = f }

// SetColumns replaces the added columns (another protocol's set, or the
// config file's); the sort is kept when its column still exists.
func (m *Model) SetColumns(cols []Column) {
	m.cols = slices.Clone(cols)
	for i := range m.cols {
		m.cols[i].Width = min(max(m.cols[i].Width, 3), 60)
	}
	m.colCur = min(m.colCur, len(builtin)+len(m.cols)-1)
	if m.sortBy != "" && !slices.Contains(m.names(), m.sortBy) {
		m.sortBy, m.order = "", nil
	}
}

// Columns returns the added columns.
func (m Model) Columns() []Column { return slices.Clone(m.cols) }

// AddColumn adds field as a column after the current one (or last), and
// makes it current; a field already shown is only made current.
func (m *Model) AddColumn(field string) {
	for i, c := range m.cols {
		if c.Field == field {
			m.colCur = len(builtin) + i
			return
		}
	}
	at := len(m.cols)
	if k := m.colCur - len(builtin); k >= 0 && k < len(m.cols) {
		at = k + 1
	}
	m.cols = slices.Insert(m.cols, at, Column{Field: field, Width: DefaultWidth})
	m.colCur = len(builtin) + at
}

// names lists every column the cursor moves over: the fixed ones, then
// the added.
func (m Model) names() []string {
	out := slices.Clone(builtin)
	for _, c := range m.cols {
		out = append(out, c.Field)
	}
	return out
}

// CurrentColumn returns the name of the current column.
func (m Model) CurrentColumn() string { return m.names()[min(m.colCur, len(m.names())-1)] }

// SortedBy returns the sort column ("" for message order) and whether it
// is descending.
func (m Model) SortedBy() (string, bool) { return m.sortBy, m.sortDesc }

// ColumnKey handles the column keys of the message list (KeyMap's
// ColumnLeft … Wider); changed says the column set changed (the root
// saves it).
func (m *Model) ColumnKey(k tea.KeyPressMsg) (handled, changed bool) {
	k0 := len(builtin)
	cur := m.colCur - k0 // index into cols, < 0 for a fixed column
	km := m.KeyMap
	switch {
	case key.Matches(k, km.ColumnLeft):
		m.colCur = max(m.colCur-1, 0)
	case key.Matches(k, km.ColumnRight):
		m.colCur = min(m.colCur+1, len(m.names())-1)
	case key.Matches(k, km.Sort):
		name := m.CurrentColumn()
		switch {
		case m.sortBy != name:
			m.sortBy, m.sortDesc = name, false
		case !m.sortDesc:
			m.sortDesc = true
		default:
			m.sortBy = ""
		}
		m.order, m.sortGen = nil, m.sortGen+1
		if name == "n" && !m.sortDesc && m.sortBy != "" {
			m.sortBy = "" // n ascending is the list's own order
		}
	case key.Matches(k, km.RemoveColumn):
		if cur < 0 {
			return true, false
		}
		if m.sortBy == m.cols[cur].Field {
			m.sortBy, m.order = "", nil
		}
		m.cols = slices.Delete(m.cols, cur, cur+1)
		m.colCur = min(m.colCur, len(m.names())-1)
		return true, true
	case key.Matches(k, km.MoveLeft, km.MoveRight):
		d := -1
		if key.Matches(k, km.MoveRight) {
			d = 1
		}
		if cur < 0 || cur+d < 0 || cur+d >= len(m.cols) {
			return true, false
		}
		m.cols[cur], m.cols[cur+d] = m.cols[cur+d], m.cols[cur]
		m.colCur += d
		return true, true
	case key.Matches(k, km.Narrower, km.Wider):
		if cur < 0 {
			return true, false
		}
		d := -2
		if key.Matches(k, km.Wider) {
			d = 2
		}
		m.cols[cur].Width = min(max(m.cols[cur].Width+d, 3), 60)
		return true, true
	default:
		return false, false
	}
	return true, false
}

// sortKey is one listed row's key.
type sortKey struct {
	row  int
	num  float64
	text string
	ok   bool
	nums bool
}

// SortedMsg carries the order Sort computed.
type SortedMsg struct {
	gen   uint32
	len   int
	order []int32
}

// Sort returns a command that orders the listed rows by the sort column,
// or nil when there is no sort, the order is current, or the filter is
// still scanning.
func (m *Model) Sort() tea.Cmd {
	if m.sortBy == "" || m.Scanning() || m.sorting || len(m.order) == m.rawLen() && m.order != nil {
		return nil
	}
	m.sorting = true
	n := m.rawLen()
	nums := make([]int, n)
	for i := range n {
		nums[i] = m.rawNumber(i)
	}
	src, lookup, by, desc, gen := m.src, m.lookup, m.sortBy, m.sortDesc, m.sortGen
	return func() tea.Msg {
		keys := make([]sortKey, n)
		for i, num := range nums {
			keys[i] = keyOf(i, src.Message(num), by, lookup)
		}
		sort.SliceStable(keys, func(a, b int) bool {
			ka, kb := keys[a], keys[b]
			if ka.ok != kb.ok {
				return ka.ok // messages without the field last
			}
			var c int
			switch {
			case ka.nums && kb.nums:
				c = cmpFloat(ka.num, kb.num)
			default:
				c = strings.Compare(ka.text, kb.text)
			}
			if desc {
				c = -c
			}
			return c < 0
		})
		out := SortedMsg{gen: gen, len: n, order: make([]int32, n)}
		for i, k := range keys {
			out.order[i] = int32(k.row)
		}
		return out
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// keyOf reads the sort key of one message.
func keyOf(row int, msg *session.Message, by string, lookup LookupFunc) sortKey {
	k := sortKey{row: row}
	if msg == nil {
		return k
	}
	k.ok = true
	switch by {
	case "n":
		k.num, k.nums = float64(msg.N), true
	case "time":
		k.num, k.nums = float64(msg.Time.UnixNano()), true
	case "conn":
		k.text = msg.Conn.String()
	case "dir":
		k.text = msg.Dir.String()
	case "msg":
		k.text = frame.Name(msg)
	default:
		if lookup == nil {
			k.ok = false
			return k
		}
		v := lookup(by, msg)
		k.ok, k.text, k.num, k.nums = v.OK, v.Text, v.Num, v.Numeric
	}
	return k
}

// takeSorted keeps an order computed for the current sort and rows.
func (m *Model) takeSorted(s SortedMsg) {
	m.sorting = false
	if s.gen != m.sortGen || s.len != m.rawLen() || m.sortBy == "" {
		return
	}
	sel := m.Selected()
	m.order = s.order
	m.SetCursor(m.find(sel, m.Cursor()), m.Len())
}

// resort drops the order: the rows or the filter changed.
func (m *Model) resort() {
	m.order = nil
	m.sortGen++
	m.sorting = false
}

// colsCells renders the added columns of a message.
func (m Model) colsCells(r row) string {
	if len(m.cols) == 0 {
		return ""
	}
	var b strings.Builder
	for _, c := range m.cols {
		b.WriteString(fit(r.cols[c.Field], c.Width))
		b.WriteByte(' ')
	}
	return b.String()
}

// colFields are the added columns' fields, in order.
func (m Model) colFields() []string {
	out := make([]string, len(m.cols))
	for i, c := range m.cols {
		out[i] = c.Field
	}
	return out
}

// fit pads or cuts s to w cells (runes).
func fit(s string, w int) string {
	r := []rune(s)
	if len(r) > w {
		return string(r[:w-1]) + "…"
	}
	return s + strings.Repeat(" ", w-len(r))
}

// colsTitle names the added columns, the current one and the sort, for
// the pane's title.
func (m Model) colsTitle() string {
	if len(m.cols) == 0 && m.sortBy == "" && m.colCur == 0 {
		return ""
	}
	var parts []string
	for i, name := range m.names() {
		s := name
		if name == m.sortBy {
			if m.sortDesc {
				s += "▼"
			} else {
				s += "▲"
			}
		}
		if i == m.colCur {
			s = "[" + s + "]"
		}
		if i >= len(builtin) || name == m.sortBy || i == m.colCur {
			parts = append(parts, s)
		}
	}
	out := "  cols " + strings.Join(parts, " ")
	if m.sortBy != "" && m.order == nil {
		out += fmt.Sprintf("  sorting…")
	}
	return out
}
