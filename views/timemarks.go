package views

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/session"
)

// timeKey handles the keys of the time column (T: the format, ctrl+t: the
// time reference) and of the marks (m, ], [, M in the message list), and
// reports whether k was one of them.
func (m *Model) timeKey(k tea.KeyPressMsg) bool {
	f, ref := m.msgs.TimeFormat()
	switch {
	case key.Matches(k, m.KeyMap.TimeFormat):
		m.msgs.SetTime(f.Next(), ref, m.src.Stamp)
		m.note = "time: " + f.Next().String()
	case key.Matches(k, m.KeyMap.TimeRef):
		n := m.msgs.Selected()
		switch {
		case n <= 0:
			m.note = "no message selected for the time reference"
			return true
		case n == ref:
			n = 0
			m.note = "time reference cleared"
		default:
			m.note = fmt.Sprintf("time reference: message %d", n)
		}
		m.msgs.SetTime(f, n, m.src.Stamp)
	case m.focus != FocusMessages:
		return false
	case key.Matches(k, m.KeyMap.Mark):
		n, on := m.msgs.ToggleMark()
		switch {
		case n == 0:
			m.note = "no message selected to mark"
		case on:
			m.note = fmt.Sprintf("marked message %d", n)
		default:
			m.note = fmt.Sprintf("unmarked message %d", n)
		}
		if m.markedOnly {
			m.applyFilter()
		}
	case key.Matches(k, m.KeyMap.NextMark):
		if !m.msgs.NextMark(1) {
			m.note = "no marked message below"
		}
	case key.Matches(k, m.KeyMap.PrevMark):
		if !m.msgs.NextMark(-1) {
			m.note = "no marked message above"
		}
	case key.Matches(k, m.KeyMap.MarkedOnly):
		m.markedOnly = !m.markedOnly
		m.note = "listing every message"
		if m.markedOnly {
			m.note = "listing marked messages only (M again: all)"
		}
		m.applyFilter()
	default:
		return false
	}
	return true
}

// markedPred is the "marked only" filter over a copy of the marks taken
// now, as a test of messages and of their index records: the scan may
// test it off the UI goroutine while marks change.
func (m *Model) markedPred() (func(*session.Message) bool, func(session.Head) bool) {
	marks := m.msgs.MarkSet()
	return func(msg *session.Message) bool { return marks[msg.N] },
		func(h session.Head) bool { return marks[h.N] }
}
