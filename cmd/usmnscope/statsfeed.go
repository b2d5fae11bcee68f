package main

import (
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/stats/report"
)

// statsFeed hands the messages `stats` counts to a second goroutine
// (issue 26: stats --json within 1.3× tables --json; issue 28: use the
// second core where the work allows it). The decoding goroutine copies
// each message's tally (its field spans into the batch: the index forgets
// them once Settled returns) or, for what a tally cannot say, fills its
// record; the counting goroutine makes the records of the tallies and
// adds every record to the report, in number order: the same Adds in the
// same order as one goroutine, so the same figures. Memory is the batches
// in flight: flat in the messages.
type statsFeed struct {
	free, full chan *statsBatch
	cur        *statsBatch
	done       chan struct{}
}

// statsItem is one message: its tally, to be made a record on the
// counting goroutine, or its record made already.
type statsItem struct {
	tallied bool
	tally   session.Tally
	rec     report.Record
}

// statsBatch is a batch of items and the spans their tallies point into.
type statsBatch struct {
	items []statsItem
	spans []netpak.Span
}

// statsBatchLen is the items a batch holds; statsBatches how many exist.
const (
	statsBatchLen = 1024
	statsBatches  = 4
)

// newStatsFeed starts the counting goroutine, which calls add on the
// record of every committed item in order.
func newStatsFeed(add func(*report.Record)) *statsFeed {
	f := &statsFeed{free: make(chan *statsBatch, statsBatches), full: make(chan *statsBatch, statsBatches), done: make(chan struct{})}
	for i := 0; i < statsBatches; i++ {
		f.free <- &statsBatch{items: make([]statsItem, 0, statsBatchLen)}
	}
	f.cur = <-f.free
	go func() {
		defer close(f.done)
		var ad report.Adapter
		for b := range f.full {
			for i := range b.items {
				it := &b.items[i]
				if it.tallied {
					ad.Tally(&it.tally, &it.rec)
				}
				add(&it.rec)
			}
			b.items, b.spans = b.items[:0], b.spans[:0]
			f.free <- b
		}
	}()
	return f
}

// next returns the item to fill; commit counts it, and an item not
// committed is filled again by the next call.
func (f *statsFeed) next() *statsItem {
	if len(f.cur.items) == cap(f.cur.items) {
		f.full <- f.cur
		f.cur = <-f.free
	}
	it := &f.cur.items[:len(f.cur.items)+1][len(f.cur.items)]
	it.tallied = false
	return it
}

// tallied marks it as a tally whose record the counting goroutine makes,
// its spans copied into the batch.
func (f *statsFeed) tallied(it *statsItem) {
	s0 := len(f.cur.spans)
	f.cur.spans = append(f.cur.spans, it.tally.Spans...)
	it.tally.Spans = f.cur.spans[s0:len(f.cur.spans):len(f.cur.spans)]
	it.tallied = true
}

// commit counts the item next returned.
func (f *statsFeed) commit() { f.cur.items = f.cur.items[:len(f.cur.items)+1] }

// close hands on the last batch and waits until every record is counted.
func (f *statsFeed) close() {
	if len(f.cur.items) > 0 {
		f.full <- f.cur
	}
	close(f.full)
	<-f.done
}
