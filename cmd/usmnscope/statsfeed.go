package main

import (
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/stats/report"
)

// statsFeed hands the messages `stats` counts to a second goroutine
// (issue 26: stats --json within 1.3× tables --json; issue 28: use the
// second core where the work allows it). The decoding goroutine copies
// each message's tally (its bytes into the batch: the index forgets them
// once Settled returns) or, for what a tally cannot say, fills its
// record; the counting goroutine decodes the tallies' bytes again for
// their field spans, makes their records and adds every record to the
// report, in number order: the same Adds in the same order as one
// goroutine, so the same figures. Memory is the batches in flight, each
// bounded in items and bytes: flat in the messages.
type statsFeed struct {
	free, full chan *statsBatch
	cur        *statsBatch
	done       chan struct{}
}

// statsItem is one message: its tally, to be made a record on the
// counting goroutine, or the index of its record made already in the
// batch's recs (-1 for a tally). Items are small and filled in sequence:
// the decoding goroutine writes one per message.
type statsItem struct {
	tally session.Tally
	rec   int32
}

// statsBatch is a batch of items, the bytes their tallies point into and
// the records made on the decoding goroutine.
type statsBatch struct {
	items []statsItem
	data  []byte
	recs  []report.Record
}

// statsBatchLen is the items a batch holds, statsBatchBytes the bytes of
// its tallies past which it is handed on before it is full (messages of
// up to 64 KiB would otherwise hold 64 MiB a batch); statsBatches is how
// many batches exist.
const (
	statsBatchLen   = 2048
	statsBatchBytes = 1 << 20
	statsBatches    = 4
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
		var (
			ad  report.Adapter
			rec report.Record
		)
		for b := range f.full {
			for i := range b.items {
				it := &b.items[i]
				r := &rec
				if it.rec >= 0 {
					r = &b.recs[it.rec]
				} else {
					ad.Tally(&it.tally, r)
				}
				add(r)
			}
			b.items, b.data, b.recs = b.items[:0], b.data[:0], b.recs[:0]
			f.free <- b
		}
	}()
	return f
}

// next returns the item to fill, a tally until record is called; commit
// counts it, and an item not committed is filled again by the next call.
func (f *statsFeed) next() *statsItem {
	if len(f.cur.items) == cap(f.cur.items) || len(f.cur.data) >= statsBatchBytes {
		f.full <- f.cur
		f.cur = <-f.free
	}
	it := &f.cur.items[:len(f.cur.items)+1][len(f.cur.items)]
	it.rec = -1
	return it
}

// record returns the record of it, which the caller fills: a message a
// tally cannot say, or one whose record the decoding goroutine makes.
func (f *statsFeed) record(it *statsItem) *report.Record {
	if it.rec < 0 {
		it.rec = int32(len(f.cur.recs))
		f.cur.recs = append(f.cur.recs, report.Record{})
	}
	return &f.cur.recs[it.rec]
}

// tallied copies its bytes into the batch (the counting goroutine
// decodes them again for the bit split: Tally.Spans). A batch whose
// bytes grow moves them; the items before keep the old array, which
// nothing writes again.
func (f *statsFeed) tallied(it *statsItem) {
	s0 := len(f.cur.data)
	f.cur.data = append(f.cur.data, it.tally.Data...)
	it.tally.Data = f.cur.data[s0:len(f.cur.data):len(f.cur.data)]
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
