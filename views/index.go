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
// (Stamps, ConnAt), with the connections' message lists it keeps
// (ConnNumbers): a Source without it is read a Stamp at a time.
type stamper interface {
	Stamps(dst []session.MessageStamp, from int) []session.MessageStamp
	ConnAt(i int) (dissect.Conn, bool)
	ConnNumbers(pos uint32, upTo int) session.Numbers
}

// index groups message numbers by connection and counts messages per
// second, built incrementally: each step reads a bounded number of new
// messages, so opening a huge capture never waits for a full pass.
type index struct {
	scanned int
	byConn  map[dissect.Conn]messages.Rows
	spark   map[dissect.Conn][]int
	first   map[dissect.Conn]int64 // unix second of the connection's first message

	// nums are the lists a Stamp at a time builds (the Source keeps
	// none: no stamper); byConn holds copies, taken once a step.
	nums map[dissect.Conn]*numbers

	// The batch path (stamper) keeps each connection's share by its
	// position in the Source's Connections, so a message costs a slice
	// index, not three lookups of a 56-byte key (issue 18); the maps
	// above are written once a batch for each connection it touched, its
	// list the Source's own (ConnNumbers: issue 28, the TUI kept a second
	// copy of every connection's numbers).
	byPos   []posConn
	stamps  []session.MessageStamp
	touched []uint32
}

// posConn is one connection's share of the index on the batch path.
type posConn struct {
	conn    dissect.Conn
	spark   []int
	first   int64
	touched bool
}

func newIndex() *index {
	return &index{byConn: map[dissect.Conn]messages.Rows{}, spark: map[dissect.Conn][]int{}, first: map[dissect.Conn]int64{},
		nums: map[dissect.Conn]*numbers{}}
}

// rows is conn's message numbers indexed so far (none: an empty list).
func (x *index) rows(conn dissect.Conn) messages.Rows {
	if r, ok := x.byConn[conn]; ok {
		return r
	}
	return messages.Numbers(nil)
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
		l := x.nums[conn]
		if l == nil {
			l = new(numbers)
			x.nums[conn] = l
		}
		l.add(int32(x.scanned))
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
	for conn, l := range x.nums {
		if r, ok := x.byConn[conn]; !ok || r.Len() != l.Len() {
			x.byConn[conn] = *l
		}
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
		x.byConn[c.conn], x.spark[c.conn], x.first[c.conn] = src.ConnNumbers(i, x.scanned), c.spark, c.first
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
// messages.Rows) that the index builds itself, from a Source that keeps
// none (its Stamp alone), kept in blocks of numBlock that never move once full:
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
