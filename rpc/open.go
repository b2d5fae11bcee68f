package rpc

import (
	"cmp"
	"slices"
)

// openList is a session's open askers (Requests and KeepAlivePings still
// unanswered), by n: the records pairing links answers to. A session
// numbers its records in order, so an asker is appended; an answer finds
// its asker by binary search and marks it gone, and the gone entries
// leave once they are half the list, so that its length follows the
// askers open, not all of them. (A map by n cost a hash insert, lookup
// and delete per call, and a lookup per host's Waiting: a tenth of the
// feeding side of `dump --json` on a million frames.)
type openList struct {
	open []openAsk
	dead int // gone entries still in open
}

// openAsk is an entry of an openList: r nil once gone.
type openAsk struct {
	n int
	r *Record
}

func openByN(a openAsk, n int) int { return cmp.Compare(a.n, n) }

// put adds r, numbered, as open (replacing the asker of its number).
func (l *openList) put(r *Record) {
	r.asked = true
	if k := len(l.open); k == 0 || l.open[k-1].n < r.N {
		l.open = append(l.open, openAsk{r.N, r})
		return
	}
	i, ok := slices.BinarySearchFunc(l.open, r.N, openByN)
	if ok {
		if l.open[i].r == nil {
			l.dead--
		}
		l.open[i].r = r
		return
	}
	l.open = slices.Insert(l.open, i, openAsk{r.N, r})
}

// find is the open asker numbered n, nil for none.
func (l *openList) find(n int) *Record {
	if i, ok := slices.BinarySearchFunc(l.open, n, openByN); ok {
		return l.open[i].r
	}
	return nil
}

// take removes the open asker numbered n and returns it (nil for none).
func (l *openList) take(n int) *Record {
	i, ok := slices.BinarySearchFunc(l.open, n, openByN)
	if !ok || l.open[i].r == nil {
		return nil
	}
	r := l.open[i].r
	l.open[i].r = nil
	l.dead++
	if l.dead >= 16 && 2*l.dead >= len(l.open) {
		// In place: the array is reused, so a steady traffic of calls
		// and answers allocates nothing.
		l.open = slices.DeleteFunc(l.open, func(a openAsk) bool { return a.r == nil })
		l.dead = 0
	}
	return r
}

// len is the number of open askers.
func (l *openList) len() int { return len(l.open) - l.dead }
