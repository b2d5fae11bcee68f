package pipeline

import (
	"fmt"
	"math"
	"time"

	"github.com/usmnscope/usmnscope/capture"
)

// ahead reads a file source's events on a goroutine of its own, a batch
// ahead of the decoder (issue 28: the second core). Reading a capture
// (its blocks, link and IP layers, TCP reassembly) is about a third of
// tables --json; the decoder, which numbers messages by arrival across the
// whole capture, stays one goroutine, so nothing it hands out changes.
//
// The decoder sees the events in the source's order, each with the
// statistics of its batch's end. Several captures merged are not read
// ahead (pipeline.go). Two things go back from the decoder to the source,
// and the reader waits for them:
//   - a claim: on some datagrams (side.MayClaim: a KCP handshake, whether
//     probed or on a flow already claimed) the decoder may claim a flow
//     (capture.DatagramClaimer), which decides whether the source yields
//     that flow's next datagrams. The reader sends such an event's batch
//     at once and reads on only after the decoder has applied it, so the
//     claim reaches the source while the reader is not in it, at the
//     point of the input it reached without the reader;
//   - the end: once the decoder stops (end of input, a cut, an error) the
//     reader stops too and is waited for, so the caller may close the
//     source.
//
// An event's Data is valid until the source's next Next call; the reader
// copies it into its batch, which the decoder gives back when it is done
// with it. A batch keeps its events compact (aheadEv), and next makes each
// whole again as the decoder reads it.
type ahead struct {
	src     capture.Source
	sync    func(*capture.Event) bool // the events the decoder may answer (a claim)
	full    chan *aheadBatch
	free    chan *aheadBatch
	applied chan struct{}     // the decoder applied a batch that asked for it (sync)
	stop    chan struct{}     // closed by close: the decoder stopped
	done    chan struct{}     // closed when the reader returned
	start   capture.Stats     // the source's statistics before the reader started
	events  int               // a batch's events (batchSize)
	bytes   int               // and Data bytes
	slots   [flowSlots]uint32 // the reader's: flows of the batch being filled by a hash of their ports, index+1

	// The decoder's own, on cache lines apart from what the reader reads
	// for every event: at changes with each event.
	_        [64]byte
	cur      *aheadBatch   // the batch the decoder reads
	at       int           // its next event
	ev       capture.Event // the event next made whole
	stopping bool
}

// aheadBatch is one batch of events and the bytes of their Data.
type aheadBatch struct {
	evs   []aheadEv
	flows []capture.Flow  // the events' flows, each once
	odd   []capture.Event // the events aheadEv cannot hold (aheadOdd)
	data  []byte
	stats capture.Stats
	err   error // the error Next returned after evs, nil for none
	bug   any   // a panic of the reader (a bug): the decoder panics with it
	sync  bool  // the reader waits until the decoder applied the batch
}

// A batch holds up to aheadEvents events or aheadBytes of their Data.
// Each batch handed over may wake the other goroutine, a futex call on
// either side: with batches of 256 events `tables --json` over 4M
// messages took 1.47 CPU-s, with 2,048 1.32 (issue 28). A batch being
// filled, one being decoded and one waiting between them are enough.
// The batches of a smaller file are smaller (batchSize): what they hold
// is resident, and the TUI's bytes a frame count it (issue 28).
const (
	aheadEvents  = 2048     // events a batch
	aheadBytes   = 1 << 20  // Data bytes a batch, unless one event is larger
	aheadBatches = 3        // batches in flight
	aheadData    = 64 << 10 // a batch's Data bytes at first, grown by append as its events need
)

// batchSize is the events and Data bytes of a batch for a file of size
// bytes (0 or less: unknown): a 128th of the file, between a quarter of
// aheadBytes and aheadBytes, and an event per 512 bytes of it.
func batchSize(size int64) (events, bytes int) {
	bytes = aheadBytes / 4
	if size > 0 {
		bytes = int(min(max(size/128, aheadBytes/4), aheadBytes))
	}
	return bytes / (aheadBytes / aheadEvents), bytes
}

// aheadEv is an event kept in a batch: 48 bytes where a capture.Event
// takes 168, its flow an index in the batch's flows and its time seconds
// and nanoseconds, for the events whose fields fit (ahead.add); the others
// are kept whole in the batch's odd. The batches in flight were the part
// of tables --json's peak RSS that grew with the file (issue 28: 6,144
// events of 168 bytes, and Data bytes set aside by the MiB, at 4M
// messages, where a 200k-message file's batches hold 1,536 events).
type aheadEv struct {
	sec        int64 // Time in UTC: Unix and Nanosecond
	offset     int64
	start, end uint32 // Data in the batch's data
	flow       uint32 // index in the batch's flows; with aheadOdd, in its odd
	id         uint32
	frame      uint32
	lost       uint32
	nsec       uint32
	kind       capture.EventKind
	rule       capture.ServerRule
	level      capture.Level
	bits       uint8 // aheadFromServer, aheadProbe, aheadOdd
}

const (
	aheadFromServer uint8 = 1 << iota
	aheadProbe
	aheadOdd // the event is whole in the batch's odd
)

// flowSlots is the size of the reader's table of a batch's flows by a
// hash of their ports (ahead.slots): a flow not found there is added to
// the batch's flows again, which costs 64 bytes, not a wrong flow.
const flowSlots = 64

// readAhead starts reading src ahead; close stops it. An event sync
// reports true on (nil: none) ends its batch, and the reader reads on only
// once the decoder applied it.
func readAhead(src capture.Source, sync func(*capture.Event) bool) *ahead {
	a := &ahead{src: src, sync: sync, full: make(chan *aheadBatch, aheadBatches), free: make(chan *aheadBatch, aheadBatches),
		applied: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{}), start: src.Stats()}
	a.events, a.bytes = batchSize(a.start.Size)
	for range aheadBatches {
		a.free <- &aheadBatch{evs: make([]aheadEv, 0, a.events), data: make([]byte, 0, min(a.bytes, aheadData))}
	}
	go a.read()
	return a
}

// read is the reader's goroutine.
func (a *ahead) read() {
	defer close(a.done)
	var b *aheadBatch
	sent := false
	defer func() {
		if r := recover(); r != nil {
			if b == nil || sent {
				b = &aheadBatch{}
			}
			b.bug = fmt.Sprintf("%v", r)
			a.send(b)
		}
	}()
	for {
		select {
		case b = <-a.free:
		case <-a.stop:
			return
		}
		sent = false
		b.reset()
		a.slots = [flowSlots]uint32{}
		for len(b.evs) < a.events && len(b.data) < a.bytes {
			ev, err := a.src.Next()
			if err != nil {
				b.err = err
				break
			}
			a.add(b, ev)
			if ev.Kind == capture.EventDatagram && a.sync != nil && a.sync(ev) { // a claim answers a datagram
				b.sync = true
				break
			}
		}
		b.stats = a.src.Stats()
		// b is the decoder's once sent: what the reader needs of it after
		// is read before.
		sync, err := b.sync, b.err
		if sent = a.send(b); !sent {
			return
		}
		if sync {
			select {
			case <-a.applied:
			case <-a.stop:
				return
			}
		}
		if err != nil && err != capture.ErrQuiet {
			return
		}
	}
}

// send hands b to the decoder; false when the decoder stopped.
func (a *ahead) send(b *aheadBatch) bool {
	select {
	case a.full <- b:
		return true
	case <-a.stop:
		return false
	}
}

func (b *aheadBatch) reset() {
	clear(b.odd) // their Text
	b.evs, b.flows, b.odd, b.data = b.evs[:0], b.flows[:0], b.odd[:0], b.data[:0]
	b.err, b.bug, b.sync = nil, nil, false
}

// add copies ev and its Data into b, the batch being filled: compact
// when its fields fit aheadEv and its time is UTC, whole in b.odd else.
func (a *ahead) add(b *aheadBatch, ev *capture.Event) {
	at := len(b.data)
	b.data = append(b.data, ev.Data...)
	e := aheadEv{offset: ev.Offset, start: uint32(at), end: uint32(len(b.data)), id: ev.ID,
		frame: uint32(ev.Frame), lost: uint32(ev.Lost), kind: ev.Kind, rule: ev.Rule, level: ev.Level}
	if ev.FromServer {
		e.bits |= aheadFromServer
	}
	if ev.Probe {
		e.bits |= aheadProbe
	}
	e.sec, e.nsec = ev.Time.Unix(), uint32(ev.Time.Nanosecond())
	if ev.Text != "" || uint(ev.Frame) > math.MaxUint32 || uint(ev.Lost) > math.MaxUint32 ||
		ev.Time != time.Unix(e.sec, int64(e.nsec)).UTC() {
		e.bits |= aheadOdd
		e.flow = uint32(len(b.odd))
		b.odd = append(b.odd, *ev)
		b.odd[e.flow].Data = nil // set by next, once data no longer moves
		b.evs = append(b.evs, e)
		return
	}
	// The flow: the slot of its ports' hash, when that holds it, else
	// added to the batch's flows.
	f := &ev.Flow
	slot := &a.slots[(uint32(f.Client.Port())*0x9E3779B1^uint32(f.Server.Port()))%flowSlots]
	if *slot == 0 || b.flows[*slot-1] != *f {
		b.flows = append(b.flows, *f)
		*slot = uint32(len(b.flows))
	}
	e.flow = *slot - 1
	b.evs = append(b.evs, e)
}

// whole is the event e of b made whole in dst (an odd one is b's own).
func (b *aheadBatch) whole(e *aheadEv, dst *capture.Event) *capture.Event {
	data := b.data[e.start:e.end:e.end]
	if e.bits&aheadOdd != 0 {
		o := &b.odd[e.flow]
		o.Data = data
		return o
	}
	*dst = capture.Event{Flow: b.flows[e.flow], Data: data, Lost: int(e.lost), Time: time.Unix(e.sec, int64(e.nsec)).UTC(),
		Frame: int(e.frame), Offset: e.offset, ID: e.id, Kind: e.kind, Rule: e.rule,
		FromServer: e.bits&aheadFromServer != 0, Level: e.level, Probe: e.bits&aheadProbe != 0}
	return dst
}

// next is the next event, or nil with the error the source returned
// instead. An event is the decoder's until the next call.
func (a *ahead) next() (*capture.Event, error) {
	for a.cur == nil || a.at == len(a.cur.evs) {
		if a.cur != nil {
			if bug := a.cur.bug; bug != nil {
				panic(bug) // after the events read before it, as without the reader
			}
			if err := a.cur.err; err != nil {
				a.cur.err = nil // ErrQuiet: reported once, the reader reads on
				return nil, err
			}
			a.release()
		}
		a.cur, a.at = <-a.full, 0
	}
	a.at++
	return a.cur.whole(&a.cur.evs[a.at-1], &a.ev), nil
}

// release gives the current batch back to the reader, telling it first
// when it waits for the batch to be applied.
func (a *ahead) release() {
	b := a.cur
	a.cur = nil
	if b.sync {
		a.applied <- struct{}{}
	}
	a.free <- b
}

// stats is the source's statistics as of the current batch's end (before
// the first batch, as of the start): never the source's own, which the
// reader is changing.
func (a *ahead) stats() capture.Stats {
	if a.cur == nil {
		return a.start
	}
	return a.cur.stats
}

// close stops the reader and waits for it: the source is the caller's
// again.
func (a *ahead) close() {
	if !a.stopping {
		a.stopping = true
		close(a.stop)
	}
	<-a.done
}
