package headless

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// Options are what stops a headless capture: Stats alone runs until a
// signal.
type Options struct {
	Stats    bool
	Count    int64         // stop after this many packets read (0: no limit)
	Duration time.Duration // stop after this long (0: no limit)
}

// On says whether o asks for a headless capture at all.
func (o Options) On() bool { return o.Stats || o.Count > 0 || o.Duration > 0 }

// Run feeds d's source into its index until Ctrl-C (SIGINT, SIGTERM, or
// SIGHUP when its terminal goes away: a --write buffer must reach the
// disk), o.Count packets or o.Duration, then closes the source (flushing
// a --write file) and prints the totals line (Line) of iface to out.
// Rates are over the capture times of the first and the last event, so a
// capture started before its traffic does not dilute them; those times
// come with the packets (the kernel stamps them), where reading the clock
// per packet would cost the reader. Traffic that lasted under minRateSpan
// (a burst, one packet) makes no rate worth printing (31 packets 0.3 ms
// apart are not 90,000 a second): then the rates are over the whole
// capture, from its start to its stop. ULinkRPC is decoded into the index
// beside the game's messages.
func (o Options) Run(ctx context.Context, out io.Writer, iface string, d *pipeline.Decode) error {
	src, dc := d.Source, d.Index
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	// Close from another goroutine: a Next blocked on an idle interface
	// returns io.EOF within the poll timeout.
	unwatch := context.AfterFunc(ctx, func() { src.Close() })
	defer unwatch()
	ts := &timed{Source: src}
	d.Source = ts
	defer func() { d.Source = src }()
	start := time.Now()
	counted := false
	ferr := d.Feed(func(st capture.Stats) {
		if o.Count > 0 && st.Packets >= o.Count && !counted {
			counted = true
			src.Close()
		}
	})
	st := src.Stats()
	cerr := src.Close()
	fmt.Fprintln(out, Line(iface, st, dc.Len(), pipeline.RPCMessages(dc), rateSpan(ts.last.Sub(ts.first), time.Since(start))))
	if ferr != nil {
		return ferr
	}
	return cerr
}

// minRateSpan is the shortest span of traffic a rate is taken over.
const minRateSpan = time.Second

// rateSpan is the span the rates are over: active, the span of the
// traffic, when it is at least minRateSpan, else the longer of active and
// ran, how long the capture ran.
func rateSpan(active, ran time.Duration) time.Duration {
	if active >= minRateSpan {
		return active
	}
	return max(active, ran)
}

// Line is the final line of a headless live capture on iface: msgs
// messages, rpcMsgs of them ULinkRPC records, the rest the game's, over
// active. Its words are stable: bench/report.sh reads them; the split per
// protocol comes last, so that what was there before reads the same.
func Line(iface string, st capture.Stats, msgs, rpcMsgs int, active time.Duration) string {
	secs := active.Seconds()
	rate := func(n float64) float64 {
		if secs <= 0 {
			return 0
		}
		return n / secs
	}
	return fmt.Sprintf("live %s: %d packets, %d messages in %.3f s: %.0f pkt/s, %.0f msg/s; kernel %d packets, %d drops; messages: %d unturned, %d ulinkrpc",
		termsafe.Escape(iface), st.Packets, msgs, secs, rate(float64(st.Packets)), rate(float64(msgs)), st.KernelPackets, st.KernelDrops, msgs-rpcMsgs, rpcMsgs)
}

// timed is a Source that keeps the capture times of its first and last
// events.
type timed struct {
	capture.Source
	first, last time.Time
}

// ClaimDatagrams passes a probed UDP flow's claim (KCP found by its
// handshake, ulinkrpc.md 2.3) on to the capture, when it probes.
func (t *timed) ClaimDatagrams(f capture.Flow) {
	if c, ok := t.Source.(capture.DatagramClaimer); ok {
		c.ClaimDatagrams(f)
	}
}

func (t *timed) Next() (*capture.Event, error) {
	ev, err := t.Source.Next()
	if err == nil && !ev.Time.IsZero() {
		if t.first.IsZero() {
			t.first = ev.Time
		}
		t.last = ev.Time
	}
	return ev, err
}
