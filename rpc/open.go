package rpc

import "slices"

// openList is a session's open askers (Requests and KeepAlivePings still
// unanswered), by n: the records pairing links answers to. A session
// numbers its records in order, so an asker is appended; an answer finds
// its asker by binary search and marks it gone, and the gone entries
// leave once they are half the list, so that its length follows the
// askers open, not all of them. Each record put says where its entry is
// (Record.openAt), so that Open reads one entry. (A map by n cost a hash
// insert, lookup and delete per call, and a lookup per host's Waiting,
// several a record: a tenth of the feeding side of `dump --json` on a
// million frames.)
type openList struct {
	open []openAsk
	dead int // gone entries still in open
}

// openAsk is an entry of an openList: r nil once gone.
type openAsk struct {
	n int
	r *Record
}

// index is where n is or would be in l, and whether it is there.
func (l *openList) index(n int) (int, bool) {
	lo, hi := 0, len(l.open)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.open[m].n < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(l.open) && l.open[lo].n == n
}

// put adds r, numbered, as open (replacing the asker of its number).
func (l *openList) put(r *Record) {
	if k := len(l.open); k == 0 || l.open[k-1].n < r.N {
		l.open = append(l.open, openAsk{r.N, r})
		r.openAt = int32(len(l.open))
		return
	}
	i, ok := l.index(r.N)
	if ok {
		if l.open[i].r == nil {
			l.dead--
		}
		l.open[i].r = r
		r.openAt = int32(i + 1)
		return
	}
	l.open = slices.Insert(l.open, i, openAsk{r.N, r})
	l.renumber(i)
}

// renumber sets the openAt of the records from entry i on.
func (l *openList) renumber(i int) {
	for ; i < len(l.open); i++ {
		if r := l.open[i].r; r != nil {
			r.openAt = int32(i + 1)
		}
	}
}

// holds reports whether r is open: its entry, where r.openAt says, is r
// (a copy of r is not; a record never put has openAt 0).
func (l *openList) holds(r *Record) bool {
	k := int(r.openAt) - 1
	return k >= 0 && k < len(l.open) && l.open[k].r == r
}

// find is the open asker numbered n, nil for none.
func (l *openList) find(n int) *Record {
	if i, ok := l.index(n); ok {
		return l.open[i].r
	}
	return nil
}

// take removes the open asker numbered n and returns it (nil for none).
func (l *openList) take(n int) *Record {
	i, ok := l.index(n)
	if !ok || l.open[i].r == nil {
		return nil
	}
	r := l.open[i].r
	l.open[i].r = nil
	l.gone()
	return r
}

// gone counts an entry gone, and drops the gone entries once they are
// half the list.
func (l *openList) gone() {
	l.dead++
	if l.dead >= 16 && 2*l.dead >= len(l.open) {
		// In place: the array is reused, so a steady traffic of calls
		// and answers allocates nothing.
		l.open = slices.DeleteFunc(l.open, func(a openAsk) bool { return a.r == nil })
		l.dead = 0
		l.renumber(0)
	}
}

// drop removes r, the open asker numbered n as a reqPairs entry gives it
// (nil for a light one), from where its entry lies, and returns it (nil
// when it is not open): take without its search.
func (l *openList) drop(r *Record, n int) *Record {
	if r == nil || r.N != n || !l.holds(r) {
		return l.take(n)
	}
	l.open[r.openAt-1].r = nil
	l.gone()
	return r
}

// len is the number of open askers.
func (l *openList) len() int { return len(l.open) - l.dead }
