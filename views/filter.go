package views

import "github.com/usmnscope/usmnscope/session"

// startFilter puts Config.Filter in force (open --filter): the list shows
// the matching messages and the bar the expression, as if typed after /.
func (m *Model) startFilter() {
	if m.cfg.Filter == "" || m.cfg.Parse == nil {
		return
	}
	if match, _, err := m.cfg.Parse(m.cfg.Filter); err == nil {
		m.setFilter(m.cfg.Filter, match)
		m.bar.SetApplied(m.cfg.Filter)
		m.applyFilter()
	}
}

// setFilter puts the display filter match, compiled from expr, in force
// (nil: none), with its test of index records (Config.Head); applyFilter
// then applies it.
func (m *Model) setFilter(expr string, match func(*session.Message) bool) {
	m.filter, m.filterHead = match, nil
	if match != nil && m.cfg.Head != nil {
		m.filterHead = m.cfg.Head(expr)
	}
}

// applyFilter combines the display filter with the listener chosen in the
// tables pane.
func (m *Model) applyFilter() {
	f, h, l := m.filter, m.filterHead, m.listener
	if m.markedOnly {
		marked, markedHead := m.markedPred()
		if f != nil {
			inner, innerHead := f, h
			f = func(msg *session.Message) bool { return marked(msg) && inner(msg) }
			if h != nil {
				h = func(hd session.Head) bool { return markedHead(hd) && innerHead(hd) }
			}
		} else {
			f, h = marked, markedHead
		}
	}
	switch {
	case f == nil && l == nil:
		m.msgs.SetFilter(nil, true)
	case l == nil:
		m.msgs.SetFilterHead(f, h, true)
	case f == nil:
		m.msgs.SetFilter(l.Match, true)
	default:
		m.msgs.SetFilter(func(msg *session.Message) bool { return l.Match(msg) && f(msg) }, true)
	}
}
