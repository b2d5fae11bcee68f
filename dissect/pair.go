package dissect

import (
	"slices"
	"time"
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
type Pairs[K comparable] struct {
	Max     int
	Dropped int64
	open    map[K][]Ask
	count   int
}

// DefaultMaxAsks bounds a Pairs with Max 0.
const DefaultMaxAsks = 1 << 16

// Ask records an asking message under k. When that goes past Max, the
// oldest asker is forgotten and returned (dropped true), so that the caller
// can forget what it keeps about it.
func (p *Pairs[K]) Ask(k K, a Ask) (forgotten Ask, dropped bool) {
	if p.open == nil {
		p.open = make(map[K][]Ask)
	}
	max := p.Max
	if max <= 0 {
		max = DefaultMaxAsks
	}
	if p.count >= max {
		forgotten, dropped = p.dropOldest()
	}
	p.open[k] = append(p.open[k], a)
	p.count++
	return forgotten, dropped
}

// dropOldest forgets the asker with the lowest N.
func (p *Pairs[K]) dropOldest() (Ask, bool) {
	var key K
	found := false
	best := 0
	for k, as := range p.open {
		if len(as) > 0 && (!found || as[0].N < best) {
			key, best, found = k, as[0].N, true
		}
	}
	if !found {
		return Ask{}, false
	}
	p.Dropped++
	return p.take(key, 0), true
}

func (p *Pairs[K]) take(k K, i int) Ask {
	as := p.open[k]
	a := as[i]
	as = slices.Delete(as, i, i+1)
	if len(as) == 0 {
		delete(p.open, k)
	} else {
		p.open[k] = as
	}
	p.count--
	return a
}

// Oldest answers the oldest unanswered asker of k (first in, first out).
func (p *Pairs[K]) Oldest(k K) (Ask, bool) {
	if len(p.open[k]) == 0 {
		return Ask{}, false
	}
	return p.take(k, 0), true
}

// Latest answers the latest unanswered asker of k.
func (p *Pairs[K]) Latest(k K) (Ask, bool) {
	as := p.open[k]
	if len(as) == 0 {
		return Ask{}, false
	}
	return p.take(k, len(as)-1), true
}

// OldestWhere answers the oldest unanswered asker, over every key, whose
// key satisfies match (ULinkRPC's Pong fallback: the oldest Ping of the
// opposite direction).
func (p *Pairs[K]) OldestWhere(match func(K) bool) (Ask, bool) {
	var key K
	found := false
	best := 0
	for k, as := range p.open {
		if len(as) > 0 && match(k) && (!found || as[0].N < best) {
			key, best, found = k, as[0].N, true
		}
	}
	if !found {
		return Ask{}, false
	}
	return p.take(key, 0), true
}

// Len is the number of unanswered askers.
func (p *Pairs[K]) Len() int { return p.count }

// Pending lists the unanswered askers with their keys, by N.
func (p *Pairs[K]) Pending() []Pending[K] {
	out := make([]Pending[K], 0, p.count)
	for k, as := range p.open {
		for _, a := range as {
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

// Stats returns the minimum, the median (over an even count the lower of
// the two middle values, outputs.md) and the maximum; ok is false when
// nothing was added.
func (d *Durations) Stats() (min, median, max time.Duration, ok bool) {
	if len(d.v) == 0 {
		return 0, 0, 0, false
	}
	s := slices.Clone(d.v)
	slices.Sort(s)
	return s[0], s[(len(s)-1)/2], s[len(s)-1], true
}
