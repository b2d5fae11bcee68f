package stats

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/stats/report"
)

// Column is a column of the table, each sortable.
type Column int

const (
	ColKey Column = iota
	ColDir
	ColMessages
	ColBytes
	ColShare
	ColHeader
	ColDefinition
	ColPayload
	ColPadding
	ColPeak
	nColumns
)

var columnNames = [...]string{"KEY", "DIR", "MSGS", "BYTES", "SHARE", "HEADER", "DEF", "PAYLOAD", "PAD", "PEAK BPS"}

func (c Column) String() string {
	if c >= 0 && c < nColumns {
		return columnNames[c]
	}
	return "Unknown(" + strconv.Itoa(int(c)) + ")"
}

// KeyMap holds the pane's bindings.
type KeyMap struct {
	Up, Down, NextBy, SortNext, SortPrev, Reverse, Filter key.Binding
}

// DefaultKeyMap returns vim-like bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("k/↑", "up")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("j/↓", "down")),
		NextBy:   key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "next grouping")),
		SortNext: key.NewBinding(key.WithKeys(">", "right"), key.WithHelp(">", "sort by next column")),
		SortPrev: key.NewBinding(key.WithKeys("<", "left"), key.WithHelp("<", "sort by previous column")),
		Reverse:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reverse order")),
		Filter:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "filter messages to group")),
	}
}

func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.SortNext, k.NextBy, k.Filter} }
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.NextBy}, {k.SortNext, k.SortPrev, k.Reverse, k.Filter}}
}

// Styles of the pane.
type Styles struct {
	Title, Header, Selected, Bar lipgloss.Style
}

// DefaultStyles returns bold titles and a reversed selection (they
// survive NO_COLOR).
func DefaultStyles() Styles {
	return Styles{
		Title:    lipgloss.NewStyle().Bold(true),
		Header:   lipgloss.NewStyle().Bold(true),
		Selected: lipgloss.NewStyle().Reverse(true),
		Bar:      lipgloss.NewStyle(),
	}
}

// FilterMsg asks the root model to filter the message list with Expr.
type FilterMsg struct{ Expr string }

// Model is the statistics pane.
type Model struct {
	KeyMap KeyMap
	Styles Styles

	res  *report.Result
	by   int // index into res.By
	rows []*report.GroupResult
	sel  int
	top  int
	sort Column
	asc  bool
	w, h int
}

// New returns a pane drawing res (nil: nothing yet), sorted by bytes,
// largest first.
func New(res *report.Result) Model {
	m := Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), sort: ColBytes, w: 80, h: 24}
	m.SetResult(res)
	return m
}

// SetResult replaces what the pane draws, keeping grouping and order.
func (m *Model) SetResult(res *report.Result) {
	m.res = res
	if res != nil && m.by >= len(res.By) {
		m.by = 0
	}
	m.load()
}

// SetSize sets the pane's size in cells.
func (m *Model) SetSize(w, h int) { m.w, m.h = max(w, 20), max(h, 6) }

// By is the grouping shown.
func (m Model) By() (report.By, bool) {
	if m.res == nil || len(m.res.By) == 0 {
		return 0, false
	}
	return m.res.By[m.by], true
}

// Sort is the sort column and whether it ascends.
func (m Model) Sort() (Column, bool) { return m.sort, m.asc }

// Selected is the selected group.
func (m Model) Selected() (*report.GroupResult, bool) {
	if m.sel < 0 || m.sel >= len(m.rows) {
		return nil, false
	}
	return m.rows[m.sel], true
}

// load takes the rows of the grouping and sorts them.
func (m *Model) load() {
	m.rows = m.rows[:0]
	by, ok := m.By()
	if !ok {
		return
	}
	for i := range m.res.Groups {
		if g := &m.res.Groups[i]; g.By == by {
			m.rows = append(m.rows, g)
		}
	}
	m.sortRows()
}

func (m *Model) sortRows() {
	slices.SortStableFunc(m.rows, func(a, b *report.GroupResult) int {
		c := compare(a, b, m.sort)
		if !m.asc {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(a.Key, b.Key), cmp.Compare(a.Dir, b.Dir))
	})
	m.sel, m.top = min(m.sel, max(len(m.rows)-1, 0)), 0
}

func compare(a, b *report.GroupResult, c Column) int {
	switch c {
	case ColKey:
		return cmp.Compare(a.Key, b.Key)
	case ColDir:
		return cmp.Compare(a.Dir, b.Dir)
	case ColMessages:
		return cmp.Compare(a.Messages, b.Messages)
	case ColShare, ColBytes:
		return cmp.Compare(a.Bytes, b.Bytes)
	case ColHeader:
		return cmp.Compare(a.Bits[report.Header], b.Bits[report.Header])
	case ColDefinition:
		return cmp.Compare(a.Bits[report.Definition], b.Bits[report.Definition])
	case ColPayload:
		return cmp.Compare(a.Bits[report.Payload], b.Bits[report.Payload])
	case ColPadding:
		return cmp.Compare(a.Bits[report.Padding], b.Bits[report.Padding])
	case ColPeak:
		return cmp.Compare(a.PeakBPS, b.PeakBPS)
	}
	return 0
}

// Update handles the pane's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	switch {
	case key.Matches(k, m.KeyMap.Down):
		m.sel = min(m.sel+1, max(len(m.rows)-1, 0))
	case key.Matches(k, m.KeyMap.Up):
		m.sel = max(m.sel-1, 0)
	case key.Matches(k, m.KeyMap.NextBy):
		if m.res != nil && len(m.res.By) > 0 {
			m.by = (m.by + 1) % len(m.res.By)
			m.sel = 0
			m.load()
		}
	case key.Matches(k, m.KeyMap.SortNext), key.Matches(k, m.KeyMap.SortPrev):
		d := Column(1)
		if key.Matches(k, m.KeyMap.SortPrev) {
			d = nColumns - 1
		}
		m.sort = (m.sort + d) % nColumns
		m.asc = m.sort == ColKey || m.sort == ColDir // text ascends, figures descend
		m.sortRows()
	case key.Matches(k, m.KeyMap.Reverse):
		m.asc = !m.asc
		m.sortRows()
	case key.Matches(k, m.KeyMap.Filter):
		if g, ok := m.Selected(); ok {
			expr := FilterExpr(g)
			return m, func() tea.Msg { return FilterMsg{Expr: expr} }
		}
	}
	return m, nil
}

// quote is a filter string value (filter: "…" with Go escapes).
func quote(s string) string { return strconv.Quote(s) }

// FilterExpr is the display filter that selects g's messages.
func FilterExpr(g *report.GroupResult) string {
	dir := " && dir==" + g.Dir.String() + " && proto==" + g.Proto.String()
	none := g.Key == report.None
	switch g.By {
	case report.ByConn:
		return "conn==" + quote(g.Key) + dir
	case report.ByDir:
		return "dir==" + g.Dir.String() + " && proto==" + g.Proto.String()
	case report.ByKind:
		return "msg==" + quote(g.Key) + dir
	case report.ByListener:
		// A field the message lacks never matches ~"" (filter).
		usmn := "(msg==InvokeMessageListener || msg==NegotiateListenerDetails)"
		switch g.Key {
		case report.None:
			return "!" + usmn + dir
		case report.Unresolved:
			return usmn + ` && !(listener~"")` + dir
		}
		return "listener==" + quote(g.Key) + dir
	case report.ByMessage:
		if none {
			return `!(payload_message~"")` + dir
		}
		return "payload_message==" + quote(g.Key) + dir
	case report.ByMethod:
		if none {
			return `!(service_id>=-2147483648) && !(payload_method~"")` + dir
		}
		if g.Proto == report.Unturned {
			return "payload_method==" + quote(g.Key) + dir
		}
		svc, meth, _ := strings.Cut(g.Key, ".")
		return idOrName("service", svc) + " && " + idOrName("method", meth) + dir
	}
	return "n>0" + dir
}

// idOrName is `service==X` for a name, `service_id==1` for `(1)`.
func idOrName(field, s string) string {
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		return field + "_id==" + s[1:len(s)-1]
	}
	return field + "==" + quote(s)
}

// histRows is the histogram's height (title and bars).
const histRows = 7

// View draws the pane: a title, the table and the selected group's
// latency histogram.
func (m Model) View() string {
	var b strings.Builder
	by, ok := m.By()
	if !ok {
		return m.fit([]string{m.Styles.Title.Render("statistics: computing…")})
	}
	arrow := "↓"
	if m.asc {
		arrow = "↑"
	}
	lines := []string{m.Styles.Title.Render(fmt.Sprintf("statistics by %s, sorted by %s %s: %d messages, %d bytes  (b </> r enter)",
		by, m.sort, arrow, m.res.Messages, m.res.Bytes))}
	keyW := max(m.w-rowWidth, 8)
	lines = append(lines, m.Styles.Header.Render(m.row(keyW, columnNames[:])))
	tableH := max(m.h-2-histRows, 1)
	top := m.top
	if m.sel >= top+tableH {
		top = m.sel - tableH + 1
	}
	if m.sel < top {
		top = m.sel
	}
	for i := top; i < len(m.rows) && i < top+tableH; i++ {
		g := m.rows[i]
		cells := []string{termsafe.Escape(g.Key), g.Dir.String(), strconv.Itoa(g.Messages), strconv.FormatInt(g.Bytes, 10),
			fmt.Sprintf("%.1f%%", 100*g.Share), strconv.FormatInt(g.Bits[report.Header], 10), strconv.FormatInt(g.Bits[report.Definition], 10),
			strconv.FormatInt(g.Bits[report.Payload], 10), strconv.FormatInt(g.Bits[report.Padding], 10), strconv.FormatInt(g.PeakBPS, 10)}
		line := m.row(keyW, cells)
		if i == m.sel {
			line = m.Styles.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	for len(lines) < 2+tableH {
		lines = append(lines, "")
	}
	lines = append(lines, m.histogram()...)
	b.WriteString(m.fit(lines))
	return b.String()
}

// widths are the columns' widths after the key; rowWidth their sum.
var widths = [...]int{0, 4, 6, 8, 7, 7, 6, 8, 5, 9}

const rowWidth = 4 + 6 + 8 + 7 + 7 + 6 + 8 + 5 + 9

// row lays out the cells: the key left in keyW cells, the rest right.
func (m Model) row(keyW int, cells []string) string {
	var b strings.Builder
	b.WriteString(ansi.Truncate(fmt.Sprintf("%-*s", keyW, cells[0]), keyW, "…"))
	for i := 1; i < len(cells); i++ {
		fmt.Fprintf(&b, "%*s", widths[i], cells[i])
	}
	return b.String()
}

// histogram draws the latencies of the selected group's pairs: the first
// key's, in bins across the width.
func (m Model) histogram() []string {
	g, ok := m.Selected()
	var ls []*report.Latency
	if ok {
		ls = m.res.LatenciesOf(g.Group)
	}
	if len(ls) == 0 {
		return []string{m.Styles.Title.Render("latency: none for this group (pings, listener-ID requests, ULinkRPC requests and keep-alives)")}
	}
	l := ls[0]
	s := l.Summary
	out := []string{m.Styles.Title.Render(fmt.Sprintf("latency %s %s: %d, median %s, p99 %s, max %s",
		termsafe.Escape(l.Name()), l.Conn, s.Count, ms(s.Median), ms(s.P99), ms(s.Max)))}
	bins := max(min(m.w/3, 32), 1)
	cell := max(m.w/bins-1, 1) // a bar's width; one blank between bars
	lo, width, counts := l.Histogram(bins)
	peak := slices.Max(counts)
	const barH = histRows - 2
	for r := barH; r >= 1; r-- {
		var b strings.Builder
		for _, c := range counts {
			if c*barH >= r*peak && c > 0 {
				b.WriteString(strings.Repeat("█", cell) + " ")
			} else {
				b.WriteString(strings.Repeat(" ", cell+1))
			}
		}
		out = append(out, m.Styles.Bar.Render(b.String()))
	}
	hi := lo + width*time.Duration(len(counts))
	out = append(out, fmt.Sprintf("%-*s%s", max(m.w-len(ms(hi)), 0), ms(lo), ms(hi)))
	return out
}

// ms is a latency as milliseconds with 3 decimals.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) + " ms"
}

// fit cuts the lines to the pane's size.
func (m Model) fit(lines []string) string {
	if len(lines) > m.h {
		lines = lines[:m.h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.w, "")
	}
	for len(lines) < m.h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
