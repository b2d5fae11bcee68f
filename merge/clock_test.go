package merge

import (
	"math"
	"testing"
	"time"
)

// TestEstimate: samples of a known clock (offset, drift, one-way delays of
// d0 plus a jitter in each direction) give back the offset within the
// bound it reports, the drift, and a bound of about half the round trip.
func TestEstimate(t *testing.T) {
	for _, tc := range []struct {
		name          string
		theta         float64 // ns at x = 0
		drift         float64 // fraction
		d0ab, d0ba    float64 // the smallest delay of each direction, ns
		n             int
		wantErrAtMost float64
	}{
		{"no drift", 2e9, 0, 3e6, 3e6, 400, 3.1e6},
		{"drift", -5e8, 50e-6, 1e6, 1e6, 400, 1.1e6},
		{"asymmetric", 1e6, 10e-6, 4e6, 2e6, 400, 3.1e6},
	} {
		var ss []sample
		for k := range tc.n {
			x := float64(k) * 5e7 // 50 ms apart: 20 s
			jit := float64((k * 7919) % 40000)
			th := tc.theta + tc.drift*x
			if k%2 == 0 {
				ss = append(ss, sample{x: x, d: th + tc.d0ab + jit, ab: true})
			} else {
				ss = append(ss, sample{x: x, d: th - tc.d0ba - jit, ab: false})
			}
		}
		var c Clock
		c.estimate(ss)
		// The truth sits within the bound; the symmetric cases near the middle.
		asym := (tc.d0ab - tc.d0ba) / 2
		if got := c.theta0 - tc.theta; math.Abs(got-asym) > 100e3 || math.Abs(got) > float64(c.ErrorNS) {
			t.Errorf("%s: offset off by %.0f ns (bound %d); want %.0f ± 100 µs within the bound", tc.name, got, c.ErrorNS, asym)
		}
		if got := c.slope - tc.drift; math.Abs(got) > 2e-6 {
			t.Errorf("%s: drift = %g; want %g ± 2 ppm", tc.name, c.slope, tc.drift)
		}
		if c.ErrorNS < 0 || float64(c.ErrorNS) > tc.wantErrAtMost || c.Matched != tc.n {
			t.Errorf("%s: error bound %d, matched %d; want 0..%.0f, %d", tc.name, c.ErrorNS, c.Matched, tc.wantErrAtMost, tc.n)
		}
	}
}

// TestEstimateOneDirection: with segments of one direction only the delay
// cannot be told from the offset: the bound is unknown (-1).
func TestEstimateOneDirection(t *testing.T) {
	var ss []sample
	for k := range 50 {
		ss = append(ss, sample{x: float64(k) * 1e6, d: 7e6, ab: true})
	}
	var c Clock
	c.estimate(ss)
	if c.ErrorNS != -1 || c.theta0 != 7e6 {
		t.Errorf("one direction: error %d, offset %g; want -1, 7e6", c.ErrorNS, c.theta0)
	}
	var none Clock
	none.estimate(nil)
	if none.ErrorNS != -1 || none.Matched != 0 || none.Source != "estimated" {
		t.Errorf("no samples: %+v; want error -1, matched 0, estimated", none)
	}
}

// TestAlign: Align inverts the model, and a given shift is added as is.
func TestAlign(t *testing.T) {
	c := Clock{t0: 1000e9, theta0: 1.5e9, slope: 40e-6}
	for _, trueT := range []int64{1000e9, 1010e9, 1030e9} {
		local := trueT + int64(c.theta0+c.slope*float64(trueT-c.t0))
		if got := c.Align(local); got-trueT > 1 || trueT-got > 1 {
			t.Errorf("Align(%d) = %d; want %d", local, got, trueT)
		}
	}
	g := Clock{given: true, shift: int64(-1500 * time.Millisecond)}
	if got := g.Align(5e9); got != 35e8 {
		t.Errorf("shifted Align(5 s) = %d; want 3.5 s", got)
	}
	var nilc *Clock
	if got := nilc.Align(42); got != 42 {
		t.Errorf("nil Align(42) = %d; want 42", got)
	}
}

func TestParseShift(t *testing.T) {
	for _, tc := range []struct {
		in   string
		file string
		d    time.Duration
		ok   bool
	}{
		{"client.pcapng=-1.5s", "client.pcapng", -1500 * time.Millisecond, true},
		{"a=+250ms", "a", 250 * time.Millisecond, true},
		{"a=0", "a", 0, true},
		{"dir/a.pcap=1h", "dir/a.pcap", time.Hour, true},
		{"=1s", "", 0, false},
		{"a", "", 0, false},
		{"a=fast", "", 0, false},
	} {
		file, d, err := ParseShift(tc.in)
		if (err == nil) != tc.ok || tc.ok && (file != tc.file || d != tc.d) {
			t.Errorf("ParseShift(%q) = %q, %v, %v; want %q, %v, ok %v", tc.in, file, d, err, tc.file, tc.d, tc.ok)
		}
	}
}

// TestLinkChain: a clock composed of two links (C on B's, B on A's)
// puts C's times where the two applied one after the other put them; a
// link's inverse undoes it; bounds add, an unknown one makes the sum
// unknown.
func TestLinkChain(t *testing.T) {
	apply := func(l link, u float64) float64 { return (u - l.theta) / (1 + l.slope) } // C's time → reference's
	for _, tc := range []struct {
		name    string
		ab, bc  link
		wantErr int64
	}{
		{"offsets", link{theta: 1.3e9, err: 100}, link{theta: -2.1e9, err: 200}, 300},
		{"drifts", link{theta: 5e8, slope: 30e-6, err: 10}, link{theta: -7e8, slope: -45e-6, err: 20}, 30},
		{"unknown bound", link{theta: 1e6, slope: 1e-6, err: -1}, link{theta: 2e6, err: 5}, -1},
	} {
		ac := tc.ab.then(tc.bc)
		for _, u := range []float64{0, 1e9, 3.6e12} {
			want := apply(tc.ab, apply(tc.bc, u))
			if got := apply(ac, u); math.Abs(got-want) > 1e-3 {
				t.Errorf("%s: chained clock puts %g at %g; want %g", tc.name, u, got, want)
			}
			if got := apply(tc.ab.inverse(), apply(tc.ab, u)); math.Abs(got-u) > 1e-3 {
				t.Errorf("%s: inverse of the link gives %g back as %g", tc.name, u, got)
			}
		}
		if ac.err != tc.wantErr {
			t.Errorf("%s: chained bound %d; want %d", tc.name, ac.err, tc.wantErr)
		}
	}
}
