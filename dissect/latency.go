package dissect

import (
	"strconv"
	"time"

	"github.com/usmnscope/usmnscope/stats"
)

// Latency is outputs.md's latency object, `{"min", "median", "max"}` in
// nanoseconds; OK false is null. Summary, when its Count is not 0, adds
// the keys outputs.md allows every latency object (p90, p95, p99, mean,
// count, jitter: issue 26). Every protocol's pairs and the host's ping
// statistics share it, so that the text outputs and the views write a
// latency one way whatever protocol measured it.
type Latency struct {
	Min, Median, Max time.Duration
	OK               bool
	Summary          stats.Summary
}

// LatencyOf is the Latency of the durations d holds (Durations.Latency).
func LatencyOf(d *Durations) Latency {
	mn, md, mx, ok, sum := d.Latency()
	return Latency{mn, md, mx, ok, sum}
}

// FormatLatency formats a duration in milliseconds with two decimals
// ("0.21 ms"): every latency the text outputs and the views show.
func FormatLatency(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + " ms"
}

// AppendJSON appends l as outputs.md's latency object, null when not OK.
func (l Latency) AppendJSON(dst []byte) []byte {
	if !l.OK {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"min":`...)
	dst = strconv.AppendInt(dst, int64(l.Min), 10)
	dst = append(dst, `,"median":`...)
	dst = strconv.AppendInt(dst, int64(l.Median), 10)
	dst = append(dst, `,"max":`...)
	dst = strconv.AppendInt(dst, int64(l.Max), 10)
	if s := &l.Summary; s.Count > 0 {
		for _, kv := range [...]struct {
			k string
			v int64
		}{{`,"p90":`, int64(s.P90)}, {`,"p95":`, int64(s.P95)}, {`,"p99":`, int64(s.P99)}, {`,"mean":`, int64(s.Mean)}, {`,"count":`, int64(s.Count)}, {`,"jitter":`, int64(s.Jitter)}} {
			dst = append(dst, kv.k...)
			dst = strconv.AppendInt(dst, kv.v, 10)
		}
	}
	return append(dst, '}')
}

// Text is min/median/max as FormatLatency writes them, then the rest of
// the figures the JSON adds (issue 26) when there are any: "…; p90/p95/p99
// … / … / …, mean …, jitter …"; "-" when not OK. `tables` writes every
// latency with it.
func (l Latency) Text() string {
	if !l.OK {
		return "-"
	}
	t := FormatLatency(l.Min) + " / " + FormatLatency(l.Median) + " / " + FormatLatency(l.Max)
	s := &l.Summary
	if s.Count == 0 {
		return t
	}
	return t + "; p90/p95/p99 " + FormatLatency(s.P90) + " / " + FormatLatency(s.P95) + " / " + FormatLatency(s.P99) +
		", mean " + FormatLatency(s.Mean) + ", jitter " + FormatLatency(s.Jitter)
}
