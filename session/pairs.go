package session

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/stats"
	"github.com/usmnscope/usmnscope/unturned"
)

// Pairing of Unturned messages (outputs.md "Pairing"): a PingResponse
// answers the oldest unanswered PingRequest of the opposite direction on
// its connection, a TellClientListenerId or TellClientMissingListener the
// oldest unanswered RequestServerListenerId of its Clientside_Listener_ID
// (wire.md 3 and 4.4). Both messages of a pair get Message.Pair, the
// answer Message.Latency. An answer with no asker outstanding (a Tell*
// answering a definition, a PingResponse to a PingRequest not captured)
// pairs with nothing and counts in no statistics.
//
// Pairs are made when the answer is committed (listeners.go commit), in
// the connection's message order, by the full Index and by a Stream alike,
// so both give every message the same pair. A Stream hands out each
// message once, so it holds an asker, and everything numbered after it,
// until the asker is answered or can no longer be (awaiting).

// pairHold bounds pairing: an answer pairs only with an asker at most
// pairHold messages (capture-wide numbers) before it. An asker older than
// that is left unanswered, so that a Stream holds an asker, and the
// messages after it, for at most pairHold messages (as lateHold bounds a
// reference waiting for its listener ID), and a flood of questions that
// are never answered costs a bounded queue.
const pairHold = 4096

// pairState is one connection's pairing: the unanswered askers, the pairs
// made for messages the records cannot hold, and the ping statistics of
// tables --json ("ping", outputs.md).
type pairState struct {
	// pings are the PingRequests of each direction, apart: a direction's
	// key is always the one used last (dissect.Pairs: no map operation).
	pings [2]dissect.Pairs[dissect.Dir]
	reqs  dissect.Pairs[uint32] // RequestServerListenerIds by Clientside_Listener_ID
	// order lists the askers in number order from head on: the oldest
	// leaves when it is answered, and every one once pairHold expires it
	// (forgotten then if still unanswered), in constant time; one answered
	// out of order stays in it until then.
	order []askRef
	head  int
	// links are the pairs of the negotiate messages, by record index in
	// increasing order: their records' listener fields are taken (a ping's
	// record keeps its pair). A sorted slice, not a map: a full Index keeps
	// every one, and a map took 60 bytes a link (issue 18: the TUI's 64
	// bytes a message).
	links []pairLink
	ping  [2]pingCount // by the PingRequests' direction
	ended bool         // Finish: no answer can come any more
	// quietTo: the askers up to this number were given up when the input
	// went quiet (Index.Quiet): none can be answered any more.
	quietTo int32
}

// askRef is an asker in pairState.order: its number and its key.
type askRef struct {
	n    int32
	ping bool
	key  uint32 // the Dir of a PingRequest, the Clientside_Listener_ID of a request
}

// pairLink is one side of a negotiate pair.
type pairLink struct {
	idx     int32 // record index of the message
	partner int32 // record index of its partner
	answer  bool
	latency time.Duration
}

// linkAt returns the position in links of record idx's link, or where it
// goes.
func (ps *pairState) linkAt(idx int32) (int, bool) {
	return slices.BinarySearchFunc(ps.links, idx, func(l pairLink, idx int32) int { return cmp.Compare(l.idx, idx) })
}

// setLink stores l. A connection's messages commit in order, so the
// answer's goes at the end and the asker's a little before it.
func (ps *pairState) setLink(l pairLink) {
	k, found := ps.linkAt(l.idx)
	if found {
		ps.links[k] = l
		return
	}
	ps.links = slices.Insert(ps.links, k, l)
}

// pingCount counts the PingRequests of one direction and the PingResponses
// that answered them. A full Index also keeps their numbers, for the
// statistics as of a message (Tables(conn, n)); a Stream answers only the
// end and Stream.AsOf, whose statistics it takes on the way.
type pingCount struct {
	requests int
	reqN     []int32           // full Index: the requests' numbers, ascending
	ansN     []int32           // full Index: the answers' numbers, ascending, as rtt
	rtt      dissect.Durations // full Index: the round trips in order (Prefix)
	rttc     rttCounts         // Stream: the round trips counted by value
	rttr     stats.Running     // Stream: their count, sum and jitter in arrival order
}

// PingStats are outputs.md's STATS for the PingRequests sent in one
// direction: how many, how many a PingResponse answered, and the round
// trip times of those (RTT.OK false: none, `null`).
type PingStats struct {
	Requests, Answered int
	RTT                dissect.Latency
}

func pingRequest(k unturned.Kind) bool {
	return k == unturned.KindServerPingRequest || k == unturned.KindClientPingRequest
}

func pingResponse(k unturned.Kind) bool {
	return k == unturned.KindServerPingResponse || k == unturned.KindClientPingResponse
}

// pair applies message i, just decoded as d by commit, to its connection's
// pairing. A negotiate message that did not decode cleanly pairs with
// nothing: its Clientside_Listener_ID may be garbage (as the tables do not
// take it, opFor).
func (c *Index) pair(cn *connection, i int32, d *unturned.Decoded) {
	ps := cn.pairing()
	ps.expire(i + 1)
	r := c.rec(i)
	switch {
	case pingRequest(d.Kind):
		c.ask(cn, i, askRef{n: i + 1, ping: true, key: uint32(r.dir)})
		pc := &ps.ping[r.dir]
		pc.requests++
		if c.stream == nil {
			pc.reqN = append(pc.reqN, i+1)
		}
	case pingResponse(d.Kind):
		asked := 1 - r.dir
		if a, ok := ps.answer(true, uint32(asked), int(i)+1); ok {
			lat := c.link(cn, a, i, true)
			pc := &ps.ping[asked]
			if c.stream == nil {
				pc.rtt.Add(lat)
				pc.ansN = append(pc.ansN, i+1)
			} else {
				pc.rttc.add(lat)
				pc.rttr.Add(lat)
			}
		}
	case d.Kind == unturned.KindNegotiateListenerDetails && d.Clean():
		ng := &d.Negotiate
		switch {
		case requestAsker(r.dir, d):
			c.ask(cn, i, askRef{n: i + 1, key: ng.ClientID})
		case r.dir == dissect.S2C && (ng.Mode == unturned.TellClientListenerID || ng.Mode == unturned.TellClientMissingListener):
			if a, ok := ps.answer(false, ng.ClientID, int(i)+1); ok {
				c.link(cn, a, i, false)
			}
		}
	}
}

// ask records message i as an asker. A Stream that hands messages out
// holds it (awaiting): when it was to be handed out at its commit, its
// bytes were not kept (Index.streamNow), so they are kept now.
func (c *Index) ask(cn *connection, i int32, a askRef) {
	ps := cn.pairing()
	t := time.Unix(0, c.timeOf(i))
	if a.ping {
		ps.pings[a.key].Ask(dissect.Dir(a.key), dissect.Ask{N: int(a.n), Time: t})
	} else {
		ps.reqs.Ask(a.key, dissect.Ask{N: int(a.n), Time: t})
	}
	ps.order = append(ps.order, a)
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

// requestAsker reports whether d, decoded in direction dir, is a
// RequestServerListenerId that asks (pair).
func requestAsker(dir dissect.Dir, d *unturned.Decoded) bool {
	return dir == dissect.C2S && d.Kind == unturned.KindNegotiateListenerDetails && d.Clean() && d.Negotiate.Mode == unturned.RequestServerListenerID
}

// answer takes the oldest unanswered asker of key that message n may
// answer: askers more than pairHold messages older are forgotten. The
// asker at the head of order, the usual one, leaves it at once.
func (ps *pairState) answer(ping bool, key uint32, n int) (dissect.Ask, bool) {
	for {
		var a dissect.Ask
		var ok bool
		if ping {
			a, ok = ps.pings[key].Oldest(dissect.Dir(key))
		} else {
			a, ok = ps.reqs.Oldest(key)
		}
		if !ok {
			return a, false
		}
		if n-a.N <= pairHold {
			if ps.head < len(ps.order) && int(ps.order[ps.head].n) == a.N {
				ps.head++
				ps.compact()
			}
			return a, true
		}
	}
}

// open reports whether asker a is still unanswered.
func (ps *pairState) open(a askRef) bool {
	var o dissect.Ask
	var ok bool
	if a.ping {
		o, ok = ps.pings[a.key].Peek(dissect.Dir(a.key))
	} else {
		o, ok = ps.reqs.Peek(a.key)
	}
	return ok && o.N == int(a.n)
}

// pairFinal reports whether no message can answer cn's asker n any more:
// every message that may (numbered at most pairHold after it) has been
// committed on its connection and none did, or the capture ended.
func (c *Index) pairFinal(cn *connection, n int32) bool {
	ps := cn.pairs // nil: cn has no asker
	return ps == nil || ps.ended || n <= ps.quietTo || c.nrec-int(n) >= pairHold && cn.committed == cn.info.Messages
}

// expire forgets the askers at the head of order that message n, being
// committed, and the connection's later messages can no longer answer
// (those answered meanwhile just leave order).
func (ps *pairState) expire(n int32) {
	for ps.head < len(ps.order) {
		a := ps.order[ps.head]
		if n-a.n <= pairHold {
			break
		}
		if ps.open(a) {
			if a.ping {
				ps.pings[a.key].Oldest(dissect.Dir(a.key))
			} else {
				ps.reqs.Oldest(a.key)
			}
		}
		ps.head++
	}
	ps.compact()
}

// compact empties order once it is all behind head, and moves what is
// left to its start once most of it is.
func (ps *pairState) compact() {
	if ps.head == len(ps.order) {
		ps.order, ps.head = ps.order[:0], 0
	} else if ps.head >= 64 && 2*ps.head >= len(ps.order) {
		k := copy(ps.order, ps.order[ps.head:])
		ps.order, ps.head = ps.order[:k], 0
	}
}

// oldestOpen is the number of cn's oldest unanswered asker, 0 for none.
func (ps *pairState) oldestOpen() int32 {
	if ps == nil {
		return 0
	}
	for _, a := range ps.order[ps.head:] {
		if ps.open(a) {
			return a.n
		}
	}
	return 0
}

// pairSettled lowers settled (Index.Settled) to before cn's oldest asker
// that may still be answered: its Message would change.
func (c *Index) pairSettled(cn *connection, settled int) int {
	if n := cn.pairs.oldestOpen(); n > 0 && int(n)-1 < settled && !c.pairFinal(cn, n) {
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

// link pairs asker ask with answer i and returns the latency. A ping's
// pair is kept in its records (partner in cid, the answer's latency in sid
// and tv, which a ping's record does not use); a negotiate pair in links.
// A Stream that hands out no Message (no Settled) holds no asker, whose
// record may be released already: only the statistics count then. One
// with Tallies holds none either: the asker, handed out already, keeps no
// pair, and only the answer records it.
func (c *Index) link(cn *connection, ask dissect.Ask, i int32, ping bool) time.Duration {
	lat := time.Duration(c.timeOf(i) - ask.Time.UnixNano())
	s := c.stream
	if s != nil && s.Settled == nil {
		return lat
	}
	a := int32(ask.N - 1)
	gone := s != nil && a < s.next // handed out (Stream.Tallies)
	ri := c.rec(i)
	ri.flags |= recPaired
	if !gone {
		c.rec(a).flags |= recPaired
	}
	if ping {
		if !gone {
			c.rec(a).cid = uint32(i)
		}
		ri.cid = uint32(a)
		ri.sid, ri.tv = uint32(uint64(lat)>>32), uint32(uint64(lat))
		return lat
	}
	ps := cn.pairing()
	if !gone {
		ps.setLink(pairLink{idx: a, partner: i})
	}
	ps.setLink(pairLink{idx: i, partner: a, answer: true, latency: lat})
	return lat
}

// pairOf is record i's pair (its partner's number, 0 for none) and the
// latency its answer measured.
func (c *Index) pairOf(r *record, i int32) (pair int, latency time.Duration, has bool) {
	if r.flags&recPaired == 0 {
		return 0, 0, false
	}
	if pingRequest(r.kind) || pingResponse(r.kind) {
		if pingResponse(r.kind) {
			latency, has = time.Duration(int64(uint64(r.sid)<<32|uint64(r.tv))), true
		}
		return int(r.cid) + 1, latency, has
	}
	ps := c.conns[r.conn].pairs // made by link, which set recPaired
	if k, ok := ps.linkAt(i); ok {
		l := ps.links[k]
		return int(l.partner) + 1, l.latency, l.answer
	}
	return 0, 0, false
}

// unlink forgets what a Stream kept of record i's pair once it is handed
// out.
func (c *Index) unlink(r *record, i int32) {
	if r.flags&recPaired != 0 && !pingRequest(r.kind) && !pingResponse(r.kind) {
		ps := c.conns[r.conn].pairs // made by link, which set recPaired
		if k, ok := ps.linkAt(i); ok {
			ps.links = slices.Delete(ps.links, k, k+1)
		}
	}
}

// pingStats gives the statistics of each direction's PingRequests
// answered as of message asOf (a full Index; ≤ 0 or a Stream: all).
func (ps *pairState) pingStats(asOf int, full bool) [2]PingStats {
	if ps == nil {
		ps = new(pairState) // no message yet: what an empty state gives
	}
	var out [2]PingStats
	for d := range ps.ping {
		pc := &ps.ping[d]
		if !full {
			mn, md, mx, n := pc.rttc.stats()
			out[d] = PingStats{Requests: pc.requests, Answered: n, RTT: dissect.Latency{Min: mn, Median: md, Max: mx, OK: n > 0,
				Summary: stats.SummaryFromCounts(pc.rttc.vals, pc.rttc.cnts, &pc.rttr)}}
			continue
		}
		req, rtt := pc.requests, pc.rtt
		if asOf > 0 {
			req = sort.Search(len(pc.reqN), func(k int) bool { return int(pc.reqN[k]) > asOf })
			rtt = pc.rtt.Prefix(sort.Search(len(pc.ansN), func(k int) bool { return int(pc.ansN[k]) > asOf }))
		}
		mn, md, mx, ok, sum := rtt.Latency()
		out[d] = PingStats{Requests: req, Answered: rtt.Len(), RTT: dissect.Latency{Min: mn, Median: md, Max: mx, OK: ok, Summary: sum}}
	}
	return out
}

// rttCounts is a Stream's multiset of round trips: the distinct values,
// ascending, each with its count, and the values added since they were
// last merged in. The exact median of outputs.md (the lower middle value)
// needs every value, but not in order and not twice: the memory grows
// with the distinct round trips, which the capture's clock resolution and
// the spread of the round trips bound (a few thousand at microseconds),
// not with the pings (issue 18: a 4M-message capture answers 900,000
// pings). Round trips all distinct cost 12 bytes each instead of 8.
type rttCounts struct {
	vals []time.Duration // distinct, ascending
	cnts []uint32        // cnts[k] values equal vals[k]
	n    int             // values added, merged or not
	raw  []time.Duration // added since the last merge
}

// rttMergeMin is the fewest added values a merge waits for; a merge also
// waits for as many as there are distinct values, so that its cost per
// value added stays constant.
const rttMergeMin = 64

func (r *rttCounts) add(x time.Duration) {
	r.raw = append(r.raw, x)
	r.n++
	if len(r.raw) >= max(rttMergeMin, len(r.vals)) {
		r.merge()
	}
}

// merge moves the values added into vals and cnts. A value already there
// is counted in place, so that merging allocates only when new distinct
// values come (the common case allocates nothing: no garbage per ping,
// which would make the collector's goal, not the capture, set the heap).
func (r *rttCounts) merge() {
	if len(r.raw) == 0 {
		return
	}
	slices.Sort(r.raw)
	fresh := r.raw[:0] // the values not in vals, sorted, in raw's room
	for _, x := range r.raw {
		if k, ok := slices.BinarySearch(r.vals, x); ok {
			r.cnts[k]++
		} else {
			fresh = append(fresh, x)
		}
	}
	if len(fresh) > 0 {
		r.mergeFresh(fresh)
	}
	r.raw = r.raw[:0]
}

// mergeFresh merges fresh (sorted, none in vals) into vals and cnts.
func (r *rttCounts) mergeFresh(fresh []time.Duration) {
	distinct := 1
	for k := 1; k < len(fresh); k++ {
		if fresh[k] != fresh[k-1] {
			distinct++
		}
	}
	vals := make([]time.Duration, 0, len(r.vals)+distinct)
	cnts := make([]uint32, 0, cap(vals))
	k := 0
	for _, x := range fresh {
		for k < len(r.vals) && r.vals[k] < x {
			vals, cnts = append(vals, r.vals[k]), append(cnts, r.cnts[k])
			k++
		}
		if m := len(vals); m > 0 && vals[m-1] == x {
			cnts[m-1]++
			continue
		}
		vals, cnts = append(vals, x), append(cnts, 1)
	}
	vals, cnts = append(vals, r.vals[k:]...), append(cnts, r.cnts[k:]...)
	r.vals, r.cnts = vals, cnts
}

// stats returns the minimum, the median (over an even count the lower of
// the two middle values, outputs.md "tables --json") and the maximum of
// the values added, and how many there are.
func (r *rttCounts) stats() (min, median, max time.Duration, n int) {
	if r.n == 0 {
		return 0, 0, 0, 0
	}
	r.merge()
	mid := uint64(r.n-1) / 2 // the lower middle value's rank, from 0
	var seen uint64
	median = r.vals[len(r.vals)-1]
	for k, c := range r.cnts {
		if seen += uint64(c); seen > mid {
			median = r.vals[k]
			break
		}
	}
	return r.vals[0], median, r.vals[len(r.vals)-1], r.n
}
