package messages

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// The rows shown are drawn from messages that a command read (Load): View
// reads nothing itself, since reading a message may read the capture file
// back. Only the rows in view are kept, and of each only what its row
// draws: a message read whole can hold a payload of a mebibyte (an
// inflated ULinkRPC frame), and a list of a hundred such rows held whole
// would be most of the TUI's memory (issue 29).

// RowsMsg carries the rows read for the rows shown.
type RowsMsg struct {
	epoch   uint32
	settled int // messages 1..settled were final when read
	nums    []int
	rows    []row
}

// row is what the list draws of one message, taken from it when it was
// read.
type row struct {
	ok      bool // the source had the message
	sev     dissect.Severity
	flagged bool // the message has a finding (of severity sev at worst)
	dir     dissect.Dir
	name    string // escaped, with ⁺ when read at the widened enum width
	conn    dissect.Conn
	time    time.Time
	cols    map[string]string // each column field read: its escaped text
	summary string            // escaped
}

// rowOf takes what the list draws from msg, the columns' fields
// included.
func rowOf(msg *session.Message, fields []string, lookup LookupFunc) row {
	if msg == nil {
		return row{}
	}
	r := row{ok: true, dir: msg.Dir, name: frame.Name(msg), conn: msg.Conn, time: msg.Time, summary: frame.Summary(msg)}
	r.sev, r.flagged = frame.Worst(msg)
	if msg.Enum.Widened {
		r.name += "⁺" // read with the widened enum width (wire.md 4.2)
	}
	if len(fields) > 0 {
		r.cols = make(map[string]string, len(fields))
		for _, f := range fields {
			text := ""
			if lookup != nil {
				if v := lookup(f, msg); v.OK {
					text = termsafe.Escape(v.Text)
				}
			}
			r.cols[f] = text
		}
	}
	return r
}

// has reports whether r was read with every field in fields.
func (r row) has(fields []string) bool {
	for _, f := range fields {
		if _, ok := r.cols[f]; !ok && r.ok {
			return false
		}
	}
	return true
}

// cache holds the messages of the rows in view, by number. It is shared by
// the copies of a Model, as the program keeps only the latest.
type cache struct {
	epoch   uint32 // bumped by Invalidate: entries read before are old
	rows    map[int]entry
	pending map[int]uint32 // numbers asked for, and in which epoch
}

type entry struct {
	row   row
	epoch uint32
	final bool // the message was settled when read: Invalidate leaves it
}

func newCache() *cache {
	return &cache{rows: map[int]entry{}, pending: map[int]uint32{}}
}

func (c *cache) get(n int) row { return c.rows[n].row }

// put keeps what a load read, unless a newer reading is kept already, and
// forgets the rows no longer in view.
func (c *cache) put(r RowsMsg, shown []int) {
	for i, n := range r.nums {
		if c.pending[n] == r.epoch {
			delete(c.pending, n)
		}
		if e, ok := c.rows[n]; !ok || e.epoch <= r.epoch {
			c.rows[n] = entry{row: r.rows[i], epoch: r.epoch, final: r.rows[i].ok && n <= r.settled}
		}
	}
	if len(c.rows) <= 2*len(shown)+8 {
		return
	}
	keep := make(map[int]entry, len(shown))
	for _, n := range shown {
		if e, ok := c.rows[n]; ok {
			keep[n] = e
		}
	}
	c.rows = keep
}

// Invalidate marks the messages read as old: more of the capture was read
// since, which may have decoded a held message again. They are still shown
// until Load's command reads them again. Messages that were settled when
// read (Source.Settled) cannot change and are not read again: a capture
// that is still loading redraws without decoding its rows anew.
func (m *Model) Invalidate() { m.cache.epoch++ }

// shown returns the numbers of the rows in view.
func (m Model) shown() []int {
	end := min(m.Offset()+m.Rows(), m.Len())
	out := make([]int, 0, max(end-m.Offset(), 0))
	for i := m.Offset(); i < end; i++ {
		out = append(out, m.number(i))
	}
	return out
}

// Load returns a command that reads the messages of the rows in view that
// were not read, or were read before the last Invalidate, and are not being
// read already; nil when there are none. Update takes its RowsMsg.
func (m *Model) Load() tea.Cmd {
	c := m.cache
	fields := m.colFields()
	var nums []int
	for _, n := range m.shown() {
		if e, ok := c.rows[n]; ok && (e.final || e.epoch == c.epoch) && e.row.has(fields) {
			continue
		}
		if p, ok := c.pending[n]; ok && p == c.epoch {
			continue
		}
		c.pending[n] = c.epoch
		nums = append(nums, n)
	}
	if len(nums) == 0 {
		return nil
	}
	src, epoch, lookup := m.src, c.epoch, m.lookup
	return func() tea.Msg {
		// Settled before the reads: a message settled then is final in
		// what is read after.
		r := RowsMsg{epoch: epoch, settled: src.Settled(), nums: nums, rows: make([]row, len(nums))}
		for i, n := range nums {
			r.rows[i] = rowOf(src.Message(n), fields, lookup)
		}
		return r
	}
}
