package tuifeed

import (
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/views"
)

// IdleFlush is the longest a decoded event waits before the UI is told of
// it (issue 13 point 3): the feeder's progress messages are throttled on
// their leading edge, so the last events of a burst send none; a ticker
// sends what they left unsent, whatever the writer does next (a pipe that
// stalls between tcpdump bursts, an idle interface). It is below the
// 100 ms the issue asks for, so that the tick plus the redraw stay inside.
const IdleFlush = pipeline.IdleFlush

// Clock is the time the UI feeder reads: the wall clock, or a fake one in
// tests, so that the idle flush is tested without sleeping.
type Clock interface {
	Now() time.Time
	// Ticker returns a channel that receives a time every d, and its stop.
	Ticker(d time.Duration) (<-chan time.Time, func())
}

// WallClock is the Clock of the wall.
type WallClock struct{}

func (WallClock) Now() time.Time { return time.Now() }

func (WallClock) Ticker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// refresher decides when the feeder tells the UI of new events: at once
// when the last message is refreshInterval old, else on the next idle
// tick. Both the feeder and the ticker goroutine call it.
type refresher struct {
	send func(tea.Msg)
	clk  Clock

	// events counts the feeder's events since it last sent (the feeder's
	// alone); skipped says events passed without the lock since the
	// feeder last took it.
	events  int
	skipped atomic.Bool

	mu     sync.Mutex
	last   time.Time     // when the last ProgressMsg was sent
	dirty  bool          // events were applied since
	latest capture.Stats // the feeder's statistics as of its last check
}

// clockEvery is how often (in events) the feeder's hook takes the lock and
// reads the clock after the first event since it sent: the clock and the
// lock were a twentieth of a million-message load (issue 18). Events in
// between only mark that something waits, for the next check or the idle
// tick (IdleFlush at most); for a file they skip the lock too, so the
// progress fraction sent is up to clockEvery-1 events old.
const clockEvery = 16

// fileRefresh is refreshInterval for a capture file: nothing there waits
// on a writer, so its load redraws at 10 Hz (issue 18: each redraw is a
// frame built and diffed, a tenth of a million-message load at 20 Hz).
const fileRefresh = 100 * time.Millisecond

// interval is how far apart progress messages are: refreshInterval for
// standard input and live capture (Size unknown), whose last events must
// show within issue 13's 100 ms, fileRefresh for a file.
func interval(st capture.Stats) time.Duration {
	if st.Size > 0 {
		return fileRefresh
	}
	return refreshInterval
}

// event is the feeder's per-event hook.
func (r *refresher) event(st capture.Stats) {
	r.events++
	skip := r.events%clockEvery != 1
	if skip && st.Size > 0 {
		// A file: only the progress fraction goes stale.
		if !r.skipped.Load() {
			r.skipped.Store(true)
		}
		return
	}
	r.mu.Lock()
	r.latest = st
	r.skipped.Store(false)
	if skip {
		// Standard input or live: the statistics stay current (the live
		// packet rate), the clock is read every clockEvery events.
		r.dirty = true
		r.mu.Unlock()
		return
	}
	now := r.clk.Now()
	send := now.Sub(r.last) >= interval(st)
	if send {
		r.last, r.dirty, r.events = now, false, 0
	} else {
		r.dirty = true
	}
	r.mu.Unlock()
	if send {
		r.send(views.ProgressMsg{Fraction: Fraction(st)})
	}
}

// idle is the ticker's hook: events left unsent by the throttle are sent.
func (r *refresher) idle(now time.Time) {
	r.mu.Lock()
	st := r.latest
	if r.skipped.Swap(false) {
		r.dirty = true
	}
	// A file's tick sends only when about fileRefresh has passed (the
	// tick's phase is anywhere in IdleFlush); a pipe's or live capture's,
	// whenever events wait.
	send := r.dirty && (st.Size <= 0 || now.Sub(r.last) >= fileRefresh-IdleFlush/2)
	if send {
		r.last, r.dirty = now, false
	}
	r.mu.Unlock()
	if send {
		r.send(views.ProgressMsg{Fraction: Fraction(st)})
	}
}

func (r *refresher) stats() capture.Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.latest
}

// Run runs feed (a decode's Feed: the capture read into the index the UI
// shows) in a goroutine, telling the UI through send: progress (throttled,
// with the idle flush), live counters once a second when live, and a final
// ProgressMsg when the input ends; after, when not nil, runs once the feed
// ended without error, before that message. The returned channel closes
// when the feeder and its tickers are done.
func Run(feed func(progress func(capture.Stats)) error, send func(tea.Msg), clk Clock, live bool, after func()) <-chan struct{} {
	r := &refresher{send: send, clk: clk}
	fed := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(fed)
		err := feed(r.event)
		if err == nil && after != nil {
			after() // before Done: what it adds shows with the loaded capture
		}
		send(views.ProgressMsg{Fraction: 1, Done: true, Err: err})
	}()
	go func() {
		defer close(done)
		ticks, stop := clk.Ticker(IdleFlush)
		defer stop()
		var second <-chan time.Time
		if live {
			// Packets per second come from a ticker, not from packets,
			// so the rate falls to zero when the traffic stops.
			c, stop := clk.Ticker(time.Second)
			defer stop()
			second = c
		}
		var prev int64
		at := clk.Now()
		for {
			select {
			case <-fed:
				return
			case now := <-ticks:
				r.idle(now)
			case now := <-second:
				st := r.stats()
				send(views.LiveMsg{PacketsPerS: float64(st.Packets-prev) / now.Sub(at).Seconds(), Drops: st.KernelDrops})
				prev, at = st.Packets, now
			}
		}
	}()
	return done
}

// refreshInterval throttles the progress messages the feeding goroutine
// sends to the UI (20 Hz): the UI redraws on each, so this bounds the
// redraw rate whatever the packet rate.
const refreshInterval = 50 * time.Millisecond

// Fraction is how much of a capture of known size was read, -1 when the
// size is unknown.
func Fraction(st capture.Stats) float64 {
	if st.Size <= 0 {
		return -1
	}
	return float64(st.Read) / float64(st.Size)
}
