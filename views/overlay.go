package views

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/expert"
	"github.com/usmnscope/usmnscope/views/follow"
	"github.com/usmnscope/usmnscope/views/frame"
	"github.com/usmnscope/usmnscope/views/pager"
)

// Overlay names what the pager shows over the panes.
type Overlay uint8

const (
	NoOverlay Overlay = iota
	HelpOverlay
	ExpertOverlay
	FollowOverlay
	GraphOverlay
	TextOverlay
	StatsOverlay // the statistics pane (statsview.go), not the pager
)

// expertLimit bounds the messages the expert scan reads for their
// findings; past it the view says it stopped.
const expertLimit = 1 << 20

// headLister is a Source that gives Heads in bulk without records
// (session.Index.Heads): the expert scan reads only the messages whose
// Head says they have findings.
type headLister interface {
	Heads(dst []session.Head, from int) []session.Head
}

// headBatch is how many Heads the expert scan reads under one lock.
const headBatch = 4096

// Overlay returns the overlay shown.
func (m Model) Overlay() Overlay { return m.over }

// Pager exposes the overlay to tests.
func (m Model) Pager() pager.Model { return m.pager }

// Note returns the last feedback line (copied, written, paused, past the end).
func (m Model) Note() string { return m.note }

// openOverlay shows lines in the pager; what must be read first arrives
// as a message (read runs it at once when no file is behind the source).
// build makes the lines for a width and height; a new window size builds
// them again (wrapping, the graph's columns).
func (m *Model) openOverlay(o Overlay, title string, build func(w, h int) []frame.Row) {
	m.over, m.build = o, build
	m.layout()
	m.pager.SetLines(title, build(m.w, m.pager.Height()))
}

// rebuild fits the open overlay to a new size, keeping its cursor.
func (m *Model) rebuild() {
	if m.over == NoOverlay || m.build == nil {
		return
	}
	c := m.pager.Cursor()
	lines := m.build(m.w, m.pager.Height())
	m.pager.SetLines(m.pager.Title, lines)
	m.pager.SetCursor(c, len(lines))
}

// overlayMsg carries lines built off the UI goroutine.
type overlayMsg struct {
	o     Overlay
	title string
	lines func(w, h int) []frame.Row
	at    int // the message whose first line the cursor opens on (0: the top)
}

// missingFindings are a connection's missing listeners as of the end of
// the capture, one warning each (issue 30: the expert view did not list
// them; a listener one side lacks is why module messages vanish): the
// client IDs the server said it has no listener for, and the server IDs
// the client said it lacks, with the type the tables know them by.
func missingFindings(t *session.Tables) []dissect.Finding {
	if t == nil {
		return nil
	}
	var out []dissect.Finding
	for _, id := range t.MissingOnServer {
		what := fmt.Sprintf("client listener ID %d", id)
		for _, e := range t.Client {
			if e.ID == id {
				what = fmt.Sprintf("%s v%d (client ID %d)", termsafe.Escape(e.Type), e.Version, id)
			}
		}
		out = append(out, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
			Text: "missing on the server: " + what + ": the server said it has no such listener (TellClientMissingListener)"})
	}
	for _, id := range t.MissingOnClient {
		what := fmt.Sprintf("server listener ID %d", id)
		for _, e := range t.Server {
			if e.ID == id {
				what = fmt.Sprintf("%s v%d (server ID %d)", termsafe.Escape(e.Type), e.Version, id)
			}
		}
		out = append(out, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
			Text: "missing on the client: " + what + ": the client said it has no such listener (TellServerMissingListener)"})
	}
	return out
}

// expertCmd reads every message's findings (the capture file may be read)
// and joins them to the capture's and the connections'.
func expertCmd(src Source, n int) tea.Cmd {
	return func() tea.Msg {
		var items []expert.Item
		for _, f := range src.Findings() {
			items = append(items, expert.Item{Finding: f})
		}
		for _, c := range src.Connections() {
			conn := c.Conn
			for _, f := range c.Findings {
				items = append(items, expert.Item{Finding: f, Conn: &conn})
			}
			for _, f := range missingFindings(src.Tables(c.Conn, 0)) {
				items = append(items, expert.Item{Finding: f, Conn: &conn})
			}
		}
		cut := n > expertLimit
		hl, _ := src.(headLister)
		var heads []session.Head
		if hl != nil {
			heads = make([]session.Head, 0, min(n, headBatch))
		}
		for i := 1; i <= min(n, expertLimit); i++ {
			if hl != nil {
				// A message whose Head has no finding is not decoded
				// again for none (issue 28: a million ULinkRPC frames
				// were; session.Index.Head: only a read of the capture
				// file failing later is not foreseen, which the
				// message's detail reports).
				k := (i - 1) % headBatch
				if k == 0 {
					heads = hl.Heads(heads[:0], i)
				}
				if k >= len(heads) || !heads[k].HasFinding {
					continue
				}
			}
			msg := src.Message(i)
			if msg == nil {
				continue
			}
			for _, f := range frame.Findings(msg) {
				items = append(items, expert.Item{Finding: f, Msg: i})
			}
		}
		title := fmt.Sprintf("Expert info  %d findings", len(items))
		if cut {
			title += fmt.Sprintf(" (messages after %d not read)", expertLimit)
		}
		return overlayMsg{o: ExpertOverlay, title: title, lines: func(w, _ int) []frame.Row { return expert.Lines(items, w) }}
	}
}

// followCmd reads the messages of one connection; the view opens at
// message at, the selection (issue 30: it opened at the connection's first
// message), and when the connection has more than follow.Limit messages
// the ones read start far enough before it to hold it.
func followCmd(src Source, c dissect.Conn, nums []int, at int) tea.Cmd {
	return func() tea.Msg {
		more := len(nums) > follow.Limit
		if i := slices.Index(nums, at); i >= follow.Limit {
			nums = nums[i-follow.Limit/2:]
		}
		nums = nums[:min(len(nums), follow.Limit)]
		msgs := make([]*session.Message, 0, len(nums))
		for _, n := range nums {
			if msg := src.Message(n); msg != nil {
				msgs = append(msgs, msg)
			}
		}
		var t0 = msgs0(src)
		return overlayMsg{o: FollowOverlay, title: "Follow " + c.String(), lines: func(int, int) []frame.Row { return follow.Lines(msgs, t0, more) }, at: at}
	}
}

// exportedMsg reports a pcapng written by Config.Export.
type exportedMsg struct {
	path    string
	packets int
	err     error
}

// exportCmd has the CLI write the listed messages' packets from the
// capture file into a pcapng.
func exportCmd(export ExportFunc, path string, nums []int) tea.Cmd {
	return func() tea.Msg {
		k, err := export(nums, path)
		return exportedMsg{path: path, packets: k, err: err}
	}
}

func msgs0(src Source) (t0 time.Time) {
	if _, t, ok := src.Stamp(1); ok {
		return t
	}
	return t0
}

// listed returns the message numbers the list shows (the current
// connection and filter).
func (m *Model) listed() []int {
	out := make([]int, m.msgs.Len())
	for i := range out {
		out[i] = m.msgs.Number(i)
	}
	return out
}

// osc52Said is what the note says of an OSC 52 copy: the terminal is
// asked, and no answer comes back, so whether the clipboard took it is not
// known (tmux drops it unless set-clipboard is on; issue 30: the note said
// "copied" when it had not been).
const osc52Said = "to the clipboard by OSC 52 (the terminal may ignore it; tmux: set-clipboard on)"

// copyCmd copies the selected field's value, or the selected message's
// bytes in hex: to Config.CopyCommand's standard input when the config
// file names one (copy.go), else to the clipboard with OSC 52
// (tea.SetClipboard): the only escape sequence besides styling that the
// TUI writes, and only here.
func (m *Model) copyCmd() tea.Cmd {
	msg := m.detail.Message()
	if msg == nil {
		m.note = "nothing to copy: no message selected"
		return nil
	}
	data, fields := frame.Bytes(msg)
	what, text := fmt.Sprintf("message %d (%s as hex)", msg.N, dissect.Count(len(data), "byte")), ""
	if m.focus == FocusDetail || m.focus == FocusBits {
		if f := m.detail.SelectedField(); f >= 0 && f < len(fields) {
			what, text = "the value of "+termsafe.Escape(fields[f].Name), dissect.FormatValue(fields[f].Value, dissect.TreeValues)
		}
	}
	if text == "" {
		text = hex.EncodeToString(data)
	}
	if len(m.cfg.CopyCommand) > 0 {
		m.note = "copying " + what + "…"
		return runCopy(m.cfg.CopyCommand, what, text)
	}
	m.note = fmt.Sprintf("sent %s %s", what, osc52Said)
	return tea.SetClipboard(text)
}

// textLines is the full text of what is selected, wrapped: the detail
// line, the tables line, or the whole field tree of the message.
func (m *Model) textLines(w int) (string, []frame.Row) {
	var src []string
	title := "Text"
	switch m.focus {
	case FocusDetail:
		if c := m.detail.Cursor(); c < len(m.detail.Lines()) {
			src, title = []string{strings.TrimSpace(m.detail.Lines()[c])}, "Field"
		}
	case FocusTables:
		if c := m.tables.Cursor(); c < len(m.tables.Lines()) {
			src, title = []string{strings.TrimSpace(m.tables.Lines()[c])}, "Tables line"
		}
	}
	if src == nil {
		src = m.detail.Lines()
		if msg := m.detail.Message(); msg != nil {
			title = fmt.Sprintf("Message %d", msg.N)
			src = append(src, "summary: "+frame.Summary(msg))
		}
	}
	var out []frame.Row
	for _, s := range src {
		for _, l := range frame.Wrap(s, w-2) {
			out = append(out, frame.Row{Text: " " + l})
		}
	}
	return title, out
}
