package views

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/messages"
)

// IO reaches the UI only as messages. Len, Stamp, Connections, Findings
// and Profile read what the index holds in memory; Message, Detail and
// Tables may read the capture file back, so they run only in commands
// (detailCmd, the message list's Load and Scan), whose messages Update
// applies. When the source reads no file (Source.ReadsStore), read runs
// such a command at once instead: its messages are applied before the
// frame, so a capture held in memory shows complete, deterministic screens
// after every update, as the goldens need.

// read hands cmd, a read of the source, to the program; without a file to
// read it runs cmd now and applies what it read.
func (m *Model) read(cmd tea.Cmd) tea.Cmd {
	if cmd == nil || m.src.ReadsStore() {
		return cmd
	}
	m.apply(cmd())
	return nil
}

// apply takes in what a read command read.
func (m *Model) apply(msg tea.Msg) {
	switch msg := msg.(type) {
	case detailMsg:
		m.show(msg)
	case messages.RowsMsg, messages.ScannedMsg, messages.SortedMsg:
		m.msgs, _ = m.msgs.Update(msg)
	case noteMsg:
		m.note = string(msg)
	case foundMsg:
		m.found(msg)
	case overlayMsg:
		m.openOverlay(msg.o, msg.title, msg.lines)
		if msg.at > 0 {
			m.pager.SetCursorMsg(msg.at)
		}
	case exportedMsg:
		m.note = fmt.Sprintf("wrote %d packets to %s", msg.packets, termsafe.Escape(msg.path))
		if msg.err != nil {
			m.note = "export failed: " + termsafe.Escape(msg.err.Error())
		}
	case statsMsg:
		m.openStats(msg.res)
	case graphMsg:
		m.showGraph(msg)
	case graphWrittenMsg:
		m.graphWritten(msg)
	case missingMsg:
		m.miss, m.listenerTypes = msg.counts, msg.listeners
		m.conns.SetMissing(msg.counts)
	}
}

// fetch reads what the screen shows and the UI does not hold yet: the
// messages of the rows in view, and the selected message's detail.
func (m *Model) fetch() tea.Cmd {
	rows := m.read(m.msgs.Load())
	return tea.Batch(rows, m.sync())
}

// sync asks for the detail of the selected message when the selection
// changed.
func (m *Model) sync() tea.Cmd {
	n := m.msgs.Selected()
	if n == m.selected {
		return nil
	}
	m.selected = n
	if n <= 0 {
		m.show(detailMsg{})
		return nil
	}
	if m.deferDetail {
		return detailCmd(m.src, n)
	}
	return m.read(detailCmd(m.src, n))
}

// show updates the panes that depend on the selected message, unless the
// selection moved on while d was read: the newer selection's read is
// under way then.
func (m *Model) show(d detailMsg) {
	if d.n != m.selected {
		return
	}
	m.detail.SetMessage(d.msg)
	m.bits.SetMessage(d.msg)
	if d.msg == nil {
		m.tables.SetTables(nil)
		return
	}
	m.tables.SetTables(d.tables)
}

// detailMsg carries message n decoded with its field spans and the
// listener tables as of it, read by detailCmd off the UI goroutine.
type detailMsg struct {
	n      int
	msg    *session.Message
	tables *session.Tables
}

// detailCmd reads message n and its tables: both may read the capture file.
func detailCmd(src Source, n int) tea.Cmd {
	return func() tea.Msg {
		d := detailMsg{n: n, msg: src.Detail(n)}
		if d.msg != nil {
			d.tables = src.Tables(d.msg.Conn, n)
		}
		return d
	}
}
