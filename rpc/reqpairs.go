package rpc

import (
	"slices"

	"github.com/usmnscope/usmnscope/dissect"
)

// reqPairs holds a session's unanswered Requests by (direction,
// request_id) as dissect.Pairs[reqKey] does, with the same answers: Ask,
// Latest (ULinkRPC answers a key's latest asker), Pending, and past Max
// the oldest forgotten and counted in Dropped; with each asker its record
// (nil for a light one), which Latest and a forgetting Ask give back, so
// that the asker is taken from the open ones where it lies (openList.drop)
// without a search. A key's latest asker lies
// in the slot of an open-addressing table, its earlier ones (a request_id
// used again while open, rare) in more: a call and its answer cost a
// probe each, where the map of queues of dissect.Pairs cost four map
// operations (a tenth of the feeding side of `dump --json` on a million
// frames).
type reqPairs struct {
	Max     int
	Dropped int64
	slots   []reqSlot // a power of two long, probed linearly
	used    int
	count   int
	more    map[reqKey][]reqAsk // a key's askers before its latest, oldest first
}

// reqAsk is an asker and its record.
type reqAsk struct {
	a   dissect.Ask
	rec *Record
}

// reqSlot is a key and its latest asker; full says it is taken.
type reqSlot struct {
	key reqKey
	reqAsk
	full bool
}

// find is the slot of k, or the empty slot where it would go.
func (p *reqPairs) find(k reqKey) (int, bool) {
	mask := len(p.slots) - 1
	i := int(uint64(k)*0x9E3779B97F4A7C15>>32) & mask
	for {
		s := &p.slots[i]
		if !s.full {
			return i, false
		}
		if s.key == k {
			return i, true
		}
		i = (i + 1) & mask
	}
}

// Ask records an asker under k; past Max, the oldest asker is forgotten
// and returned (dropped true), as dissect.Pairs.Ask does.
func (p *reqPairs) Ask(k reqKey, a dissect.Ask, rec *Record) (forgotten reqAsk, dropped bool) {
	max := p.Max
	if max <= 0 {
		max = dissect.DefaultMaxAsks
	}
	if p.count >= max {
		forgotten, dropped = p.dropOldest()
	}
	if 4*(p.used+1) > 3*len(p.slots) {
		p.grow()
	}
	p.count++
	i, ok := p.find(k)
	s := &p.slots[i]
	if ok {
		if p.more == nil {
			p.more = map[reqKey][]reqAsk{}
		}
		p.more[k] = append(p.more[k], s.reqAsk)
		s.reqAsk = reqAsk{a, rec}
		return forgotten, dropped
	}
	*s = reqSlot{key: k, reqAsk: reqAsk{a, rec}, full: true}
	p.used++
	return forgotten, dropped
}

// grow doubles the table (or makes it) and puts the slots back.
func (p *reqPairs) grow() {
	old := p.slots
	p.slots = make([]reqSlot, max(2*len(old), 64))
	for _, s := range old {
		if s.full {
			i, _ := p.find(s.key)
			p.slots[i] = s
		}
	}
}

// Latest answers the latest unanswered asker of k.
func (p *reqPairs) Latest(k reqKey) (reqAsk, bool) {
	if p.used == 0 {
		return reqAsk{}, false
	}
	i, ok := p.find(k)
	if !ok {
		return reqAsk{}, false
	}
	a := p.slots[i].reqAsk
	p.count--
	if ms := p.more[k]; len(ms) > 0 {
		p.slots[i].reqAsk = ms[len(ms)-1]
		p.setMore(k, ms[:len(ms)-1])
		return a, true
	}
	p.remove(i)
	return a, true
}

// setMore keeps ms as k's earlier askers, none when empty.
func (p *reqPairs) setMore(k reqKey, ms []reqAsk) {
	if len(ms) == 0 {
		delete(p.more, k)
		return
	}
	p.more[k] = ms
}

// remove empties slot i, moving back the slots after it that its being
// taken would hide from their probes (linear probing's deletion).
func (p *reqPairs) remove(i int) {
	mask := len(p.slots) - 1
	p.used--
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := &p.slots[j]
		if !s.full {
			break
		}
		home := int(uint64(s.key)*0x9E3779B97F4A7C15>>32) & mask
		// s may move to i when i lies on its probe from home to j.
		if (j-home)&mask >= (j-i)&mask {
			p.slots[i] = *s
			i = j
		}
	}
	p.slots[i] = reqSlot{}
}

// dropOldest forgets the asker with the lowest N.
func (p *reqPairs) dropOldest() (reqAsk, bool) {
	best, at := -1, -1
	for i := range p.slots {
		s := &p.slots[i]
		if !s.full {
			continue
		}
		oldest := s.a
		if ms := p.more[s.key]; len(ms) > 0 {
			oldest = ms[0].a
		}
		if at < 0 || oldest.N < best {
			best, at = oldest.N, i
		}
	}
	if at < 0 {
		return reqAsk{}, false
	}
	p.Dropped++
	p.count--
	s := &p.slots[at]
	if ms := p.more[s.key]; len(ms) > 0 {
		a := ms[0]
		p.setMore(s.key, ms[1:])
		return a, true
	}
	a := s.reqAsk
	p.remove(at)
	return a, true
}

// Len is the number of unanswered askers.
func (p *reqPairs) Len() int { return p.count }

// Pending lists the unanswered askers with their keys, by N.
func (p *reqPairs) Pending() []dissect.Pending[reqKey] {
	out := make([]dissect.Pending[reqKey], 0, p.count)
	for _, s := range p.slots {
		if !s.full {
			continue
		}
		for _, m := range p.more[s.key] {
			out = append(out, dissect.Pending[reqKey]{Key: s.key, Ask: m.a})
		}
		out = append(out, dissect.Pending[reqKey]{Key: s.key, Ask: s.a})
	}
	slices.SortFunc(out, func(a, b dissect.Pending[reqKey]) int { return a.N - b.N })
	return out
}
