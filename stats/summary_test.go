package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func ds(v ...int64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x)
	}
	return out
}

// TestSummarizeByHand checks Summarize against values worked out by hand
// (arrival order matters for the jitter only).
func TestSummarizeByHand(t *testing.T) {
	tests := []struct {
		name string
		in   []time.Duration
		want Summary
	}{
		{"none", nil, Summary{}},
		{"one value", ds(5), Summary{Count: 1, Min: 5, Median: 5, P90: 5, P95: 5, P99: 5, Max: 5, Mean: 5, Jitter: 0}},
		// sorted 1 2 3; median rank 1; p90 ceil(2.7)=3; mean 6/3;
		// jitter (|1-3| + |2-1|) / 2 = 1.5 → 1.
		{"odd", ds(3, 1, 2), Summary{Count: 3, Min: 1, Median: 2, P90: 3, P95: 3, P99: 3, Max: 3, Mean: 2, Jitter: 1}},
		// sorted 1 2 3 4; the lower middle 2; p90 ceil(3.6)=4; mean
		// 10/4 = 2.5 → 2; jitter (3 + 2 + 1) / 3 = 2.
		{"even", ds(4, 1, 3, 2), Summary{Count: 4, Min: 1, Median: 2, P90: 4, P95: 4, P99: 4, Max: 4, Mean: 2, Jitter: 2}},
		// sorted 1 5 5 5 5; median 5; mean 21/5 = 4.2 → 4; jitter
		// (0 + 0 + 4 + 4) / 4 = 2.
		{"ties", ds(5, 5, 5, 1, 5), Summary{Count: 5, Min: 1, Median: 5, P90: 5, P95: 5, P99: 5, Max: 5, Mean: 4, Jitter: 2}},
		// all equal: every figure the value, jitter 0.
		{"all tied", ds(7, 7, 7, 7), Summary{Count: 4, Min: 7, Median: 7, P90: 7, P95: 7, P99: 7, Max: 7, Mean: 7, Jitter: 0}},
		// 1..10: median rank 4 → 5; p90 rank ceil(9)=9 → 9; p95
		// ceil(9.5)=10; mean 5.5 → 5; jitter 9/9.
		{"1..10", seq(10), Summary{Count: 10, Min: 1, Median: 5, P90: 9, P95: 10, P99: 10, Max: 10, Mean: 5, Jitter: 1}},
		// 1..20: median 10; p90 18; p95 19; p99 ceil(19.8)=20.
		{"1..20", seq(20), Summary{Count: 20, Min: 1, Median: 10, P90: 18, P95: 19, P99: 20, Max: 20, Mean: 10, Jitter: 1}},
		// 1..100: median 50; p90 90; p95 95; p99 99; mean 50.5 → 50.
		{"1..100", seq(100), Summary{Count: 100, Min: 1, Median: 50, P90: 90, P95: 95, P99: 99, Max: 100, Mean: 50, Jitter: 1}},
		// 1..101: p99 ceil(99.99)=100; median rank 50 → 51.
		{"1..101", seq(101), Summary{Count: 101, Min: 1, Median: 51, P90: 91, P95: 96, P99: 100, Max: 101, Mean: 51, Jitter: 1}},
		// Rounding down is toward minus infinity: mean -1.5 → -2.
		{"negative", ds(-3, 0), Summary{Count: 2, Min: -3, Median: -3, P90: 0, P95: 0, P99: 0, Max: 0, Mean: -2, Jitter: 3}},
		// The sum overflows int64; the mean does not.
		{"overflow", ds(math.MaxInt64, math.MaxInt64, math.MaxInt64-2), Summary{Count: 3, Min: math.MaxInt64 - 2, Median: math.MaxInt64, P90: math.MaxInt64, P95: math.MaxInt64, P99: math.MaxInt64, Max: math.MaxInt64, Mean: math.MaxInt64 - 1, Jitter: 1}},
		// The differences overflow int64.
		{"far apart", ds(math.MinInt64, math.MaxInt64), Summary{Count: 2, Min: math.MinInt64, Median: math.MinInt64, P90: math.MaxInt64, P95: math.MaxInt64, P99: math.MaxInt64, Max: math.MaxInt64, Mean: -1, Jitter: math.MaxInt64}},
	}
	for _, tt := range tests {
		if got := Summarize(tt.in); got != tt.want {
			t.Errorf("%s: Summarize(%v) = %+v; want %+v", tt.name, tt.in, got, tt.want)
		}
	}
}

func seq(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i + 1)
	}
	return out
}

// brute is the Summary by the definitions, independently of Rank: the
// smallest value that at least p % of the values are ≤, found by scanning.
func brute(arrival []time.Duration) Summary {
	if len(arrival) == 0 {
		return Summary{}
	}
	s := slices.Clone(arrival)
	slices.Sort(s)
	n := len(s)
	pct := func(p int) time.Duration {
		for _, v := range s {
			le := 0
			for _, w := range s {
				if w <= v {
					le++
				}
			}
			if le*100 >= p*n {
				return v
			}
		}
		return s[n-1]
	}
	var sum, diffs float64
	var isum, idiffs int64
	for i, x := range arrival {
		sum += float64(x)
		isum += int64(x)
		if i > 0 {
			d := int64(x - arrival[i-1])
			if d < 0 {
				d = -d
			}
			diffs += float64(d)
			idiffs += d
		}
	}
	out := Summary{Count: n, Min: s[0], Max: s[n-1], Median: s[(n-1)/2], P90: pct(90), P95: pct(95), P99: pct(99)}
	out.Mean = time.Duration(isum / int64(n)) // values are ≥ 0 and small here
	if n > 1 {
		out.Jitter = time.Duration(idiffs / int64(n-1))
	}
	return out
}

// TestSummarizeRandom checks Summarize and the accumulator against a
// brute-force sort on random samples, many with ties.
func TestSummarizeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 26))
	for trial := range 400 {
		n := 1 + r.IntN(300)
		spread := []int64{3, 50, 1e6}[trial%3]
		in := make([]time.Duration, n)
		for i := range in {
			in[i] = time.Duration(r.Int64N(spread))
		}
		want := brute(in)
		if got := Summarize(in); got != want {
			t.Fatalf("trial %d: Summarize(%v) = %+v; want %+v", trial, in, got, want)
		}
		var l Latencies
		for _, x := range in {
			l.Add(x)
		}
		if got := l.Summary(); got != want {
			t.Fatalf("trial %d: Latencies of %v: Summary() = %+v; want %+v", trial, in, got, want)
		}
	}
}

func TestRank(t *testing.T) {
	tests := []struct{ p, n, want int }{
		{50, 1, 0}, {90, 1, 0}, {90, 10, 8}, {90, 11, 9}, {95, 20, 18}, {99, 100, 98}, {99, 101, 99}, {100, 7, 6},
	}
	for _, tt := range tests {
		if got := Rank(tt.p, tt.n); got != tt.want {
			t.Errorf("Rank(%d, %d) = %d; want %d", tt.p, tt.n, got, tt.want)
		}
	}
}

func TestP99Without(t *testing.T) {
	var l Latencies
	for _, x := range ds(1, 2, 3, 100) {
		l.Add(x)
	}
	// Without 100: 1 2 3, p99 = 3.
	if got, ok := l.P99Without(100); !ok || got != 3 {
		t.Errorf("P99Without(100) = %v, %v; want 3, true", got, ok)
	}
	if _, ok := l.P99Without(50); ok {
		t.Errorf("P99Without(50) ok; want false (not added)")
	}
}

func TestRate(t *testing.T) {
	const s = time.Second
	var r Rate
	if _, _, ok := r.Peak(); ok {
		t.Fatalf("empty Rate has a peak")
	}
	// Buckets 10: 100 bytes, 11: 300, 13: 300 (a tie: the first stays),
	// 12 arriving late counts in 13.
	for _, a := range []struct{ b, n int64 }{{10, 60}, {10, 40}, {11, 300}, {13, 250}, {12, 50}} {
		r.Add(a.b, a.n)
	}
	if b, n, _ := r.Peak(); b != 11 || n != 300 {
		t.Errorf("Peak = %d, %d; want 11, 300", b, n)
	}
	if r.Total() != 700 {
		t.Errorf("Total = %d; want 700", r.Total())
	}
	if got := BitsPerSecond(700, 4, s); got != 1400 {
		t.Errorf("BitsPerSecond(700, 4, 1s) = %d; want 1400", got)
	}
	if got := BitsPerSecond(1, 3, s); got != 2 { // 8/3 → 2
		t.Errorf("BitsPerSecond(1, 3, 1s) = %d; want 2", got)
	}
	if got := BitsPerSecond(1<<40, 1, time.Millisecond); got != 8796093022208000 {
		t.Errorf("BitsPerSecond(2^40, 1, 1ms) = %d; want 8796093022208000", got)
	}
	if got := Bucket(time.Unix(-1, 0), s); got != -1 {
		t.Errorf("Bucket(-1s) = %d; want -1", got)
	}
	if got := BucketStart(Bucket(time.Unix(5, 7e8), s), s); !got.Equal(time.Unix(5, 0)) {
		t.Errorf("BucketStart(Bucket(5.7s)) = %v; want 5s", got)
	}
}

func TestHistogram(t *testing.T) {
	var l Latencies
	for _, x := range ds(0, 1, 2, 3, 9, 9) {
		l.Add(x)
	}
	// span 9, 3 bins of width 9/3+1 = 4: [0,4) [4,8) [8,12).
	lo, w, c := l.Histogram(3)
	if lo != 0 || w != 4 || !slices.Equal(c, []int{4, 0, 2}) {
		t.Errorf("Histogram(3) = %v, %v, %v; want 0, 4, [4 0 2]", lo, w, c)
	}
	var one Latencies
	one.Add(5)
	if lo, w, c := one.Histogram(4); lo != 5 || w != 1 || !slices.Equal(c, []int{1, 0, 0, 0}) {
		t.Errorf("one value: Histogram(4) = %v, %v, %v; want 5, 1, [1 0 0 0]", lo, w, c)
	}
}
