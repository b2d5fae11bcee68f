package views

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/views/filterbar"
	"github.com/usmnscope/usmnscope/views/frame"
	"github.com/usmnscope/usmnscope/views/pager"
)

// overlayKey routes a key while the pager is open: close, quit, or the
// pager's own keys (Enter may jump).
func (m Model) overlayKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.pager.KeyMap.Close), m.over == HelpOverlay && key.Matches(k, m.KeyMap.Help):
		m.over = NoOverlay
		return m, nil
	case key.Matches(k, m.KeyMap.Quit): // ctrl+c: q closed the pager above
		return m, tea.Quit
	}
	if m.over == GraphOverlay {
		if cmd, ok := m.graphKey(k); ok {
			return m, cmd
		}
	}
	var cmd tea.Cmd
	m.pager, cmd = m.pager.Update(k)
	return m.now(cmd)
}

// action runs the keys that open an overlay or do IO through a command.
func (m *Model) action(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.KeyMap.Expert):
		return m.read(expertCmd(m.src, m.n))
	case key.Matches(k, m.KeyMap.FollowConn):
		c, ok := m.conn, !m.allConns
		if !ok {
			if msg := m.detail.Message(); msg != nil {
				c, ok = msg.Conn, true
			}
		}
		if !ok {
			m.note = "select a connection or a message to follow"
			return nil
		}
		var nums []int
		for l, i := m.idx.rows(c), 0; i < l.Len(); i++ {
			nums = append(nums, l.At(i))
		}
		at := 0
		if msg := m.detail.Message(); msg != nil && msg.Conn == c {
			at = msg.N
		}
		return m.read(followCmd(m.src, c, nums, at))
	case key.Matches(k, m.KeyMap.Graph):
		what := m.msgs.Title
		if m.filter != nil || m.listener != nil {
			what += " (filtered)"
		}
		if m.msgs.Scanning() {
			what += " — the filter is still running: partial"
		}
		return m.openGraph(what)
	case key.Matches(k, m.KeyMap.Copy):
		return m.copyCmd()
	case key.Matches(k, m.KeyMap.Write):
		switch {
		case m.cfg.Export == nil:
			m.note = "cannot write: no capture file to read the packets from"
		case m.msgs.Scanning():
			m.note = "the filter is still running; write again when it is done"
		default:
			m.bar.OpenWrite(m.cfg.ExportPath) // writeStep takes it from there
		}
	case key.Matches(k, m.KeyMap.Text):
		title, lines := m.textLines(m.w)
		// The selection cannot change under the overlay: wrap again from
		// the text taken now.
		m.openOverlay(TextOverlay, title, func(w, _ int) []frame.Row { return rewrap(lines, w) })
	}
	return nil
}

// jump closes the pager and goes to a message or a connection.
func (m *Model) jump(j pager.JumpMsg) {
	m.over = NoOverlay
	switch {
	case j.Msg > 0:
		m.gotoMsg(j.Msg)
	case j.Conn != nil:
		m.setFilter("", nil)
		m.listener = nil
		m.bar.Clear()
		m.applyFilter()
		m.conns.Select(*j.Conn)
		m.selectConn(m.conns.Selected())
		m.setFocus(FocusConns)
	}
}

// gotoMsg selects message n. A number past the end is refused with a
// note; when filters may hide n they are cleared, bar included, so that
// what the bar shows is what the list applies.
func (m *Model) gotoMsg(n int) {
	if n > m.n {
		m.note = fmt.Sprintf(":%d is past the end: the capture has %d messages", n, m.n)
		return
	}
	if !m.allConns || m.filter != nil || m.listener != nil {
		if m.filter != nil || m.listener != nil {
			m.note = fmt.Sprintf("filters cleared to show message %d", n)
		}
		m.setFilter("", nil)
		m.listener = nil
		m.bar.Clear()
		m.conns.Select(dissect.Conn{})
		m.selectConn(dissect.Conn{}, false)
		m.applyFilter()
	}
	m.msgs.Select(n)
	m.setFocus(FocusMessages)
}

// pair returns the selected message's partner (outputs.md "Pairing": a
// Response's Request, a Pong's Ping, a PingResponse's PingRequest and
// back), 0 when it has none or its detail is not read yet.
func (m Model) pair() int {
	if msg := m.detail.Message(); msg != nil && msg.N == m.selected {
		return msg.Pair
	}
	return 0
}

// jumpPair selects the selected message's partner, in the list as it is
// when the partner is listed (the same connection, no filter), else as :N
// does; without a partner it only says so.
func (m *Model) jumpPair() {
	msg := m.detail.Message()
	switch {
	case m.selected <= 0:
		m.note = "no message selected"
	case msg == nil || msg.N != m.selected:
		m.note = fmt.Sprintf("message %d is still being read", m.selected)
	case msg.Pair == 0:
		m.note = fmt.Sprintf("message %d has no pair", msg.N)
	case msg.Pair > m.n:
		m.note = fmt.Sprintf("the pair of message %d, %d, is not listed yet", msg.N, msg.Pair)
	case m.filter == nil && m.listener == nil && (m.allConns || m.conn == msg.Conn):
		m.msgs.Select(msg.Pair)
		m.note = fmt.Sprintf("message %d → its pair %d (enter goes back)", msg.N, msg.Pair)
	default:
		n := msg.N
		m.gotoMsg(msg.Pair)
		if m.note == "" {
			m.note = fmt.Sprintf("message %d → its pair %d (enter goes back)", n, msg.Pair)
		}
	}
}

func pauseNote(paused, loading bool) string {
	switch {
	case !paused:
		return "resumed"
	case loading:
		return "paused: the list holds still while the capture is read"
	}
	return "paused (the file is read whole: nothing new will arrive)"
}

// missingMsg counts, per connection, the listeners a side said it lacks,
// and names every listener type of the capture's final tables (the filter
// bar completes them: issue 30).
type missingMsg struct {
	counts    map[dissect.Conn]int
	listeners []string
}

// missingCmd reads each connection's final tables (they may be decoded
// again from the capture file).
func missingCmd(src Source) tea.Cmd {
	return func() tea.Msg {
		out := missingMsg{counts: map[dissect.Conn]int{}}
		conns, _ := src.ConnectionsSince(nil, 0) // summaries: findings are not needed
		for _, c := range conns {
			if t := src.Tables(c.Conn, 0); t != nil {
				if k := len(t.MissingOnServer) + len(t.MissingOnClient); k > 0 {
					out.counts[c.Conn] = k
				}
				for _, e := range t.Server {
					out.listeners = append(out.listeners, e.Type)
				}
				for _, e := range t.Client {
					out.listeners = append(out.listeners, e.Type)
				}
			}
		}
		slices.Sort(out.listeners)
		out.listeners = slices.Compact(out.listeners)
		return out
	}
}

// words are the filter bar's completions: field names, message names,
// the listener types of the capture (once read) and of the selected
// message's tables.
func (m Model) words() []string {
	w := slices.Clone(m.cfg.Words)
	w = append(w, m.listenerTypes...)
	if t := m.tables.Tables(); t != nil {
		for _, e := range t.Server {
			w = append(w, e.Type)
		}
		for _, e := range t.Client {
			w = append(w, e.Type)
		}
	}
	slices.Sort(w)
	return slices.Compact(w)
}

// shortHelp is the help line: the filter bar's keys while it reads, the
// pager's while it is open, else the focused pane's and the global ones.
func (m Model) shortHelp() []key.Binding {
	switch {
	case m.bar.Mode() == filterbar.Filter:
		return m.bar.KeyMap.ShortHelp()
	case m.bar.Mode() == filterbar.Goto, m.bar.Mode() == filterbar.Write, m.bar.Mode() == filterbar.Series:
		return []key.Binding{m.bar.KeyMap.Accept, m.bar.KeyMap.Cancel}
	case m.bar.Mode() == filterbar.Confirm:
		return nil
	case m.over == StatsOverlay:
		return append(m.stats.KeyMap.ShortHelp(), m.pager.KeyMap.Close)
	case m.over == GraphOverlay:
		pk := m.pager.KeyMap
		return []key.Binding{m.GraphKeyMap.Add, m.GraphKeyMap.Drop, m.GraphKeyMap.Write, pk.Close, pk.Down, pk.Up, pk.PageDown}
	case m.over != NoOverlay:
		return m.pager.KeyMap.ShortHelp()
	}
	// "? help" and "q quit" first: the legend is cut at the right edge,
	// and at 80 columns they were what it lost (issue 30).
	keys := []key.Binding{m.KeyMap.Help, m.KeyMap.Quit}
	keys = append(keys, m.paneHelp().ShortHelp()...)
	if p := m.pair(); p > 0 && m.focus == FocusMessages {
		// Offered only where it acts: a paired message in the list.
		b := m.KeyMap.Pair
		b.SetHelp("enter", fmt.Sprintf("go to pair #%d", p))
		keys = append(keys, b)
	}
	for _, b := range m.KeyMap.ShortHelp() {
		if b.Help().Key != m.KeyMap.Help.Help().Key && b.Help().Key != m.KeyMap.Quit.Help().Key {
			keys = append(keys, b)
		}
	}
	return keys
}

// rewrap wraps rows of text (built for another width) to w.
func rewrap(rows []frame.Row, w int) []frame.Row {
	var out []frame.Row
	for _, r := range rows {
		for _, l := range frame.Wrap(strings.TrimSpace(r.Text), w-2) {
			out = append(out, frame.Row{Text: " " + l})
		}
	}
	return out
}
