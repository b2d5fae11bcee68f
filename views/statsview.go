package views

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/stats/report"
	statspane "github.com/usmnscope/usmnscope/views/stats"
)

// statsBy are the pane's groupings, b cycling through them.
var statsBy = []report.By{report.ByKind, report.ByListener, report.ByMethod, report.ByMessage, report.ByConn, report.ByDir}

// statsMsg carries the statistics computed off the UI goroutine.
type statsMsg struct{ res *report.Result }

// statsCmd counts messages 1..n (the capture file may be read) as
// `usmnscope stats` does, through the same adapter.
func statsCmd(src Source, n int) tea.Cmd {
	return func() tea.Msg {
		rep := report.New(report.Options{By: statsBy})
		var (
			ad  report.Adapter
			rec report.Record
		)
		for i := 1; i <= n; i++ {
			msg := src.Detail(i)
			if msg == nil {
				continue
			}
			ad.Record(msg, &rec)
			rep.Add(&rec)
		}
		return statsMsg{res: rep.Result()}
	}
}

// openStats shows the statistics pane over the panes.
func (m *Model) openStats(res *report.Result) {
	m.note = ""
	m.over = StatsOverlay
	m.stats.SetResult(res)
	m.layout()
}

// statsKey routes a key while the statistics pane is open: the pager's
// close key closes it, ctrl+c quits, the rest is the pane's.
func (m Model) statsKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.pager.KeyMap.Close):
		m.over = NoOverlay
		return m, nil
	case key.Matches(k, m.KeyMap.Quit):
		return m, tea.Quit
	}
	var cmd tea.Cmd
	m.stats, cmd = m.stats.Update(k)
	return m, cmd
}

// statsFilter filters the message list to the group the pane's Enter
// chose, with the display filter it gives (shown in the filter bar, where
// esc clears it), and closes the pane.
func (m *Model) statsFilter(f statspane.FilterMsg) {
	m.over = NoOverlay
	if m.cfg.Parse == nil {
		m.note = "no filter language to filter with"
		return
	}
	match, _, err := m.cfg.Parse(f.Expr)
	if err != nil {
		m.note = "statistics filter: " + termsafe.Escape(err.Error())
		return
	}
	m.setFilter(f.Expr, match)
	m.bar.SetApplied(f.Expr)
	m.applyFilter()
	m.setFocus(FocusMessages)
}
