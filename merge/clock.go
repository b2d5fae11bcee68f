package merge

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// Clock is how one capture's times are put on the reference capture's
// clock (tables --json "clocks"): a time t of the capture becomes
// Align(t). The model is the capture's clock running (1+drift) times as
// fast as the reference's from an offset: t = tRef + θ0 + s·(tRef − T0).
type Clock struct {
	Capture, Reference string
	// OffsetNS is what was added to the capture's first time (with drift,
	// each second later adds DriftPPM µs less); ErrorNS bounds the
	// estimate (-1: unknown, one direction only); Matched counts the
	// segments both captures have; Source is "estimated" or "time-shift".
	OffsetNS int64
	DriftPPM float64
	ErrorNS  int64
	Matched  int
	Source   string
	// Via names the captures whose shared connections carried the
	// estimate to the reference, in order from it, when the capture
	// shares none with the reference itself (the error bounds of the
	// links add up); nil for a direct estimate.
	Via []string

	t0     int64   // the reference's first time
	theta0 float64 // offset of this capture's clock at t0, ns
	slope  float64 // drift, as a fraction
	first  int64   // this capture's first time
	shift  int64   // --time-shift: added as is
	given  bool
}

// Align puts t (ns since the epoch on the capture's clock) on the
// reference's clock.
func (c *Clock) Align(t int64) int64 {
	if c == nil {
		return t
	}
	if c.given {
		return t + c.shift
	}
	if c.theta0 == 0 && c.slope == 0 {
		return t
	}
	x := float64(t - c.t0)
	return c.t0 + int64(math.Round((x-c.theta0)/(1+c.slope)))
}

// sample is one segment both captures have: x its time on the reference
// (ns after t0), d its time on the other capture minus x's, ab whether
// the reference's host sent it.
type sample struct {
	x, d float64
	ab   bool
}

// estimate fits the clock from the samples: the time span is cut into at
// most 16 buckets; in each with both directions the offset lies between
// the largest d of the segments the other host sent (offset minus a
// delay) and the smallest d of those the reference's host sent (offset
// plus a delay); a line through the middles of those intervals gives the
// offset and drift, and the widest distance from it to an interval's
// ends bounds the error (a delay is never negative).
func (c *Clock) estimate(ss []sample) {
	c.Matched = len(ss)
	c.Source = "estimated"
	c.ErrorNS = -1
	if len(ss) == 0 {
		return
	}
	sort.Slice(ss, func(i, j int) bool { return ss[i].x < ss[j].x })
	lo, hi := ss[0].x, ss[len(ss)-1].x
	const nb = 16
	type bucket struct {
		u, l       float64
		hasU, hasL bool
		sx         float64
		n          int
	}
	var bs [nb]bucket
	for _, s := range ss {
		k := 0
		if hi > lo {
			k = min(int((s.x-lo)/(hi-lo)*nb), nb-1)
		}
		b := &bs[k]
		b.sx += s.x
		b.n++
		if s.ab {
			if !b.hasU || s.d < b.u {
				b.u, b.hasU = s.d, true
			}
		} else if !b.hasL || s.d > b.l {
			b.l, b.hasL = s.d, true
		}
	}
	type pt struct{ x, m, u, l float64 }
	var pts []pt
	both := true
	for _, b := range bs {
		if b.n == 0 {
			continue
		}
		if b.hasU && b.hasL {
			pts = append(pts, pt{b.sx / float64(b.n), (b.u + b.l) / 2, b.u, b.l})
		}
	}
	if len(pts) == 0 {
		// One direction only: the delay cannot be told from the offset;
		// the offset is taken as the smallest difference.
		both = false
		for _, b := range bs {
			switch {
			case b.hasU:
				pts = append(pts, pt{b.sx / float64(b.n), b.u, b.u, b.u})
			case b.hasL:
				pts = append(pts, pt{b.sx / float64(b.n), b.l, b.l, b.l})
			}
		}
	}
	// Least squares through the middles.
	var sx, sm float64
	for _, p := range pts {
		sx += p.x
		sm += p.m
	}
	n := float64(len(pts))
	mx, mm := sx/n, sm/n
	var sxx, sxm float64
	for _, p := range pts {
		sxx += (p.x - mx) * (p.x - mx)
		sxm += (p.x - mx) * (p.m - mm)
	}
	if len(pts) > 1 && sxx > 0 {
		c.slope = sxm / sxx
	}
	c.theta0 = mm - c.slope*mx
	if both {
		var e float64
		for _, p := range pts {
			f := c.theta0 + c.slope*p.x
			e = max(e, p.u-f, f-p.l)
		}
		c.ErrorNS = int64(math.Ceil(e))
	}
	c.DriftPPM = math.Round(c.slope*1e6*1000) / 1000
}

// finish sets OffsetNS from the model.
func (c *Clock) finish() {
	c.OffsetNS = c.Align(c.first) - c.first
}

// ParseShift reads --time-shift's value FILE=±D (D a Go duration such as
// 1.5s or -300ms): the offset to add to the times of the capture FILE.
func ParseShift(s string) (file string, d time.Duration, err error) {
	file, v, ok := strings.Cut(s, "=")
	if !ok || file == "" {
		return "", 0, fmt.Errorf("--time-shift %q: want FILE=±DURATION (e.g. client.pcapng=-1.5s)", s)
	}
	d, err = time.ParseDuration(strings.TrimPrefix(v, "+"))
	if err != nil {
		return "", 0, fmt.Errorf("--time-shift %q: %v", s, err)
	}
	return file, d, nil
}

// link is a clock in the model's relative terms, a capture's time t on a
// reference's: t − T0 = (tRef − T0)·(1+slope) + theta (T0 the first
// capture's first time); err its bound (-1 unknown).
type link struct {
	theta, slope float64
	err          int64
	matched      int
}

// inverse is the reference's clock on the capture's.
func (l link) inverse() link {
	return link{theta: -l.theta / (1 + l.slope), slope: 1/(1+l.slope) - 1, err: l.err, matched: l.matched}
}

// then is the clock of a capture on l's reference's, m being the
// capture's clock on l's capture's.
func (l link) then(m link) link {
	err := l.err + m.err
	if l.err < 0 || m.err < 0 {
		err = -1
	}
	return link{theta: l.theta*(1+m.slope) + m.theta, slope: (1+l.slope)*(1+m.slope) - 1, err: err, matched: m.matched}
}

// cost orders chains: a known bound before an unknown one, then the
// smaller bound.
func (l link) cost() float64 {
	if l.err < 0 {
		return math.MaxFloat64 / 2
	}
	return float64(l.err)
}

// chain sets every capture's clock from the pairs' samples: a capture
// sharing a connection with the reference (the first capture) gets the
// estimate of those; one sharing none but a connection with a capture
// already put on the reference's clock gets its estimate against that
// capture composed with that capture's clock, the error bounds added
// (the chain of the smallest sum when there are several); a --time-shift
// wins for its capture and carries on to the captures chained through
// it. A capture no chain reaches keeps its times (offset 0, error_ns -1)
// and a note says so.
func (p *Plan) chain(samples map[[2]int][]sample) {
	n := len(p.Inputs)
	t0 := p.Clocks[0].first
	edges := map[[2]int]link{}
	keys := make([][2]int, 0, len(samples))
	for k := range samples {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		var c Clock
		c.estimate(samples[k])
		e := link{theta: c.theta0, slope: c.slope, err: c.ErrorNS, matched: c.Matched}
		edges[k] = e
		edges[[2]int{k[1], k[0]}] = e.inverse()
	}
	known := make([]bool, n)
	at := make([]link, n)
	prev := make([]int, n)
	for i := range prev {
		prev[i] = -1
	}
	known[0] = true
	for i, in := range p.Inputs {
		if in.HasShift {
			known[i] = true
			at[i] = link{theta: -float64(in.Shift)}
			if i > 0 {
				at[i].matched = len(samples[[2]int{0, i}])
			}
		}
	}
	for {
		best, from := -1, -1
		var bl link
		for _, k := range keys {
			for _, e := range [2][2]int{k, {k[1], k[0]}} {
				a, b := e[0], e[1]
				if !known[a] || known[b] {
					continue
				}
				l := at[a].then(edges[e])
				if best < 0 || l.cost() < bl.cost() {
					best, from, bl = b, a, l
				}
			}
		}
		if best < 0 {
			break
		}
		known[best], at[best], prev[best] = true, bl, from
	}
	for i := range p.Clocks {
		c := &p.Clocks[i]
		c.Capture, c.Reference = p.Inputs[i].Capture, p.Inputs[0].Capture
		c.t0 = t0
		c.Source = "estimated"
		switch {
		case p.Inputs[i].HasShift:
			c.Matched = at[i].matched
			c.Source = "time-shift"
			c.given, c.shift = true, p.Inputs[i].Shift
		case i == 0:
		case !known[i]:
			c.ErrorNS = -1
			// A note, not a warning: unrelated captures are simply
			// interleaved by time.
			p.infos = append(p.infos, fmt.Sprintf("%s shares no connection with %s, directly or through another capture: its clock is not aligned (offset 0, error_ns -1), its times are taken as they are",
				termsafe.Escape(p.Inputs[i].Capture), termsafe.Escape(p.Inputs[0].Capture)))
		default:
			l := at[i]
			c.theta0, c.slope, c.ErrorNS, c.Matched = l.theta, l.slope, l.err, l.matched
			c.DriftPPM = math.Round(c.slope*1e6*1000) / 1000
			for k := prev[i]; k > 0; k = prev[k] {
				c.Via = append([]string{p.Inputs[k].Capture}, c.Via...)
			}
		}
		c.finish()
	}
}
