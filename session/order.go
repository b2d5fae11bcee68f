package session

import (
	"container/heap"

	"github.com/usmnscope/usmnscope/decode"
)

// Numbering by arrival (outputs.md "Ordering", wire.md 4.6): a message is
// numbered by the event that brought its last byte, across the whole
// capture. A connection whose protocol holds bytes that may later turn
// out to end messages (decode.Feed.Holding: a direction whose framer is
// resynchronising yields them only once a chain of headers is found, or
// at the end of the stream) blocks: every message that arrives after the
// first of those bytes, on any connection, waits in a queue ordered by
// arrival until no blocking connection can yield an earlier one. Output
// may come late, never out of order.

// Bounds of the queue. A direction that resynchronises on a trickle (a few
// bytes and then silence) would otherwise hold every other connection's
// messages until the end of the capture; past these bounds its buffered
// bytes get the end-of-stream chance to frame and are otherwise skipped
// (reported), and the framer resynchronises on the bytes that follow.
const (
	maxPending      = 16384
	maxPendingBytes = 16 << 20
)

// pendingMsg is a framed message waiting for its number.
type pendingMsg struct {
	seq   uint64 // the event that brought its last byte
	ins   uint64 // arrival in the queue: stream order within one event
	cn    *connection
	f     decode.FramedMsg // a native message, its bytes copied
	rec   decode.Record    // a hosted protocol's record (hosted.go) instead of f
	sight *Sight           // where rec was seen (several captures), taken at its arrival
}

// pendingQueue is a min-heap of pendingMsg by (seq, ins).
type pendingQueue []pendingMsg

func (q pendingQueue) Len() int { return len(q) }
func (q pendingQueue) Less(i, j int) bool {
	if q[i].seq != q[j].seq {
		return q[i].seq < q[j].seq
	}
	return q[i].ins < q[j].ins
}
func (q pendingQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pendingQueue) Push(x any)   { *q = append(*q, x.(pendingMsg)) }
func (q *pendingQueue) Pop() any {
	old := *q
	m := old[len(old)-1]
	old[len(old)-1] = pendingMsg{}
	*q = old[:len(old)-1]
	return m
}

// arrive reports whether f, a framed message of a natively decoded
// connection, may be numbered now; else it queues it (its bytes copied),
// for a blocking connection may still yield an earlier one.
func (c *Index) arrive(cn *connection, f *decode.FramedMsg) bool {
	if len(c.pending)|len(c.blockers)|len(c.holds) == 0 {
		return true // every message's path: it inlines
	}
	c.queue(cn, f)
	return false
}

// queue queues f (arrive).
func (c *Index) queue(cn *connection, f *decode.FramedMsg) {
	c.pins++
	c.pendingBytes += len(f.Msg)
	m := pendingMsg{seq: f.At.Seq, ins: c.pins, cn: cn, f: *f}
	m.f.Msg = append([]byte(nil), f.Msg...)
	heap.Push(&c.pending, m)
}

// block records whether cn's protocol holds bytes awaiting
// resynchronisation (decode.Feed.Holding), which may end messages earlier
// than later arrivals.
func (c *Index) block(cn *connection) {
	_, on := cn.feed.Holding()
	if on == cn.blocking {
		return
	}
	cn.blocking = on
	if on {
		c.blockers = append(c.blockers, cn)
		return
	}
	for k, b := range c.blockers {
		if b == cn {
			c.blockers = append(c.blockers[:k], c.blockers[k+1:]...)
			break
		}
	}
}

// watermark is the earliest event that a blocking connection's buffered
// bytes came in: no message it yields later arrived before it.
func (c *Index) watermark() uint64 {
	wm := ^uint64(0)
	for _, h := range c.holds {
		wm = min(wm, h)
	}
	for _, b := range c.blockers {
		wm = min(wm, c.blockSeq(b))
	}
	return wm
}

// blockSeq is the earliest event whose bytes blocking connection cn
// holds. A hosted one's is at most the current event's; a native one's is
// its own word, and with none recorded, conservatively the current event.
func (c *Index) blockSeq(cn *connection) uint64 {
	s, _ := cn.feed.Holding()
	if cn.proto != nil || s == ^uint64(0) {
		return min(s, c.cur)
	}
	return s
}

// release numbers the queued messages that nothing can precede any more,
// in arrival order. Past the queue's bounds it forces the oldest blocking
// direction to settle first.
func (c *Index) release() {
	for {
		wm := c.watermark()
		for len(c.pending) > 0 && c.pending[0].seq < wm {
			m := heap.Pop(&c.pending).(pendingMsg)
			if m.rec != nil {
				c.pendingBytes -= decode.GlanceOf(m.rec).Size
				c.messageHosted(m.cn, m.rec, m.sight)
				continue
			}
			c.pendingBytes -= len(m.f.Msg)
			m.cn.number(&m.f)
		}
		if len(c.pending) <= maxPending && c.pendingBytes <= maxPendingBytes || len(c.blockers) == 0 {
			return
		}
		c.force(false)
	}
}

// force stops waiting on the blocking connection with the oldest buffered
// bytes (decode.Feed.Abandon: a natively decoded one's direction holding
// the oldest); idle says the source went idle (nativeConn.Idle).
func (c *Index) force(idle bool) {
	cn := c.blockers[0]
	for _, b := range c.blockers[1:] {
		if c.blockSeq(b) < c.blockSeq(cn) {
			cn = b
		}
	}
	switch {
	case cn.proto != nil:
		cn.proto.Abandon()
		c.hostedSync(cn)
		return
	case idle:
		cn.native.Idle()
	default:
		cn.native.Abandon()
	}
	c.block(cn)
}

// Idle stops waiting on every direction that is resynchronising: its
// buffered bytes are framed when they chain exactly to their end and are
// skipped otherwise (reported), so that every message that arrived is
// numbered now. For a streaming source whose writer paused (stdin, live):
// what has arrived is shown, at the price of a message whose bytes are
// split by the pause.
func (c *Index) Idle() {
	c.lock()
	defer c.unlock()
	for len(c.blockers) > 0 {
		c.force(true)
	}
	// What a caller holds is no longer waited for: its events, fed later,
	// take new numbers (At ignores their reserved ones).
	c.holds = c.holds[:0]
	c.expired = c.seq
	c.release()
}

// Events a caller holds (internal/pipeline's router, while a connection's
// first bytes decide its protocol or transport) arrived before what is fed
// meanwhile: the caller reserves each held event's seq as it comes, holds
// numbering from the first, and feeds them later under those seqs (At), so
// that their messages take the numbers of their arrival (outputs.md
// "Ordering").

// Reserve returns the seq of an event the caller holds instead of feeding.
func (c *Index) Reserve() uint64 {
	c.lock()
	defer c.unlock()
	c.seq++
	return c.seq
}

// Hold makes every message that arrives from seq on wait until Unhold(seq).
func (c *Index) Hold(seq uint64) {
	c.lock()
	defer c.unlock()
	c.holds = append(c.holds, seq)
}

// Unhold ends the hold Hold(seq) began, numbering what it held back.
func (c *Index) Unhold(seq uint64) {
	c.lock()
	defer c.unlock()
	for k, h := range c.holds {
		if h == seq {
			c.holds = append(c.holds[:k], c.holds[k+1:]...)
			break
		}
	}
	c.release()
}

// At says the next event fed (Data, DataAt or a ULinkRPC connection's
// Feed) is the one reserved as seq.
func (c *Index) At(seq uint64) {
	c.lock()
	defer c.unlock()
	if seq > c.expired {
		c.next = seq
	}
}

// advance is the seq of the event being fed: the one reserved for it, or
// a new one.
func (c *Index) advance() uint64 {
	if c.next != 0 {
		c.cur, c.next = c.next, 0
		return c.cur
	}
	c.seq++
	c.cur = c.seq
	return c.cur
}
