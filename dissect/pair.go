package dissect

import (
	"slices"
	"time"

	"github.com/usmnscope/usmnscope/stats"
)

// Ask is an asking message waiting for its answer (outputs.md "Pairing"):
// its message number and capture time.
type Ask struct {
	N    int
	Time time.Time
}

// Pairs holds the unanswered asking messages of one connection, keyed by
// whatever ties an answer to its question: the asker's Dir for Unturned's
// PingRequest ↔ PingResponse, a Clientside_Listener_ID for
// RequestServerListenerId ↔ TellClientListenerId / TellClientMissingListener,
// (Dir, request_id) for ULinkRPC. Unturned answers the oldest asker of a key
// (Oldest), ULinkRPC the latest (Latest). It holds at most Max askers in
// all (0 means DefaultMaxAsks); past that the oldest is forgotten and
// counted in Dropped, so a flood of unanswered questions stays bounded.
//
// Each key's askers are a queue with a head index, so Ask, Peek, Oldest
// and Latest take constant time (a flood of PingRequests answered one by
// one never shifts the queue), and the queues of keys that emptied are
// kept for the next keys: a steady question-and-answer traffic allocates
// nothing per message. The key used last keeps its queue in the map even
// while it is empty, so a key asked and answered in turn (a ping) costs no
// map operation.
type Pairs[K comparable] struct {
	Max     int
	Dropped int64
	open    map[K]*askQueue
	free    []*askQueue
	count   int
	last    K
	lastQ   *askQueue // open[last], nil when not set
}

// askQueue is one key's unanswered askers, by N: as[head:].
type askQueue struct {
	as   []Ask
	head int
}

// maxFreeQueues bounds the emptied queues kept for reuse.
const maxFreeQueues = 64

// DefaultMaxAsks bounds a Pairs with Max 0.
const DefaultMaxAsks = 1 << 16

// Ask records an asking message under k. When that goes past Max, the
// oldest asker is forgotten and returned (dropped true), so that the caller
// can forget what it keeps about it.
func (p *Pairs[K]) Ask(k K, a Ask) (forgotten Ask, dropped bool) {
	if p.open == nil {
		p.open = make(map[K]*askQueue)
	}
	max := p.Max
	if max <= 0 {
		max = DefaultMaxAsks
	}
	if p.count >= max {
		forgotten, dropped = p.dropOldest()
	}
	q := p.queue(k)
	if q == nil {
		if n := len(p.free); n > 0 {
			q = p.free[n-1]
			p.free[n-1] = nil
			p.free = p.free[:n-1]
		} else {
			q = &askQueue{}
		}
		p.open[k] = q
		p.setLast(k, q)
	}
	q.as = append(q.as, a)
	p.count++
	return forgotten, dropped
}

// queue returns k's queue (perhaps empty), or nil.
func (p *Pairs[K]) queue(k K) *askQueue {
	if p.lastQ != nil && p.last == k {
		return p.lastQ
	}
	q := p.open[k]
	if q != nil {
		p.setLast(k, q)
	}
	return q
}

// setLast makes k the key used last; the one before leaves the map if its
// queue is empty.
func (p *Pairs[K]) setLast(k K, q *askQueue) {
	if old := p.lastQ; old != nil && old != q && old.head == len(old.as) {
		p.release(p.last, old)
	}
	p.last, p.lastQ = k, q
}

// release takes k's empty queue q out of the map, to the free list.
func (p *Pairs[K]) release(k K, q *askQueue) {
	delete(p.open, k)
	q.as, q.head = q.as[:0], 0
	if len(p.free) < maxFreeQueues {
		p.free = append(p.free, q)
	}
}

// dropOldest forgets the asker with the lowest N.
func (p *Pairs[K]) dropOldest() (Ask, bool) {
	key, found := p.oldestKey(func(K) bool { return true })
	if !found {
		return Ask{}, false
	}
	p.Dropped++
	return p.takeHead(key, p.open[key]), true
}

// oldestKey is the key, among those match accepts, whose oldest asker has
// the lowest N.
func (p *Pairs[K]) oldestKey(match func(K) bool) (K, bool) {
	var key K
	found := false
	best := 0
	for k, q := range p.open {
		if q.head == len(q.as) {
			continue
		}
		if n := q.as[q.head].N; match(k) && (!found || n < best) {
			key, best, found = k, n, true
		}
	}
	return key, found
}

// takeHead answers the oldest asker of k's queue q (not empty).
func (p *Pairs[K]) takeHead(k K, q *askQueue) Ask {
	a := q.as[q.head]
	q.as[q.head] = Ask{}
	q.head++
	p.taken(k, q)
	return a
}

// taken accounts for one asker taken from k's queue q: an emptied queue
// goes back to the free list, a queue mostly taken from its head is
// compacted (so its length stays proportional to what it holds).
func (p *Pairs[K]) taken(k K, q *askQueue) {
	p.count--
	switch {
	case q.head == len(q.as) && q == p.lastQ:
		q.as, q.head = q.as[:0], 0
	case q.head == len(q.as):
		p.release(k, q)
	case q.head >= 32 && 2*q.head >= len(q.as):
		n := copy(q.as, q.as[q.head:])
		clear(q.as[n:])
		q.as, q.head = q.as[:n], 0
	}
}

// Peek returns the oldest unanswered asker of k without answering it.
func (p *Pairs[K]) Peek(k K) (Ask, bool) {
	q := p.queue(k)
	if q == nil || q.head == len(q.as) {
		return Ask{}, false
	}
	return q.as[q.head], true
}

// Oldest answers the oldest unanswered asker of k (first in, first out).
func (p *Pairs[K]) Oldest(k K) (Ask, bool) {
	q := p.queue(k)
	if q == nil || q.head == len(q.as) {
		return Ask{}, false
	}
	return p.takeHead(k, q), true
}

// Latest answers the latest unanswered asker of k.
func (p *Pairs[K]) Latest(k K) (Ask, bool) {
	q := p.queue(k)
	if q == nil || q.head == len(q.as) {
		return Ask{}, false
	}
	last := len(q.as) - 1
	a := q.as[last]
	q.as[last] = Ask{}
	q.as = q.as[:last]
	p.taken(k, q)
	return a, true
}

// OldestWhere answers the oldest unanswered asker, over every key, whose
// key satisfies match (ULinkRPC's Pong fallback: the oldest Ping of the
// opposite direction).
func (p *Pairs[K]) OldestWhere(match func(K) bool) (Ask, bool) {
	key, found := p.oldestKey(match)
	if !found {
		return Ask{}, false
	}
	return p.takeHead(key, p.open[key]), true
}

// Len is the number of unanswered askers.
func (p *Pairs[K]) Len() int { return p.count }

// Pending lists the unanswered askers with their keys, by N.
func (p *Pairs[K]) Pending() []Pending[K] {
	out := make([]Pending[K], 0, p.count)
	for k, q := range p.open {
		for _, a := range q.as[q.head:] {
			out = append(out, Pending[K]{Key: k, Ask: a})
		}
	}
	slices.SortFunc(out, func(a, b Pending[K]) int { return a.N - b.N })
	return out
}

// Pending is an unanswered asker and its key.
type Pending[K comparable] struct {
	Key K
	Ask
}

// Durations collects round-trip times or latencies for outputs.md's
// `{"min", "median", "max"}` objects.
type Durations struct{ v []time.Duration }

// Add adds one duration.
func (d *Durations) Add(x time.Duration) { d.v = append(d.v, x) }

// Len is the number of durations added.
func (d *Durations) Len() int { return len(d.v) }

// Prefix is the first n durations added (n ≤ Len), sharing d's storage:
// statistics as of an earlier point.
func (d *Durations) Prefix(n int) Durations { return Durations{v: d.v[:n:n]} }

// Latency returns the minimum, the median (over an even count the lower
// of the two middle values, outputs.md) and the maximum, and every latency
// figure of outputs.md (count, min, median, p90, p95, p99, max, mean,
// jitter) over the durations in the order added (stats.SummarizeSorted),
// sorting them once; ok is false and the Summary's Count 0 when nothing
// was added.
func (d *Durations) Latency() (min, median, max time.Duration, ok bool, sum stats.Summary) {
	if len(d.v) == 0 {
		return 0, 0, 0, false, stats.Summary{}
	}
	s := slices.Clone(d.v)
	slices.Sort(s)
	return s[0], s[(len(s)-1)/2], s[len(s)-1], true, stats.SummarizeSorted(d.v, s)
}
