package views

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/stats/report"
	"github.com/usmnscope/usmnscope/views/filterbar"
	"github.com/usmnscope/usmnscope/views/frame"
	"github.com/usmnscope/usmnscope/views/iograph"
)

// The I/O graph (i) over the listed messages (issue 26): several series,
// each a Y value and a filter (a adds one, d drops the last), drawn by
// package iograph; w writes its figures as CSV beside the capture, asking
// for the name and never replacing a file without a yes (write.go's
// steps), the same CSV `usmnscope stats --series … --interval D --csv`
// prints.

// graphState is the graph's series and the figures they read.
type graphState struct {
	what  string
	nums  []int
	specs []iograph.Spec
	data  *iograph.Data
}

// GraphKeyMap holds the graph's own keys, besides the pager's.
type GraphKeyMap struct{ Add, Drop, Write key.Binding }

// DefaultGraphKeyMap returns the graph's keys.
func DefaultGraphKeyMap() GraphKeyMap {
	return GraphKeyMap{
		Add:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add series")),
		Drop:  key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "drop last series")),
		Write: key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "write CSV")),
	}
}

// graphMsg carries the figures read off the UI goroutine.
type graphMsg struct {
	g   graphState
	err error
}

// graphWrittenMsg reports a CSV written.
type graphWrittenMsg struct {
	path string
	note string
	err  error
}

// seriesParse adapts the CLI's filter language to iograph's.
func seriesParse(p ParseFunc) iograph.ParseFunc {
	if p == nil {
		return nil
	}
	return func(expr string) (func(*session.Message) bool, error) {
		match, _, err := p(expr)
		return match, err
	}
}

// graphCmd reads the listed messages for the series: their bytes on the
// stream as `stats` counts them (report.Adapter) and the series' values.
func graphCmd(src Source, parse ParseFunc, g graphState) tea.Cmd {
	return func() tea.Msg {
		series, err := iograph.Compile(g.specs, seriesParse(parse))
		if err != nil {
			return graphMsg{err: err}
		}
		d := iograph.NewData(series)
		var (
			ad  report.Adapter
			rec report.Record
		)
		for _, n := range g.nums {
			if msg := src.Message(n); msg != nil {
				ad.Record(msg, &rec)
				d.Add(msg, rec.Bytes)
			}
		}
		g.data = d
		return graphMsg{g: g}
	}
}

// openGraph reads the listed messages for the series the graph had (the
// default ones the first time).
func (m *Model) openGraph(what string) tea.Cmd {
	specs := m.graph.specs
	if len(specs) == 0 {
		specs = iograph.DefaultSpecs
	}
	return m.read(graphCmd(m.src, m.cfg.Parse, graphState{what: what, nums: m.listed(), specs: specs}))
}

// showGraph shows the figures read, or says why there are none.
func (m *Model) showGraph(msg graphMsg) {
	if msg.err != nil {
		m.note = "I/O graph: " + termsafe.Escape(msg.err.Error())
		return
	}
	m.graph = msg.g
	d := msg.g.data
	c := 0
	if m.over == GraphOverlay {
		c = m.pager.Cursor()
	}
	m.openOverlay(GraphOverlay, "I/O graph: "+msg.g.what, func(w, h int) []frame.Row { return iograph.Lines(d, w, h) })
	m.pager.SetCursor(c, len(m.pager.Lines()))
}

// graphKey runs the graph's own keys; ok is false for the pager's.
func (m *Model) graphKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(k, m.GraphKeyMap.Add):
		if len(m.graph.specs) >= iograph.MaxSeries {
			m.note = fmt.Sprintf("at most %d series: d drops the last", iograph.MaxSeries)
			return nil, true
		}
		m.bar.SetWords(append([]string{"messages", "bytes", "sum(", "mean(", "min(", "max("}, m.words()...))
		m.bar.Open(filterbar.Series)
	case key.Matches(k, m.GraphKeyMap.Drop):
		if len(m.graph.specs) <= 1 {
			m.note = "the graph keeps one series at least"
			return nil, true
		}
		g := m.graph
		g.specs = g.specs[: len(g.specs)-1 : len(g.specs)-1]
		return m.read(graphCmd(m.src, m.cfg.Parse, g)), true
	case key.Matches(k, m.GraphKeyMap.Write):
		m.bar.OpenWrite(graphCSVPath(m.cfg.ExportPath)) // writeStep, then writeGraph
	default:
		return nil, false
	}
	return nil, true
}

// addSeries reads the listed messages again with one more series.
func (m *Model) addSeries(spec string) tea.Cmd {
	g := m.graph
	g.specs = append(g.specs[:len(g.specs):len(g.specs)], iograph.ParseSpec(spec))
	return m.read(graphCmd(m.src, m.cfg.Parse, g))
}

// graphCSVPath is the name w offers for the graph's CSV: the export's
// name with -iograph.csv for its extension.
func graphCSVPath(export string) string {
	if export == "" {
		return "iograph.csv"
	}
	return strings.TrimSuffix(export, filepath.Ext(export)) + "-iograph.csv"
}

// writeGraph writes the graph's CSV at the interval it draws at this
// width, in a command.
func (m *Model) writeGraph(path string) tea.Cmd {
	d := m.graph.data
	if d == nil {
		m.note = "no graph to write"
		return nil
	}
	b := iograph.Binning(d, m.w)
	var specs []string
	for _, s := range d.Series {
		specs = append(specs, "--series "+shellQuote(s.Spec.String()))
	}
	same := fmt.Sprintf("as usmnscope stats --interval %s %s --csv", b.Interval, strings.Join(specs, " "))
	m.note = "writing " + termsafe.Escape(path) + "…"
	return func() tea.Msg {
		f, err := os.Create(path)
		if err != nil {
			return graphWrittenMsg{path: path, err: err}
		}
		err = b.WriteCSV(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return graphWrittenMsg{path: path, err: err,
			note: fmt.Sprintf("wrote %d intervals of %s to %s (%s)", b.N, b.Interval, path, same)}
	}
}

// graphWritten says what was written.
func (m *Model) graphWritten(msg graphWrittenMsg) {
	if msg.err != nil {
		m.note = "CSV not written: " + termsafe.Escape(msg.err.Error())
		return
	}
	m.note = termsafe.Escape(msg.note)
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"\\$`!*?[]{}()<>|&;~#=") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
