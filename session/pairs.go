package session

import (
	"math"
	"time"
)

// Pairing (outputs.md "Pairing"): Unturned's, of pings and listener-ID
// requests with their answers, is its connection's (unturned/track runs
// unturned/pair's as each message is committed, in the connection's
// order); what it makes of a message is kept here, in the host's records. Both messages of a pair get Message.Pair, the answer
// Message.Latency. An answer with no asker outstanding pairs with nothing
// and counts in no statistics.
//
// Pairs are made when the answer is committed, by the full Index and by a
// Stream alike, so both give every message the same pair. A Stream hands
// out each message once, so it holds an asker, and everything numbered
// after it, until the asker is answered or can no longer be (awaiting).

// asked marks message i as an asker. A Stream that hands messages out
// holds it (awaiting): when it was to be handed out at its commit, its
// bytes were not kept (Index.streamNow), so they are kept now.
func (c *Index) asked(i int32) {
	r := c.rec(i)
	r.flags |= recAsk
	// Kept in the arena when its decoding is not kept (past waitRing): a
	// message handed out at its commit has no bytes kept (streamNow), and
	// one in the capture file would be read back with a system call for a
	// few bytes.
	if s := c.stream; s != nil && s.Settled != nil && !s.Tallies && s.pre.i == i && s.waited(i) == nil && (r.flags&recFile != 0 || i == s.next && !c.lateOn()) {
		c.rekeep(i, s.pre.data)
	}
}

// rekeep copies message i's bytes into the arena and points its record
// at them.
func (c *Index) rekeep(i int32, msg []byte) {
	_, t := c.where(i)
	off := c.keep(msg)
	r := c.rec(i)
	if r.flags&recFile != 0 {
		r.flags &^= recFile
		c.inFile--
	}
	b := &c.recs[i/recChunk]
	if !b.hasArena {
		b.arena0, b.hasArena = off, true
	}
	if d := off - b.arena0; r.flags&recBig == 0 && d >= 0 && d <= math.MaxUint32 {
		r.off = uint32(d)
		return
	}
	if c.big == nil {
		c.big = map[int32][2]int64{}
	}
	c.big[i] = [2]int64{off, t}
	r.flags |= recBig
}

// pairFinal reports whether no message can answer cn's asker n any more:
// every message that may has been committed on its connection and none
// did, or the capture ended (pair.State.Final).
func (c *Index) pairFinal(cn *connection, n int32) bool {
	return cn.native.PairFinal(n, c.nrec, cn.committed == cn.info.Messages)
}

// pairSettled lowers settled (Index.Settled) to before cn's oldest asker
// that may still be answered: its Message would change.
func (c *Index) pairSettled(cn *connection, settled int) int {
	if n := cn.native.OldestOpen(); n > 0 && int(n)-1 < settled && !c.pairFinal(cn, n) {
		return int(n) - 1
	}
	return settled
}

// awaiting reports whether a Stream must hold record i: an asker that may
// still be answered, when messages are handed out (Settled) with their
// pair.
func (c *Index) awaiting(i int32) bool {
	if c.stream.Settled == nil || c.stream.Tallies {
		return false
	}
	r := c.rec(i)
	if r.flags&(recAsk|recPaired) != recAsk {
		return false
	}
	return !c.pairFinal(c.conns[r.conn], i+1)
}

// link pairs asker a (its number) with answer i, which measured latency
// lat. A pair of messages whose records do not hold a listener (pings) is
// kept in the records (partner in cid, the answer's latency in sid and
// tv, which such a record does not use); a pair of listener messages
// (negotiate: recListener, set by listenerInfo before its pair is made,
// whenever a pair is kept) in its connection (nativeConn.Link). A Stream
// that hands out no Message (no Settled) holds no asker, whose record may
// be released already: only the statistics count then. One with Tallies
// holds none either: the asker, handed out already, keeps no pair, and
// only the answer records it.
func (c *Index) link(cn *connection, asker, i int32, lat time.Duration) {
	s := c.stream
	if s != nil && s.Settled == nil {
		return
	}
	a := asker - 1
	gone := s != nil && a < s.next // handed out (Stream.Tallies)
	ri := c.rec(i)
	ri.flags |= recPaired
	if !gone {
		c.rec(a).flags |= recPaired
	}
	if ri.flags&recListener == 0 {
		if !gone {
			c.rec(a).cid = uint32(i)
		}
		ri.cid = uint32(a)
		ri.sid, ri.tv = uint32(uint64(lat)>>32), uint32(uint64(lat))
		return
	}
	cn.native.Link(a, i, lat, !gone)
}

// pairOf is record i's pair (its partner's number, 0 for none) and the
// latency its answer measured, where link kept them.
func (c *Index) pairOf(r *record, i int32) (pair int, latency time.Duration, has bool) {
	if r.flags&recPaired == 0 {
		return 0, 0, false
	}
	if r.flags&recListener != 0 {
		if partner, lat, answer, ok := c.conns[r.conn].native.LinkOf(i); ok {
			return int(partner) + 1, lat, answer
		}
		return 0, 0, false
	}
	if r.flags&recAsk == 0 {
		latency, has = time.Duration(int64(uint64(r.sid)<<32|uint64(r.tv))), true
	}
	return int(r.cid) + 1, latency, has
}

// unlink forgets what a Stream kept of record i's pair once it is handed
// out.
func (c *Index) unlink(r *record, i int32) {
	if r.flags&(recPaired|recListener) == recPaired|recListener {
		c.conns[r.conn].native.Unlink(i)
	}
}
