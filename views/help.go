package views

import (
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"

	"github.com/usmnscope/usmnscope/views/frame"
)

// helpLines is the help overlay: every key once (a key shared by all
// lists is listed with the lists, a pane's own keys under the pane), then
// a legend of every symbol the screens use. It scrolls in the pager, so it
// fits any size, 80×24 included.
func (m Model) helpLines(width int) []frame.Row {
	var out []frame.Row
	section := func(title string, bs ...key.Binding) {
		out = append(out, frame.Row{Text: title, Style: frame.Heading})
		for _, b := range bs {
			if !b.Enabled() {
				continue
			}
			h := b.Help()
			out = append(out, entry(h.Key, h.Desc, 11, width)...)
		}
	}
	k := m.KeyMap
	write := withDesc(k.Write, "write the listed messages' packets to a pcapng")
	if m.bits.KeyMap.NextField.Enabled() && sameKeys(k.Write, m.bits.KeyMap.NextField) {
		write = withDesc(k.Write, "write the listed messages' packets to a pcapng (in the bits pane: next field)")
	}
	section("Everywhere", k.NextPane, k.PrevPane, k.Filter, k.Goto, k.Clear, k.Tables, k.Follow, k.Pause,
		k.Expert, k.FollowConn, k.Graph, k.Copy, write, k.Text, k.Help, k.Quit)
	l := frame.DefaultListKeyMap()
	section("Every list pane (mouse: click selects, wheel scrolls)", l.Up, l.Down, l.Top, l.Bottom)
	pair := withDesc(k.Pair, "go to the paired message and back: Request ↔ Response, KeepAlivePing ↔ Pong, PingRequest ↔ PingResponse")
	if c := moved(m.conns.KeyMap.ListKeyMap); len(c) > 0 {
		section("Connections", c...)
	}
	section("Messages", append(moved(m.msgs.KeyMap.ListKeyMap), m.msgs.KeyMap.PageUp, m.msgs.KeyMap.PageDown, pair, k.Mark, k.NextMark, k.PrevMark, k.MarkedOnly)...)
	section("Time column", k.TimeFormat, k.TimeRef)
	section("Find (in the focused pane: list, field tree, bytes)", k.Find, k.FindNext, k.FindPrev)
	ck := m.msgs.KeyMap
	section("Columns (message list; the detail pane's "+keyOf(m.detail.KeyMap.ApplyColumn)+" adds its field)",
		withDesc(m.detail.KeyMap.ApplyColumn, "in the detail pane: add the selected field as a column (apply as column)"),
		joined(ck.ColumnLeft, ck.ColumnRight, "choose the current column (n, time, conn, dir, msg, then the added ones)"),
		ck.Sort, ck.RemoveColumn,
		joined(ck.MoveLeft, ck.MoveRight, "move the current column left, right"),
		joined(ck.Narrower, ck.Wider, "narrow, widen the current column"))
	section("Detail (field tree)", append(moved(m.detail.KeyMap.ListKeyMap), m.detail.KeyMap.Toggle, m.detail.KeyMap.Expand, m.detail.KeyMap.Collapse)...)
	b := m.bits.KeyMap
	section("Bits", append(moved(b.ListKeyMap), b.Left, b.Right, b.PrevField, b.Order, b.Bytes)...)
	section("Tables", append(moved(m.tables.KeyMap.ListKeyMap), m.tables.KeyMap.Select)...)
	f := m.bar.KeyMap
	section("Filter bar (/ and :N)", f.Accept, f.Cancel, f.Delete, f.Complete, f.Prev, f.Next, f.ClearLine)
	p := m.pager.KeyMap
	section("Overlays (help, expert, follow, graph, text)", p.PageUp, p.PageDown, p.Jump, p.Close)
	gw := withDesc(m.GraphKeyMap.Write, "write the series as CSV (the same file as stats --series … --csv)")
	section("I/O graph (i)", m.GraphKeyMap.Add, m.GraphKeyMap.Drop, gw)
	out = append(out, frame.Row{Text: "Symbols", Style: frame.Heading})
	ref := keyOf(k.TimeRef)
	for _, s := range [][2]string{
		{"E W N", "first column: the message's worst finding is an error, warning, note"},
		{"→ ←", "direction: client to server, server to client"},
		{"⁺", "after a name: read with the widened message enum (docs/protocol.md)"},
		{"•", "after the first column: a marked message (" + keyOf(k.Mark) + ")"},
		{"*REF*", "time column: the time reference (" + ref + "); times since first count from it"},
		{"c1 c2 …", "connection names, in the order seen; rows of all connections show them"},
		{"usmn C/S", "USMN marker seen from the client / server; - when not"},
		{"wide:c2s,s2c", "directions whose enum is widened; ? when inferred, not seen"},
		{"vanilla", "no direction is widened"},
		{"1/26B", "bytes client to server / server to client"},
		{"ok error…", "a connection's worst finding; missing N: listeners a side lacks"},
		{"▁▃█", "sparkline: messages per second, the last 12 seconds, scaled"},
		{"*", "tables: entry created or changed by the message shown"},
		{"s1 c4001", "tables: server- and client-side listener IDs; → s1 mapped"},
		{"@37+11", "detail: the field's first bit and its length in bits"},
		{"▾ ▸", "detail: open and closed groups"},
		{"…", "text cut at the pane's edge: v shows it whole"},
		{"PAUSED", "space held the list: new messages wait"},
	} {
		out = append(out, entry(s[0], s[1], 13, width)...)
	}
	return out
}

// entry is one help line, its text wrapped under itself so that no line
// is cut at 80 columns.
func entry(k, desc string, kw, w int) []frame.Row {
	pad := 2 + kw + 1
	var out []frame.Row
	for i, l := range frame.Wrap(desc, w-pad-1) {
		key := ""
		if i == 0 {
			key = k
		}
		out = append(out, frame.Row{Text: fmt.Sprintf("  %-*s %s", kw, key, l)})
	}
	return out
}

// moved are the list keys of a pane that a rebinding moved from the
// keys every list shares (the help's "Every list pane" section).
func moved(l frame.ListKeyMap) []key.Binding {
	d := frame.DefaultListKeyMap()
	var out []key.Binding
	for i, b := range []key.Binding{l.Up, l.Down, l.Top, l.Bottom} {
		if !slices.Equal(b.Keys(), []key.Binding{d.Up, d.Down, d.Top, d.Bottom}[i].Keys()) {
			out = append(out, b)
		}
	}
	return out
}
