package stats

import (
	"math"
	"math/big"
	"time"
)

// Bucket is the interval a time falls in: intervals are aligned on
// multiples of the interval since the Unix epoch, so that two captures of
// the same moment bucket alike.
func Bucket(t time.Time, interval time.Duration) int64 {
	ns := t.UnixNano()
	b := ns / int64(interval)
	if ns%int64(interval) < 0 {
		b--
	}
	return b
}

// BucketStart is the start of bucket b.
func BucketStart(b int64, interval time.Duration) time.Time {
	return time.Unix(0, b*int64(interval)).UTC()
}

// Rate counts bytes per interval as they come in time order (a
// capture's messages never run backwards: outputs.md "Ordering") and
// keeps the peak interval, in constant memory: the interval being counted
// and the best one so far. The zero value is empty.
type Rate struct {
	started   bool
	cur       int64 // bucket being counted
	curBytes  int64
	peak      int64 // bucket with the most bytes (the first of equals)
	peakBytes int64
	total     int64
}

// Add counts bytes in bucket b. A bucket before the current one (time
// that ran backwards in a hostile capture) counts in the current one.
func (r *Rate) Add(b int64, bytes int64) {
	switch {
	case !r.started:
		r.started, r.cur, r.peak = true, b, b
	case b > r.cur:
		r.close()
		r.cur, r.curBytes = b, 0
	}
	r.curBytes += bytes
	r.total += bytes
}

// close makes the current bucket the peak when it beats it.
func (r *Rate) close() {
	if r.curBytes > r.peakBytes {
		r.peak, r.peakBytes = r.cur, r.curBytes
	}
}

// Total is the bytes counted.
func (r *Rate) Total() int64 { return r.total }

// Peak returns the bucket with the most bytes and its bytes (the earliest
// of equals); ok is false when nothing was counted.
func (r *Rate) Peak() (bucket, bytes int64, ok bool) {
	if !r.started {
		return 0, 0, false
	}
	r.close()
	return r.peak, r.peakBytes, true
}

// BitsPerSecond is bytes counted over span intervals of length interval,
// as bits a second rounded down (0 for an empty span).
func BitsPerSecond(bytes int64, span int64, interval time.Duration) int64 {
	if span <= 0 || interval <= 0 {
		return 0
	}
	// Exact: bytes × 8e9 overflows int64 past 1.15 GB.
	num := new(big.Int).Mul(big.NewInt(bytes), big.NewInt(8e9))
	den := new(big.Int).Mul(big.NewInt(span), big.NewInt(int64(interval)))
	q := num.Div(num, den)
	if !q.IsInt64() {
		return math.MaxInt64
	}
	return q.Int64()
}
