package main

import "github.com/usmnscope/usmnscope/stats/report"

// statsFeed hands the records `stats` counts to Report.Add on a second
// goroutine (issue 26: stats --json within 1.3× tables --json; issue 28:
// use the second core where the work allows it). The decoding goroutine
// fills each record in place from the host's tally (the index forgets the
// message once Settled returns) and the counting runs behind it, in
// batches, in number order: the same Adds in the same order as one
// goroutine, so the same figures. Memory is the batches in flight: flat.
type statsFeed struct {
	free, full chan []report.Record
	cur        []report.Record
	done       chan struct{}
}

// statsBatch is the records a batch holds; statsBatches how many exist.
const (
	statsBatch   = 2048
	statsBatches = 4
)

// newStatsFeed starts the counting goroutine, which calls add on every
// committed record in order.
func newStatsFeed(add func(*report.Record)) *statsFeed {
	f := &statsFeed{free: make(chan []report.Record, statsBatches), full: make(chan []report.Record, statsBatches), done: make(chan struct{})}
	for i := 0; i < statsBatches; i++ {
		f.free <- make([]report.Record, 0, statsBatch)
	}
	f.cur = <-f.free
	go func() {
		defer close(f.done)
		for b := range f.full {
			for i := range b {
				add(&b[i])
			}
			f.free <- b[:0]
		}
	}()
	return f
}

// next returns the record to fill; commit counts it, and a record not
// committed is filled again by the next call.
func (f *statsFeed) next() *report.Record {
	if len(f.cur) == cap(f.cur) {
		f.full <- f.cur
		f.cur = <-f.free
	}
	return &f.cur[:len(f.cur)+1][len(f.cur)]
}

// commit counts the record next returned.
func (f *statsFeed) commit() { f.cur = f.cur[:len(f.cur)+1] }

// close hands on the last batch and waits until every record is counted.
func (f *statsFeed) close() {
	if len(f.cur) > 0 {
		f.full <- f.cur
	}
	close(f.full)
	<-f.done
}
