package views

import (
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/views/bits"
	"github.com/usmnscope/usmnscope/views/conns"
	"github.com/usmnscope/usmnscope/views/detail"
	"github.com/usmnscope/usmnscope/views/filterbar"
	"github.com/usmnscope/usmnscope/views/frame"
	"github.com/usmnscope/usmnscope/views/messages"
	"github.com/usmnscope/usmnscope/views/tables"
)

// Panes expose the components to tests.
func (m Model) Messages() messages.Model { return m.msgs }
func (m Model) Detail() detail.Model     { return m.detail }
func (m Model) Bits() bits.Model         { return m.bits }
func (m Model) Tables() tables.Model     { return m.tables }
func (m Model) Conns() conns.Model       { return m.conns }
func (m Model) Bar() filterbar.Model     { return m.bar }

// Columns configures the message list's added columns (issue 30): one set
// per protocol view, "all" (every connection listed), "unturned" and
// "ulinkrpc" (a connection of that protocol selected).
type Columns struct {
	Sets   map[string][]messages.Column
	Lookup messages.LookupFunc
	// Field maps a field of the detail pane (its span name) to the filter
	// field a column shows, "" when there is none.
	Field func(span string) string
	// Save keeps the sets (the config file); nil keeps them for the
	// session only. It runs in a command.
	Save func(sets map[string][]messages.Column) error
}

// DefaultColumnSets are the sets a first start shows.
func DefaultColumnSets() map[string][]messages.Column {
	return map[string][]messages.Column{
		"all":      nil,
		"unturned": {{Field: "listener", Width: 28}},
		"ulinkrpc": {{Field: "status", Width: 12}, {Field: "latency", Width: 10}},
	}
}

// protoSets are the sets' names, a protocol's among them (viewSet).
var protoSets = DefaultColumnSets()

// colState is the root's side of the columns: the sets, and which one
// the list shows.
type colState struct {
	sets map[string][]messages.Column
	set  string
	find string  // the text find looks for (find.go)
	cmd  tea.Cmd // what the last column or find key left to run (takeCmd)
}

// initColumns gives the list its lookup and the set of the view shown.
func (m *Model) initColumns() {
	m.cols.sets = maps.Clone(m.cfg.Columns.Sets)
	if m.cols.sets == nil {
		m.cols.sets = DefaultColumnSets()
	}
	m.msgs.SetLookup(m.cfg.Columns.Lookup)
	m.syncColumns()
	if m.cfg.Theme == "light" {
		m.setStyles(false)
	}
}

// themeDark is whether to draw for a dark background: the config file's
// theme, else what the terminal said.
func (m *Model) themeDark(terminal bool) bool {
	switch m.cfg.Theme {
	case "dark":
		return true
	case "light":
		return false
	}
	return terminal
}

// viewSet names the column set of what the list shows: "all", or the
// selected connection's protocol's (ConnInfo.Proto) when it has a set of
// its own (DefaultColumnSets; Unturned's, whose Proto is "", otherwise).
func (m *Model) viewSet() string {
	if m.allConns {
		return "all"
	}
	for _, c := range m.src.Connections() {
		if c.Conn == m.conn {
			if _, ok := protoSets[c.Proto]; ok && c.Proto != "all" {
				return c.Proto
			}
			return "unturned"
		}
	}
	return "all"
}

// syncColumns shows the set of the view when the view changed.
func (m *Model) syncColumns() {
	if m.cfg.Columns.Lookup == nil {
		return
	}
	if set := m.viewSet(); set != m.cols.set {
		m.cols.set = set
		m.msgs.SetColumns(m.cols.sets[set])
	}
}

// withSort adds the list's sort command (when one is due) to cmd.
func (m *Model) withSort(cmd tea.Cmd) tea.Cmd {
	m.syncColumns()
	if s := m.read(m.msgs.Sort()); s != nil {
		return tea.Batch(cmd, s)
	}
	return cmd
}

// columnKey handles the column keys (the message list's < > o X { } - +,
// the detail pane's c: apply as column) and reports whether k was one.
func (m *Model) columnKey(k tea.KeyPressMsg) bool {
	if m.findKey(k) {
		return true
	}
	if m.cfg.Columns.Lookup == nil {
		return false
	}
	switch m.focus {
	case FocusDetail:
		if !key.Matches(k, m.detail.KeyMap.ApplyColumn) {
			return false
		}
		m.applyAsColumn()
		return true
	case FocusMessages:
		handled, changed := m.msgs.ColumnKey(k)
		if !handled {
			return false
		}
		if changed {
			m.cols.sets[m.cols.set] = m.msgs.Columns()
			m.cols.cmd = m.saveColumns()
		}
		by, desc := m.msgs.SortedBy()
		ck := m.msgs.KeyMap
		switch sort := key.Matches(k, ck.Sort); {
		case sort && by == "":
			m.note = "sorted by message number"
		case sort && desc:
			m.note = "sorted by " + termsafe.Escape(by) + ", descending"
		case sort:
			m.note = "sorted by " + termsafe.Escape(by)
		case key.Matches(k, ck.RemoveColumn) && changed:
			m.note = "column removed"
		default:
			m.note = "column: " + termsafe.Escape(m.msgs.CurrentColumn())
		}
		return true
	}
	return false
}

// applyAsColumn adds the detail pane's selected field as a column.
func (m *Model) applyAsColumn() {
	msg := m.detail.Message()
	f := m.detail.SelectedField()
	_, fields := frame.Bytes(msg)
	if msg == nil || f < 0 || f >= len(fields) {
		m.note = "select a field in the detail pane to add it as a column"
		return
	}
	name := ""
	if m.cfg.Columns.Field != nil {
		name = m.cfg.Columns.Field(fields[f].Name)
	}
	if name == "" {
		m.note = "no filter field for " + termsafe.Escape(fields[f].Name) + ": it cannot be a column"
		return
	}
	m.msgs.AddColumn(name)
	m.cols.sets[m.cols.set] = m.msgs.Columns()
	m.cols.cmd = m.saveColumns()
	ck := m.msgs.KeyMap
	m.note = "column added: " + termsafe.Escape(name) + " (message list: " + keyOf(ck.ColumnLeft) + " " + keyOf(ck.ColumnRight) + " choose, " +
		keyOf(ck.Sort) + " sort, " + keyOf(ck.RemoveColumn) + " remove, " + keyOf(ck.MoveLeft) + " " + keyOf(ck.MoveRight) + " move, " +
		keyOf(ck.Narrower) + " " + keyOf(ck.Wider) + " width)"
}

// saveColumns keeps the sets through Config.Columns.Save, in a command.
func (m *Model) saveColumns() tea.Cmd {
	save := m.cfg.Columns.Save
	if save == nil {
		return nil
	}
	sets := make(map[string][]messages.Column, len(m.cols.sets))
	for k, v := range m.cols.sets {
		sets[k] = slices.Clone(v)
	}
	return func() tea.Msg {
		if err := save(sets); err != nil {
			return noteMsg("columns not saved: " + termsafe.Escape(strings.TrimSpace(err.Error())))
		}
		return nil
	}
}

// noteMsg sets the note (a command's answer).
type noteMsg string
