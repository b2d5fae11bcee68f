package views

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/bits"
	"github.com/usmnscope/usmnscope/views/conns"
	"github.com/usmnscope/usmnscope/views/detail"
	"github.com/usmnscope/usmnscope/views/filterbar"
	"github.com/usmnscope/usmnscope/views/frame"
	"github.com/usmnscope/usmnscope/views/messages"
	"github.com/usmnscope/usmnscope/views/pager"
	statspane "github.com/usmnscope/usmnscope/views/stats"
	"github.com/usmnscope/usmnscope/views/status"
	"github.com/usmnscope/usmnscope/views/tables"
)

// Focus names the pane that receives keys.
type Focus uint8

const (
	FocusConns Focus = iota
	FocusMessages
	FocusDetail
	FocusBits
	FocusTables
)

var focusNames = [...]string{"conns", "messages", "detail", "bits", "tables"}

func (f Focus) String() string { return enum.Name(focusNames[:], f) }

// scanBudget is how many messages one update may index or test against a
// filter: small enough that a key press never waits on a full pass.
const scanBudget = 5000

// indexBudget is how many messages one background update indexes by
// connection (index.step): reading stamps in batches costs tens of
// nanoseconds a message, so a larger slice still keeps a key press
// waiting well under a frame, and a million-message load takes a few dozen
// updates (each with its frame) instead of two hundred (issue 18).
const indexBudget = 1 << 16

// progressBudget is how many new messages the update of a progress
// message indexes by connection before its frame. Progress comes at most
// ten times a second for a file, and indexing a message costs a tenth of
// decoding it or less, so what was decoded in between indexes at once:
// a million-message load drew two to three frames a progress message
// with indexBudget, each a View and a diff of the screen (issue 28). The
// bound keeps an update after a long stall (a backlog of progress) short.
const progressBudget = 1 << 19

// syncBudget is the work done in the update that brings new data or a new
// filter, before its frame: a small capture is complete at once (and its
// screens deterministic); a large one continues in later updates.
const syncBudget = 500

// ProgressMsg tells the UI that more of the capture was read; the feeding
// goroutine sends it (throttled) through Program.Send. Fraction is the part
// of the input read, or negative when unknown (live, pipes).
type ProgressMsg struct {
	Fraction float64
	Done     bool
	Err      error
}

// LiveMsg carries live-capture counters.
type LiveMsg struct {
	PacketsPerS float64
	Drops       uint64
}

type scanMsg struct{}

// Model is the root model: layout, focus and routing. State of selection,
// scroll and expansion lives in the panes.
type Model struct {
	KeyMap KeyMap
	// GraphKeyMap holds the I/O graph overlay's keys (graphview.go).
	GraphKeyMap GraphKeyMap

	src  Source
	cfg  Config
	cols colState // the message list's column sets (columns.go)
	dark bool
	// deferDetail makes fetch return the detail read as a command (see
	// Update); it is set only while Update runs.
	deferDetail bool

	conns  conns.Model
	msgs   messages.Model
	detail detail.Model
	stats  statspane.Model // the statistics pane (issue 26), shown as StatsOverlay
	bits   bits.Model
	tables tables.Model
	bar    filterbar.Model
	status status.Styles
	help   help.Model
	pager  pager.Model
	over   Overlay
	build  func(w, h int) []frame.Row // the open overlay's lines at a size
	note   string                     // feedback on the last action, in the status bar
	miss   map[dissect.Conn]int
	// markedOnly lists the marked messages only (M).
	markedOnly bool
	// pendingWrite is the file w asks whether to replace.
	pendingWrite string
	graph        graphState // the I/O graph's series (graphview.go)
	// listenerTypes are the listener types of every connection's final
	// tables, which the filter bar completes (missingMsg).
	listenerTypes []string

	focus      Focus
	showTables bool

	n        int // messages shown (frozen while paused)
	idx      *index
	scanning bool
	conn     dissect.Conn
	allConns bool
	selected int
	listener *tables.ListenerMsg
	filter   func(*session.Message) bool
	// filterHead is filter's test of a message's index record alone, nil
	// when it reads more (setFilter).
	filterHead func(session.Head) bool

	loading  bool
	progress float64
	err      string
	paused   bool
	live     LiveMsg

	w, h int

	first tea.Cmd // New's reads, when they need the capture file (Init)

	// connList are the connection summaries as of connVer, brought up to
	// date by refresh (Source.ConnectionsSince): a render reads them and
	// takes no lock.
	connList []session.ConnInfo
	connVer  uint64
	capWorst dissect.Severity // the capture findings' worst, as of refresh
	capHas   bool
}

// New returns the root model over src.
func New(src Source, cfg Config) Model {
	m := Model{
		KeyMap: DefaultKeyMap(), GraphKeyMap: DefaultGraphKeyMap(), src: src, cfg: cfg,
		conns: conns.New(), msgs: messages.New(src, messages.All(0)),
		detail: detail.New(), bits: bits.New(), tables: tables.New(),
		bar: filterbar.New(filterbar.ParseFunc(cfg.Parse)), help: help.New(), pager: pager.New(), stats: statspane.New(nil),
		idx: newIndex(), allConns: true, loading: true, progress: -1,
		focus: FocusMessages, w: 80, h: 24,
	}
	m.msgs.Title = "all"
	m.msgs.ConnLabel = m.conns.Label
	m.setStyles(true)
	m.msgs.SetFollow(cfg.Live)
	m.startFilter()
	m.initColumns()
	if err := m.rebind(cfg.Keys); err != nil {
		m.note = "keys: " + termsafe.Escape(err.Error()) // the CLI checks them first
	}
	m.refresh()
	m.setFocus(FocusMessages)
	m.layout()
	m.first = m.fetch()
	return m
}

// Init asks for the terminal background so the styles can match it, and
// for what the first screen shows when the source reads the capture file.
func (m Model) Init() tea.Cmd { return tea.Batch(tea.RequestBackgroundColor, m.first) }

// Focused returns the focused pane.
func (m Model) Focused() Focus { return m.focus }

// Selected returns the selected message number.
func (m Model) Selected() int { return m.selected }

// refresh takes in what the source has read so far.
func (m *Model) refresh() {
	if m.paused {
		return
	}
	m.n = m.src.Len()
	if m.n > 0 && m.msgs.Len() == 0 {
		if _, t, ok := m.src.Stamp(1); ok {
			m.msgs.SetStart(t)
		}
	}
	m.msgs.Invalidate()
	m.connList, m.connVer = m.src.ConnectionsSince(m.connList, m.connVer)
	m.capWorst, m.capHas = m.src.CaptureWorst()
	m.conns.SetConnections(m.connList, m.n)
	m.conns.SetMissing(m.miss)
	m.msgs.SetRows(m.rows(), false)
	m.layout()
}

func (m *Model) rows() messages.Rows {
	if m.allConns {
		return messages.All(m.n)
	}
	return m.idx.rows(m.conn)
}

// step does one bounded slice of background work (indexing, filtering)
// and re-arms itself while work remains. A filter scan that reads the
// capture file runs as a command; its ScannedMsg re-arms the next one.
func (m *Model) step(budget int) tea.Cmd {
	return m.stepIndex(budget, budget)
}

// stepIndex is step indexing up to index messages by connection.
func (m *Model) stepIndex(budget, index int) tea.Cmd {
	more := m.idx.step(m.src, m.n, index)
	m.conns.SetSpark(m.idx.spark)
	if !m.allConns {
		m.msgs.SetRows(m.rows(), false)
	}
	var scan tea.Cmd
	if cmd := m.msgs.Scan(budget); cmd != nil {
		scan = m.read(cmd)
		more = more || scan == nil && m.msgs.Scanning()
	}
	if !more {
		return m.withSort(scan)
	}
	return tea.Batch(m.withSort(scan), m.kick())
}

// kick schedules background work for after this frame, so that an update
// that brings new data renders first and indexes later.
func (m *Model) kick() tea.Cmd {
	if m.scanning {
		return nil
	}
	m.scanning = true
	return func() tea.Msg { return scanMsg{} }
}

func (m *Model) setFocus(f Focus) {
	m.focus = f
	m.conns.Blur()
	m.msgs.Blur()
	m.detail.Blur()
	m.bits.Blur()
	m.tables.Blur()
	switch f {
	case FocusConns:
		m.conns.Focus()
	case FocusMessages:
		m.msgs.Focus()
	case FocusDetail:
		m.detail.Focus()
	case FocusBits:
		m.showTables = false
		m.bits.Focus()
	case FocusTables:
		m.showTables = true
		m.tables.Focus()
	}
}

// cycle moves focus through the visible panes.
func (m *Model) cycle(d int) {
	order := []Focus{FocusConns, FocusMessages, FocusDetail, FocusBits}
	if m.showTables {
		order[3] = FocusTables
	}
	i := 0
	for j, f := range order {
		if f == m.focus {
			i = j
		}
	}
	m.setFocus(order[(i+d+len(order))%len(order)])
}

// selectConn shows the messages of conn (all when !ok).
func (m *Model) selectConn(c dissect.Conn, ok bool) {
	if ok == !m.allConns && c == m.conn {
		return
	}
	m.conn, m.allConns = c, !ok
	m.msgs.Title = "all"
	m.msgs.ConnLabel = m.conns.Label
	if ok {
		m.msgs.ConnLabel = nil
		m.msgs.Title = termsafe.Escape(c.String())
	}
	m.msgs.SetRows(m.rows(), true)
}

// Update routes a message: data and timing first, then global keys, then
// the focused pane; then it asks for what the screen shows that was not
// read yet (fetch).
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.update(msg)
	nm := next.(Model)
	// While a capture loads, a progress redraw asks for a new selection's
	// detail as a command even when it reads memory only: the frame that
	// shows the fresh rows comes first, the detail with the next message.
	nm.deferDetail = isLoading(msg)
	fetch := nm.fetch()
	nm.deferDetail = false
	return nm, tea.Batch(cmd, fetch)
}

// isLoading reports a progress message of a capture not read whole yet.
func isLoading(msg tea.Msg) bool {
	p, ok := msg.(ProgressMsg)
	return ok && !p.Done
}

func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case detailMsg:
		m.show(msg)
		return m, nil
	case overlayMsg, exportedMsg, missingMsg, statsMsg, graphMsg, graphWrittenMsg:
		m.apply(msg)
		return m, nil
	case statspane.FilterMsg:
		m.statsFilter(msg)
		return m, m.step(syncBudget)
	case pager.JumpMsg:
		m.jump(msg)
		return m, nil
	case messages.RowsMsg, messages.SortedMsg, noteMsg, foundMsg:
		m.apply(msg)
		return m, nil
	case messages.ScannedMsg:
		// A scan read from the file: its next slice starts at once, off
		// this goroutine while this update's frame is drawn (one frame a
		// slice, not two: issue 28, a filter over a million ULinkRPC frames
		// drew 400 frames), and indexing goes on after the frame.
		m.apply(msg)
		return m, tea.Batch(m.msgs.Scan(scanBudget), m.kick())
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.layout()
		m.rebuild()
		return m, nil
	case tea.BackgroundColorMsg:
		m.setStyles(m.themeDark(msg.IsDark()))
		return m, nil
	case ProgressMsg:
		m.progress = msg.Fraction
		var tail tea.Cmd
		if msg.Done && m.loading {
			m.loading = false
			tail = m.read(missingCmd(m.src))
			if m.src.Len() == 0 && m.capHas && !m.cfg.Live {
				// Nothing decoded, but the capture says why (SNS UDP, no
				// game port…): show it rather than empty panes.
				tail = tea.Batch(tail, m.read(expertCmd(m.src, 0)))
			}
		}
		if msg.Err != nil {
			m.err = msg.Err.Error()
		}
		m.refresh()
		// New messages index by connection at once, up to progressBudget:
		// a background step for them would cost a frame of its own (a
		// million-message load drew twice as many frames as it had
		// progress updates, issue 28).
		return m, tea.Batch(tail, m.stepIndex(syncBudget, progressBudget))
	case LiveMsg:
		m.live = msg
		return m, nil
	case scanMsg:
		m.scanning = false
		return m, m.stepIndex(scanBudget, indexBudget)
	case filterbar.FilterMsg:
		m.setFilter(msg.Expr, msg.Match)
		m.applyFilter()
		return m, m.step(syncBudget)
	case filterbar.SeriesMsg:
		return m, m.addSeries(msg.Spec)
	case filterbar.WriteMsg, filterbar.ConfirmMsg, writeTargetMsg, filterbar.FindMsg:
		cmd := m.writeStep(msg)
		return m, cmd
	case filterbar.GotoMsg:
		m.gotoMsg(msg.N)
		return m, nil
	case tables.PendingMsg:
		m.gotoMsg(msg.N)
		return m, nil
	case tables.ListenerMsg:
		l := msg
		m.listener = &l
		m.conns.Select(msg.Conn)
		m.selectConn(msg.Conn, true)
		m.applyFilter()
		m.setFocus(FocusMessages)
		return m, m.step(syncBudget)
	case copiedMsg:
		m.note = msg.note()
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	case tea.MouseClickMsg:
		return m.mouse(msg, msg.Mouse(), true)
	case tea.MouseWheelMsg:
		return m.mouse(msg, msg.Mouse(), false)
	}
	return m, nil
}

func (m Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m.note = "" // a note answers the key before this one
	if m.bar.Mode() != filterbar.Off {
		var cmd tea.Cmd
		m.bar, cmd = m.bar.Update(k)
		return m.now(cmd)
	}
	if m.over == StatsOverlay {
		return m.statsKey(k)
	}
	if m.over != NoOverlay {
		return m.overlayKey(k)
	}
	if m.focus == FocusBits && key.Matches(k, m.bits.KeyMap.NextField) {
		return m.route(k) // w is the bits pane's next field there
	}
	switch {
	case key.Matches(k, m.KeyMap.Quit):
		return m, tea.Quit
	case key.Matches(k, m.KeyMap.NextPane):
		m.cycle(1)
	case key.Matches(k, m.KeyMap.PrevPane):
		m.cycle(-1)
	case key.Matches(k, m.KeyMap.Filter):
		m.bar.SetWords(m.words())
		m.bar.Open(filterbar.Filter)
	case key.Matches(k, m.KeyMap.Goto):
		m.bar.Open(filterbar.Goto)
	case key.Matches(k, m.KeyMap.Help):
		m.openOverlay(HelpOverlay, "Help: keys and symbols (esc closes)", func(w, _ int) []frame.Row { return m.helpLines(w) })
	case key.Matches(k, m.KeyMap.Expert, m.KeyMap.FollowConn, m.KeyMap.Graph, m.KeyMap.Copy, m.KeyMap.Write, m.KeyMap.Text):
		return m, m.action(k)
	case key.Matches(k, m.KeyMap.Stats):
		m.note = "computing statistics…"
		cmd := m.read(statsCmd(m.src, m.n))
		return m, cmd
	case key.Matches(k, m.KeyMap.Tables):
		if m.showTables {
			m.setFocus(FocusBits)
		} else {
			m.setFocus(FocusTables)
		}
	case key.Matches(k, m.KeyMap.Follow):
		m.paused = false
		m.refresh()
		m.msgs.SetFollow(true)
	case key.Matches(k, m.KeyMap.Pause):
		m.paused = !m.paused
		m.refresh()
		m.note = pauseNote(m.paused, m.loading)
	case key.Matches(k, m.KeyMap.Clear):
		m.setFilter("", nil)
		m.listener, m.markedOnly = nil, false
		m.bar.Clear()
		m.applyFilter()
	case m.focus == FocusMessages && key.Matches(k, m.KeyMap.Pair):
		m.jumpPair()
	case m.timeKey(k):
		return m, m.step(syncBudget) // a marked-only filter scans
	case m.columnKey(k):
		return m, tea.Batch(m.step(syncBudget), m.takeCmd())
	default:
		return m.route(k)
	}
	return m, nil
}

// route gives a message to the focused pane and propagates selections.
func (m Model) route(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.focus {
	case FocusConns:
		m.conns, cmd = m.conns.Update(msg)
		m.selectConn(m.conns.Selected())
		return m, tea.Batch(cmd, m.step(syncBudget))
	case FocusMessages:
		m.msgs, cmd = m.msgs.Update(msg)
	case FocusDetail:
		m.detail, cmd = m.detail.Update(msg)
		if f := m.detail.SelectedField(); f != m.bits.SelectedField() {
			m.bits.SelectField(f)
		}
	case FocusBits:
		before := m.bits.SelectedField()
		m.bits, cmd = m.bits.Update(msg)
		if f := m.bits.SelectedField(); f != before && f >= 0 {
			m.detail.SelectField(f)
		}
	case FocusTables:
		m.tables, cmd = m.tables.Update(msg)
		return m.now(cmd)
	}
	return m, cmd
}

// now applies at once the result of a pane's command that only carries a
// value (an accepted filter, a go-to, a chosen listener), so that the keys
// typed after it act on the new state; through the program loop it would
// arrive after them.
func (m Model) now(cmd tea.Cmd) (tea.Model, tea.Cmd) {
	if cmd == nil {
		return m, nil
	}
	return m.Update(cmd())
}

// Layout: connections and messages on top, detail and bits (or tables)
// side by side below, then the filter bar, status bar and help line.
type rect struct{ x, y, w, h int }

func (r rect) has(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

func (m Model) rects() (cn, ms, dt, br rect) {
	avail := max(m.h-3, 4)
	// The connections pane is as tall as its rows (title, all, each
	// connection), up to a third of the screen.
	ch := min(max(len(m.connList)+2, 3), max(avail/3, 3))
	mh := (avail - ch) / 2
	bh := avail - ch - mh
	lw := m.w / 2
	return rect{0, 0, m.w, ch}, rect{0, ch, m.w, mh}, rect{0, ch + mh, lw, bh}, rect{lw + 1, ch + mh, m.w - lw - 1, bh}
}

func (m *Model) layout() {
	cn, ms, dt, br := m.rects()
	m.conns.SetSize(cn.w, cn.h)
	m.msgs.SetSize(ms.w, ms.h)
	m.detail.SetSize(dt.w, dt.h)
	m.bits.SetSize(br.w, br.h)
	m.tables.SetSize(br.w, br.h)
	m.bar.SetWidth(m.w)
	m.help.SetWidth(m.w)
	m.pager.SetSize(m.w, cn.h+ms.h+dt.h)
	m.stats.SetSize(m.w, cn.h+ms.h+dt.h)
}

func (m Model) mouse(msg tea.Msg, at tea.Mouse, click bool) (tea.Model, tea.Cmd) {
	if m.over != NoOverlay {
		// The pager sits at the top left: coordinates are its own.
		var cmd tea.Cmd
		m.pager, cmd = m.pager.Update(msg)
		return m.now(cmd)
	}
	cn, ms, dt, br := m.rects()
	right := FocusBits
	if m.showTables {
		right = FocusTables
	}
	for _, p := range []struct {
		r rect
		f Focus
	}{{cn, FocusConns}, {ms, FocusMessages}, {dt, FocusDetail}, {br, right}} {
		if !p.r.has(at.X, at.Y) {
			continue
		}
		rel := tea.Mouse{X: at.X - p.r.x, Y: at.Y - p.r.y, Button: at.Button, Mod: at.Mod}
		prev := m.focus
		m.setFocus(p.f)
		var local tea.Msg = tea.MouseWheelMsg(rel)
		if click {
			local = tea.MouseClickMsg(rel)
		}
		next, cmd := m.route(local)
		if !click {
			nm := next.(Model)
			nm.setFocus(prev)
			return nm, cmd
		}
		return next, cmd
	}
	return m, nil
}

// View renders the whole screen.
func (m Model) View() tea.View {
	var b strings.Builder
	_, _, dt, br := m.rects()
	if m.over == StatsOverlay {
		b.WriteString(m.stats.View())
		b.WriteByte('\n')
	} else if m.over != NoOverlay {
		b.WriteString(m.pager.View())
		b.WriteByte('\n')
	} else {
		b.WriteString(m.conns.View())
		b.WriteByte('\n')
		b.WriteString(m.msgs.View())
		b.WriteByte('\n')
		left := strings.Split(m.detail.View(), "\n")
		rv := m.bits.View()
		if m.showTables {
			rv = m.tables.View()
		}
		right := strings.Split(rv, "\n")
		for i := 0; i < dt.h; i++ {
			l, r := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			b.WriteString(frame.Line(l, dt.w) + "│" + frame.Line(r, br.w))
			b.WriteByte('\n')
		}
	}
	extra := ""
	if m.listener != nil {
		extra = "listener: " + m.listener.Label
	}
	b.WriteString(m.bar.View(extra))
	b.WriteByte('\n')
	b.WriteString(status.View(m.status, m.statusInfo(), m.w))
	b.WriteByte('\n')
	b.WriteString(frame.Line(m.help.ShortHelpView(m.shortHelp()), m.w))
	v := tea.NewView(b.String())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "usmnscope " + termsafe.Escape(m.cfg.Name)
	return v
}

func (m Model) paneHelp() help.KeyMap {
	switch m.focus {
	case FocusConns:
		return m.conns.KeyMap
	case FocusDetail:
		return m.detail.KeyMap
	case FocusBits:
		return m.bits.KeyMap
	case FocusTables:
		return m.tables.KeyMap
	}
	return m.msgs.KeyMap
}

func (m Model) statusInfo() status.Info {
	in := status.Info{
		Name: m.cfg.Name, Messages: m.n, Loading: m.loading, Progress: m.progress,
		Live: m.cfg.Live, PacketsPerS: m.live.PacketsPerS, Drops: m.live.Drops,
		Paused: m.paused, Following: m.msgs.Following(), Err: m.err, Note: m.note,
	}
	in.Profile = m.src.ProfileName()
	in.Conns = len(m.connList)
	for _, c := range m.connList {
		if c.HasFinding && (!in.HasFinding || c.Worst > in.Worst) {
			in.Worst, in.HasFinding = c.Worst, true
		}
	}
	if m.capHas && (!in.HasFinding || m.capWorst > in.Worst) {
		in.Worst, in.HasFinding = m.capWorst, true
	}
	return in
}
