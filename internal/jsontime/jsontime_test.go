package jsontime

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendMatchesFormat: Append and a Cache spell every time as
// time.Format(Layout) does, across seconds, years and locations.
func TestAppendMatchesFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var c Cache
	east := time.FixedZone("east", 5*3600+1800)
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	edge := time.Date(2025, 12, 31, 23, 59, 58, 999_999_990, time.UTC)
	times := []time.Time{{}, time.Unix(0, 0), time.Unix(0, 1), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 7, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 8, time.UTC), time.Date(-5, 1, 1, 0, 0, 0, 7, time.UTC),
		edge, edge.Add(5), edge.Add(10), edge.Add(time.Second), edge.Add(2 * time.Second), edge.Add(-time.Hour), edge.In(time.FixedZone("x", 3600)),
		time.Unix(0, -1), time.Unix(-1, 5), time.Unix(1, 0), time.Unix(1, 999999999), time.Unix(0, 1<<63-1), time.Unix(0, 1<<63-1).Add(1),
		time.Unix(maxNSSec, 0), time.Unix(maxNSSec-1, 999999999), time.Unix(0, -1<<63), time.Date(1677, 9, 21, 0, 12, 43, 145224192, time.UTC)}
	for range 2000 {
		tm := base.Add(time.Duration(rng.Int64N(int64(5 * time.Second))))
		if rng.IntN(10) == 0 {
			tm = tm.In(east)
		}
		times = append(times, tm)
	}
	for _, tm := range times {
		want := tm.UTC().Format(Layout)
		if got := string(Append(nil, tm)); got != want {
			t.Errorf("Append(%v) = %s; want %s", tm, got, want)
		}
		if got := string(c.Append([]byte("x"), tm)); got != "x"+want {
			t.Errorf("Cache.Append(%v) = %s; want x%s", tm, got, want)
		}
		if got, want := string(c.AppendBoth([]byte("x"), tm)), "x"+string(AppendNS([]byte(want+`"`), tm)); got != want {
			t.Errorf("Cache.AppendBoth(%v) = %s; want %s", tm, got, want)
		}
	}
}
