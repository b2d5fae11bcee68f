package capture

import (
	"errors"
	"io"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"
)

// ErrQuiet is what Next of a source that may wait (standard input, a pipe)
// returns, with Options.Quiet set, once its input has brought nothing for
// that long after some packets (issue 24 point 3: `tcpdump -U -w - | usmnscope
// dump -` shows what has arrived while the traffic pauses). Before it, Next
// hands on the data that TCP reassembly holds behind a missing segment, as
// it would once the segment had been missing for flushAge (a gap event
// first): the pause gives the hole up. The source goes on: call Next again.
// A regular file never waits, so it never returns ErrQuiet.
var ErrQuiet = errors.New("capture: the input is quiet")

// quietRecord is a record read ahead by the quiet reader, with its own
// copy of the bytes.
type quietRecord struct {
	data  []byte
	ts    time.Time
	iface int
	link  layers.LinkType
	start int64 // recordReader.start
	read  int64 // input bytes read after it (Stats.Read)
	err   error
}

// quietState is a source's read-ahead for Options.Quiet: the record reader
// runs on a goroutine of its own, so that Next can stop waiting for it.
type quietState struct {
	every  time.Duration
	recs   chan quietRecord
	stop   chan struct{} // closed by Close
	closed bool
	timer  *time.Timer
	fresh  bool  // records came since the last ErrQuiet
	say    bool  // ErrQuiet is due once the queued events are out
	read   int64 // Stats.Read as of the last record handed over
	watch  *watchReader
}

// quietAhead is how many records the quiet reader reads ahead.
const quietAhead = 64

// watchReader tells whether a read of the input is blocked: the input is
// quiet only when its reader waits inside one read for the whole tick, not
// when the reader's goroutine merely did not run (a loaded machine), which
// would show a pause the input never had.
type watchReader struct {
	r     io.Reader
	calls atomic.Uint64
	in    atomic.Bool
}

func (w *watchReader) Read(p []byte) (int, error) {
	w.calls.Add(1)
	w.in.Store(true)
	n, err := w.r.Read(p)
	w.in.Store(false)
	return n, err
}

// startQuiet starts the quiet reader of s.
func (s *source) startQuiet(every time.Duration) {
	q := &quietState{every: every, recs: make(chan quietRecord, quietAhead), stop: make(chan struct{})}
	s.quiet = q
	if s.count != nil {
		q.watch = &watchReader{r: s.count.r}
		s.count.r = q.watch
	}
	rd, count, recs, stop := s.rd, s.count, q.recs, q.stop
	go func() {
		for {
			data, err := rd.next()
			rec := quietRecord{data: slices.Clone(data), ts: rd.ts, iface: rd.iface, link: rd.link, start: rd.start, err: err}
			if count != nil {
				rec.read = count.n
			}
			select {
			case recs <- rec:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
}

// nextQuiet is Next's read of one record with Options.Quiet: the next
// record, or ok false once the input was quiet for q.every after records
// (the held TCP data is then queued, and ErrQuiet is due).
func (s *source) nextQuiet() (rec quietRecord, ok bool) {
	q := s.quiet
	select {
	case rec = <-q.recs:
		q.fresh, q.read = true, rec.read
		return rec, true
	default:
	}
	if !q.fresh {
		rec = <-q.recs
		q.fresh, q.read = true, rec.read
		return rec, true
	}
	for {
		var calls uint64
		if q.watch != nil {
			calls = q.watch.calls.Load()
		}
		if q.timer == nil {
			q.timer = time.NewTimer(q.every)
		} else {
			q.timer.Reset(q.every)
		}
		select {
		case rec = <-q.recs:
			q.timer.Stop()
			q.fresh, q.read = true, rec.read
			return rec, true
		case <-q.timer.C:
		}
		if q.watch == nil || q.watch.in.Load() && q.watch.calls.Load() == calls {
			break // blocked in one read for the whole tick
		}
	}
	q.fresh, q.say = false, true
	s.e.quiet()
	return quietRecord{}, false
}

// quiet gives up every hole TCP reassembly holds data behind: the data
// goes on as if its missing segment had waited flushAge (a gap first).
func (e *engine) quiet() {
	t := &e.tcp
	if t.asm == nil || t.slow == 0 {
		return
	}
	t.flushing = true
	t.asm.FlushWithOptions(reassembly.FlushOptions{T: e.ts.Add(time.Nanosecond)})
	t.flushing = false
}
