package messages

import (
	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/session"
)

// The rows shown are drawn from messages that a command read (Load): View
// reads nothing itself, since reading a message may read the capture file
// back. Only the rows in view are kept.

// RowsMsg carries messages read for the rows shown.
type RowsMsg struct {
	epoch   uint32
	settled int // messages 1..settled were final when read
	nums    []int
	msgs    []*session.Message
}

// cache holds the messages of the rows in view, by number. It is shared by
// the copies of a Model, as the program keeps only the latest.
type cache struct {
	epoch   uint32 // bumped by Invalidate: entries read before are old
	rows    map[int]entry
	pending map[int]uint32 // numbers asked for, and in which epoch
}

type entry struct {
	msg   *session.Message // nil when the source had no such message
	epoch uint32
	final bool // the message was settled when read: Invalidate leaves it
}

func newCache() *cache {
	return &cache{rows: map[int]entry{}, pending: map[int]uint32{}}
}

func (c *cache) get(n int) *session.Message { return c.rows[n].msg }

// put keeps what a load read, unless a newer reading is kept already, and
// forgets the rows no longer in view.
func (c *cache) put(r RowsMsg, shown []int) {
	for i, n := range r.nums {
		if c.pending[n] == r.epoch {
			delete(c.pending, n)
		}
		if e, ok := c.rows[n]; !ok || e.epoch <= r.epoch {
			c.rows[n] = entry{msg: r.msgs[i], epoch: r.epoch, final: r.msgs[i] != nil && n <= r.settled}
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
	var nums []int
	for _, n := range m.shown() {
		if e, ok := c.rows[n]; ok && (e.final || e.epoch == c.epoch) {
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
	src, epoch := m.src, c.epoch
	return func() tea.Msg {
		// Settled before the reads: a message settled then is final in
		// what is read after.
		r := RowsMsg{epoch: epoch, settled: src.Settled(), nums: nums, msgs: make([]*session.Message, len(nums))}
		for i, n := range nums {
			r.msgs[i] = src.Message(n)
		}
		return r
	}
}
