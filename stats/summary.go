package stats

import (
	"math"
	"math/big"
	"math/bits"
	"slices"
	"time"
)

// Summary is one latency object of outputs.md: count, min, median, p90,
// p95, p99, max, mean and jitter, in nanoseconds. The zero Summary
// (Count 0) is "no values" (JSON null).
type Summary struct {
	Count            int
	Min, Median, Max time.Duration
	P90, P95, P99    time.Duration
	Mean, Jitter     time.Duration
}

// Rank is the nearest-rank index (from 0) of percentile p (0 < p ≤ 100)
// among n ascending values (n ≥ 1): ceil(p × n / 100) − 1.
func Rank(p, n int) int {
	r := (p*n + 99) / 100
	if r < 1 {
		r = 1
	}
	if r > n {
		r = n
	}
	return r - 1
}

// Percentile is the nearest-rank percentile p of the ascending values
// sorted (package doc); 0 for none.
func Percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[Rank(p, len(sorted))]
}

// Median is the lower middle value of the ascending values sorted; 0 for
// none.
func Median(sorted []time.Duration) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)/2]
}

// Summarize is the Summary of the values in arrival order, by sorting a
// copy (SummarizeSorted): the reference the accumulators are checked
// against.
func Summarize(arrival []time.Duration) Summary {
	sorted := slices.Clone(arrival)
	slices.Sort(sorted)
	return SummarizeSorted(arrival, sorted)
}

// SummarizeSorted is Summarize of arrival, given its values sorted too:
// a caller that sorted them for other figures sorts once (a caller that
// keeps every value: dissect.Durations). The distinct values are counted
// by runs of equals, with no map.
func SummarizeSorted(arrival, sorted []time.Duration) Summary {
	var run Running
	for _, x := range arrival {
		run.Add(x)
	}
	var (
		vals []time.Duration
		cnts []uint32
	)
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		vals, cnts = append(vals, sorted[i]), append(cnts, uint32(j-i))
		i = j
	}
	return SummaryFromCounts(vals, cnts, &run)
}

// sum128 is a signed 128-bit sum: durations of a hostile capture's
// far-apart timestamps overflow int64 when added up.
type sum128 struct {
	hi int64
	lo uint64
}

func (s *sum128) add(x int64) {
	var c uint64
	s.lo, c = bits.Add64(s.lo, uint64(x), 0)
	s.hi += int64(c)
	if x < 0 {
		s.hi--
	}
}

// floorDiv is the sum divided by n > 0, rounded toward minus infinity,
// clamped to the int64 range (a mean of int64 values always fits).
func (s sum128) floorDiv(n int) int64 {
	if s.hi == 0 && s.lo < 1<<63 {
		return int64(s.lo / uint64(n))
	}
	v := new(big.Int).SetInt64(s.hi)
	v.Lsh(v, 64)
	v.Add(v, new(big.Int).SetUint64(s.lo))
	q := new(big.Int)
	m := new(big.Int)
	q.DivMod(v, big.NewInt(int64(n)), m) // Euclidean: floor for n > 0
	if !q.IsInt64() {                    // a mean absolute difference of far-apart values
		return math.MaxInt64
	}
	return q.Int64()
}

// Running keeps what a Summary needs beyond the values' multiset, in
// constant memory: the count, the sum, and the sum of absolute differences
// between consecutive values in arrival order. A caller that keeps the
// multiset its own way (session's round-trip counts) adds each value here
// too and calls SummaryFromCounts. The zero value is empty.
type Running struct {
	n     int
	sum   sum128
	diffs sum128
	last  time.Duration
}

// Add adds the next value in arrival order.
func (r *Running) Add(x time.Duration) {
	if r.n > 0 {
		r.diffs.addAbsDiff(x, r.last)
	}
	r.n++
	r.sum.add(int64(x))
	r.last = x
}

// Len is the number of values added.
func (r *Running) Len() int { return r.n }

// SummaryFromCounts is the Summary of a multiset given as its distinct
// values, ascending, with their counts (summing to run.Len()), and the
// Running of the same values in arrival order.
func SummaryFromCounts(vals []time.Duration, cnts []uint32, run *Running) Summary {
	n := run.n
	if n == 0 || len(vals) == 0 {
		return Summary{}
	}
	s := Summary{Count: n, Min: vals[0], Max: vals[len(vals)-1]}
	// Nearest rank never puts p90 before the lower median
	// (ceil(0.9n) − 1 ≥ (n − 1)/2), so the ranks ascend.
	ranks := [...]int{(n - 1) / 2, Rank(90, n), Rank(95, n), Rank(99, n)}
	outs := [...]*time.Duration{&s.Median, &s.P90, &s.P95, &s.P99}
	for _, o := range outs {
		*o = s.Max
	}
	seen, k := 0, 0
	for i, v := range vals {
		seen += int(cnts[i])
		for k < len(ranks) && ranks[k] < seen {
			*outs[k] = v
			k++
		}
	}
	s.Mean = time.Duration(run.sum.floorDiv(n))
	if n > 1 {
		s.Jitter = time.Duration(run.diffs.floorDiv(n - 1))
	}
	return s
}

// Latencies accumulates latencies in arrival order for a Summary: each
// distinct value with its count, and a Running. Its memory follows the
// distinct values, not the count. The zero value is empty.
type Latencies struct {
	counts map[time.Duration]uint32
	run    Running
}

// Add adds the next value in arrival order.
func (l *Latencies) Add(x time.Duration) {
	if l.counts == nil {
		l.counts = make(map[time.Duration]uint32)
	}
	l.counts[x]++
	l.run.Add(x)
}

// addAbsDiff adds |a − b|, which may not fit an int64.
func (s *sum128) addAbsDiff(a, b time.Duration) {
	if a < b {
		a, b = b, a
	}
	d := uint64(a) - uint64(b) // exact modulo 2^64, and a ≥ b
	var c uint64
	s.lo, c = bits.Add64(s.lo, d, 0)
	s.hi += int64(c)
}

// Len is the number of values added.
func (l *Latencies) Len() int { return l.run.n }

// Summary computes the Summary of the values added (Count 0: none).
func (l *Latencies) Summary() Summary {
	vals := l.sorted()
	cnts := make([]uint32, len(vals))
	for i, v := range vals {
		cnts[i] = l.counts[v]
	}
	return SummaryFromCounts(vals, cnts, &l.run)
}

func (l *Latencies) sorted() []time.Duration {
	vals := make([]time.Duration, 0, len(l.counts))
	for v := range l.counts {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	return vals
}

// P99Without returns the nearest-rank p99 of the values added with one
// value x taken out (false when x was not added or it is the only value):
// the p99 of the others, that an outlier is judged against.
func (l *Latencies) P99Without(x time.Duration) (time.Duration, bool) {
	if l.run.n < 2 || l.counts[x] == 0 {
		return 0, false
	}
	vals := l.sorted()
	n := l.run.n - 1
	r := Rank(99, n)
	seen := 0
	for _, v := range vals {
		c := int(l.counts[v])
		if v == x {
			c--
		}
		seen += c
		if r < seen {
			return v, true
		}
	}
	return vals[len(vals)-1], true
}

// Histogram counts the values added into n bins of equal width between
// the least and the greatest (the last bin includes the greatest): lo is
// the first bin's start, width each bin's (at least 1 ns). No values: nil.
func (l *Latencies) Histogram(n int) (lo, width time.Duration, counts []int) {
	if l.run.n == 0 || n < 1 {
		return 0, 0, nil
	}
	vals := l.sorted()
	lo, hi := vals[0], vals[len(vals)-1]
	span := uint64(hi) - uint64(lo)
	w := span/uint64(n) + 1
	counts = make([]int, n)
	for _, v := range vals {
		k := min(int((uint64(v)-uint64(lo))/w), n-1)
		counts[k] += int(l.counts[v])
	}
	return lo, time.Duration(w), counts
}
