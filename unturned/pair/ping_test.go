package pair

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// TestRTTCounts holds a Stream's counted round trips to dissect.Durations
// (every value kept, sorted for the statistics): the same minimum, lower
// median (outputs.md) and maximum, whether the values repeat a lot (one
// clock tick, the common case) or are all distinct, and across merges.
func TestRTTCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		name     string
		n        int
		distinct int64 // values drawn from [0, distinct) µs; 0: all distinct ns
	}{
		{"one", 1, 1},
		{"two", 2, 0},
		{"even few", 10, 3},
		{"repeating", 100000, 50},
		{"distinct", 5000, 0},
		{"merge boundary", rttMergeMin + 1, 7},
	} {
		var r rttCounts
		var d dissect.Durations
		for range tt.n {
			x := time.Duration(rng.Int64N(1 << 40))
			if tt.distinct > 0 {
				x = time.Duration(rng.Int64N(tt.distinct)) * time.Microsecond
			}
			r.add(x)
			d.Add(x)
		}
		mn, md, mx, n := r.stats()
		wmn, wmd, wmx, _, _ := d.Latency()
		if mn != wmn || md != wmd || mx != wmx || n != d.Len() {
			t.Errorf("%s: stats() = %v, %v, %v, %d; want %v, %v, %v, %d", tt.name, mn, md, mx, n, wmn, wmd, wmx, d.Len())
		}
		// Memory follows the distinct values, not the count.
		if tt.distinct > 0 && len(r.vals)+cap(r.raw) > int(tt.distinct)+2*rttMergeMin {
			t.Errorf("%s: %d distinct values kept and a buffer of %d for %d distinct; want at most %d", tt.name, len(r.vals), cap(r.raw), tt.distinct, int(tt.distinct)+2*rttMergeMin)
		}
	}
	var empty rttCounts
	if _, _, _, n := empty.stats(); n != 0 {
		t.Errorf("stats() of nothing: n = %d; want 0", n)
	}
}
