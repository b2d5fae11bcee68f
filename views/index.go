package views

import (
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/messages"
)

// maxSeconds bounds a connection's sparkline buckets, so a capture with a
// hostile timestamp jump cannot make the index allocate without limit.
const maxSeconds = 1 << 16

// stampBatch is how many stamps one Stamps call reads (one read lock).
const stampBatch = 4096

// stamper is the batch form of Source.Stamp that *session.Index has
// (Stamps, ConnAt): a Source without it is read a Stamp at a time.
type stamper interface {
	Stamps(dst []session.MessageStamp, from int) []session.MessageStamp
	ConnAt(i int) (dissect.Conn, bool)
}

// index groups message numbers by connection and counts messages per
// second, built incrementally: each step reads a bounded number of new
// messages, so opening a huge capture never waits for a full pass.
type index struct {
	scanned int
	byConn  map[dissect.Conn]numbers
	spark   map[dissect.Conn][]int
	first   map[dissect.Conn]int64 // unix second of the connection's first message

	// The batch path (stamper) keeps each connection's lists by its
	// position in the Source's Connections, so a message costs a slice
	// index, not three lookups of a 56-byte key (issue 18); the maps
	// above are written once a batch for each connection it touched.
	byPos   []posConn
	stamps  []session.MessageStamp
	touched []uint32
}

// posConn is one connection's share of the index on the batch path.
type posConn struct {
	conn    dissect.Conn
	nums    numbers
	spark   []int
	first   int64
	touched bool
}

func newIndex() *index {
	return &index{byConn: map[dissect.Conn]numbers{}, spark: map[dissect.Conn][]int{}, first: map[dissect.Conn]int64{}}
}

// step indexes up to budget messages of the n known and reports whether
// more remain.
func (x *index) step(src Source, n, budget int) bool {
	if st, ok := src.(stamper); ok {
		x.stepBatch(st, n, budget)
		return x.scanned < n
	}
	for ; x.scanned < n && budget > 0; budget-- {
		x.scanned++
		conn, t, ok := src.Stamp(x.scanned)
		if !ok {
			continue
		}
		l := x.byConn[conn]
		l.add(int32(x.scanned))
		x.byConn[conn] = l
		sec := t.Unix()
		f, ok := x.first[conn]
		if !ok {
			x.first[conn], f = sec, sec
		}
		b := int(min(max(sec-f, 0), maxSeconds-1))
		s := x.spark[conn]
		for len(s) <= b {
			s = append(s, 0)
		}
		s[b]++
		x.spark[conn] = s
	}
	return x.scanned < n
}

// stepBatch is step over a stamper.
func (x *index) stepBatch(src stamper, n, budget int) {
	if x.stamps == nil {
		x.stamps = make([]session.MessageStamp, 0, stampBatch)
	}
	for x.scanned < n && budget > 0 {
		want := min(n-x.scanned, budget, stampBatch)
		got := src.Stamps(x.stamps[:0:want], x.scanned+1)
		if len(got) == 0 {
			// The Source has fewer messages than n says: as Stamp's
			// !ok, they are skipped.
			budget -= want
			x.scanned += want
			continue
		}
		for _, s := range got {
			x.scanned++
			budget--
			c := x.pos(src, s.Conn)
			if c == nil {
				continue
			}
			c.nums.add(int32(x.scanned))
			sec := time.Unix(0, s.Time).Unix()
			if len(c.spark) == 0 {
				c.first = sec
			}
			b := int(min(max(sec-c.first, 0), maxSeconds-1))
			for len(c.spark) <= b {
				c.spark = append(c.spark, 0)
			}
			c.spark[b]++
		}
	}
	for _, i := range x.touched {
		c := &x.byPos[i]
		c.touched = false
		x.byConn[c.conn], x.spark[c.conn], x.first[c.conn] = c.nums, c.spark, c.first
	}
	x.touched = x.touched[:0]
}

// pos returns the connection at position i, marked touched, or nil when
// the Source does not know it.
func (x *index) pos(src stamper, i uint32) *posConn {
	for int(i) >= len(x.byPos) {
		conn, ok := src.ConnAt(len(x.byPos))
		if !ok {
			return nil
		}
		x.byPos = append(x.byPos, posConn{conn: conn})
	}
	c := &x.byPos[i]
	if !c.touched {
		c.touched = true
		x.touched = append(x.touched, i)
	}
	return c
}

// numbers is one connection's message numbers in ascending order (a
// messages.Rows), kept in blocks of numBlock that never move once full:
// appending never copies what is held. A slice grown by append copied
// every connection's list at each doubling and left the old arrays to the
// collector, the largest allocations of the TUI's own while a
// million-message capture loads (issue 28). A copy is a snapshot: its
// Len stays, and the numbers below it never change.
type numbers struct {
	blocks [][]int32
	n      int
}

var _ messages.Rows = numbers{}

// numBlock is the numbers a block holds; the first grows up to it as a
// slice does, so a connection of a few messages stays small.
const numBlock = 4096

func (l *numbers) add(v int32) {
	k := len(l.blocks) - 1
	if k < 0 || len(l.blocks[k]) == numBlock {
		var b []int32
		if k >= 0 {
			b = make([]int32, 0, numBlock)
		}
		l.blocks = append(l.blocks, b)
		k++
	}
	l.blocks[k] = append(l.blocks[k], v)
	l.n++
}

// Len is how many numbers the list holds.
func (l numbers) Len() int { return l.n }

// At is the i-th number, 0 ≤ i < Len.
func (l numbers) At(i int) int { return int(l.blocks[i/numBlock][i%numBlock]) }
