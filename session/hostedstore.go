package session

import "github.com/usmnscope/usmnscope/decode"

// hostedStore holds the hosted records an index keeps (Index.hostedRecs):
// a full index's for good, by record index in a map (answered askers leave
// it for their slim form in any order), a Stream's until each is handed
// out, in a ring: a Stream keeps records from the newest index and hands
// them out in index order, so the ring holds the window of indices from
// the oldest kept to the newest (issue 28: the map's insert, lookup and
// delete a record were a tenth of the feeding side of `dump --json`).
type hostedStore struct {
	m map[int32]decode.Record // a full index's (full); nil for a Stream's
	// ring holds indices base..base+n-1 at index & (len(ring)-1), nil for
	// none; its length is a power of two.
	ring []decode.Record
	base int32
	n    int32
}

// full makes s a full index's store (a map), before its first record.
func (s *hostedStore) full() {
	if s.m == nil {
		s.m = map[int32]decode.Record{}
	}
}

// get is record i, nil for none.
func (s *hostedStore) get(i int32) decode.Record {
	if s.m != nil {
		return s.m[i]
	}
	if k := i - s.base; k < 0 || k >= s.n {
		return nil
	}
	return s.ring[int(i)&(len(s.ring)-1)]
}

// put keeps r as record i: in a Stream's store, i is past every index
// it holds.
func (s *hostedStore) put(i int32, r decode.Record) {
	if s.m != nil {
		s.m[i] = r
		return
	}
	if s.n == 0 {
		s.base = i
	}
	if i < s.base {
		// Not a Stream's order: the ring is laid out again from i.
		s.grow(i, s.base+s.n-i)
	}
	if need := i - s.base + 1; int(need) > len(s.ring) {
		s.grow(s.base, need)
	}
	s.ring[int(i)&(len(s.ring)-1)] = r
	s.n = max(s.n, i-s.base+1)
}

// grow lays the ring out again for indices from base, at least need of
// them, keeping what it holds.
func (s *hostedStore) grow(base, need int32) {
	size := max(len(s.ring), 64)
	for size < int(need) {
		size *= 2
	}
	ring := make([]decode.Record, size)
	for k := range s.n {
		if r := s.ring[int(s.base+k)&(len(s.ring)-1)]; r != nil {
			ring[int(s.base+k)&(size-1)] = r
		}
	}
	s.n += s.base - base
	s.ring, s.base = ring, base
}

// del forgets record i.
func (s *hostedStore) del(i int32) {
	if s.m != nil {
		delete(s.m, i)
		return
	}
	if k := i - s.base; k < 0 || k >= s.n {
		return
	}
	mask := len(s.ring) - 1
	s.ring[int(i)&mask] = nil
	for s.n > 0 && s.ring[int(s.base)&mask] == nil {
		s.base++
		s.n--
	}
}
