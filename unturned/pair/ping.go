package pair

import (
	"slices"
	"sort"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/stats"
)

// pingCount counts the PingRequests of one direction and the PingResponses
// that answered them. A State with history also keeps their numbers, for
// the statistics as of a message; one without answers only the end, and
// a host takes the statistics it needs on the way.
type pingCount struct {
	requests int
	reqN     chunks[int32]         // history: the requests' numbers, ascending
	ansN     chunks[int32]         // history: the answers' numbers, ascending, as rtt
	rtt      chunks[time.Duration] // history: the round trips in order
	rttc     rttCounts             // no history: the round trips counted by value
	rttr     stats.Running         // no history: their count, sum and jitter in arrival order
}

// PingStats are outputs.md's STATS for the PingRequests sent in one
// direction: how many, how many a PingResponse answered, and the round
// trip times of those (RTT.OK false: none, `null`).
type PingStats struct {
	Requests, Answered int
	RTT                dissect.Latency
}

// PingStats gives the statistics of each direction's PingRequests
// answered as of message asOf (full, of a State with history; ≤ 0 or not
// full: all). Nil: no message yet, what an empty State gives.
func (s *State) PingStats(asOf int, full bool) [2]PingStats {
	if s == nil {
		s = new(State)
	}
	var out [2]PingStats
	for d := range s.ping {
		pc := &s.ping[d]
		if !full {
			mn, md, mx, n := pc.rttc.stats()
			out[d] = PingStats{Requests: pc.requests, Answered: n, RTT: dissect.Latency{Min: mn, Median: md, Max: mx, OK: n > 0,
				Summary: stats.SummaryFromCounts(pc.rttc.vals, pc.rttc.cnts, &pc.rttr)}}
			continue
		}
		req, answered := pc.requests, pc.rtt.len()
		if asOf > 0 {
			req = sort.Search(pc.reqN.len(), func(k int) bool { return int(pc.reqN.at(k)) > asOf })
			answered = sort.Search(pc.ansN.len(), func(k int) bool { return int(pc.ansN.at(k)) > asOf })
		}
		var rtt dissect.Durations
		pc.rtt.each(answered, rtt.Add)
		mn, md, mx, ok, sum := rtt.Latency()
		out[d] = PingStats{Requests: req, Answered: rtt.Len(), RTT: dissect.Latency{Min: mn, Median: md, Max: mx, OK: ok, Summary: sum}}
	}
	return out
}

// rttCounts is the multiset of round trips of a State without history:
// the distinct values, ascending, each with its count, and the values
// added since they were last merged in. The exact median of outputs.md (the lower middle value)
// needs every value, but not in order and not twice: the memory grows
// with the distinct round trips, which the capture's clock resolution and
// the spread of the round trips bound (a few thousand at microseconds),
// not with the pings (issue 18: a 4M-message capture answers 900,000
// pings). Round trips all distinct cost 12 bytes each instead of 8.
type rttCounts struct {
	vals []time.Duration // distinct, ascending
	cnts []uint32        // cnts[k] values equal vals[k]
	n    int             // values added, merged or not
	raw  []time.Duration // added since the last merge
}

// rttMergeMin is the fewest added values a merge waits for; a merge also
// waits for as many as there are distinct values, so that its cost per
// value added stays constant.
const rttMergeMin = 64

func (r *rttCounts) add(x time.Duration) {
	r.raw = append(r.raw, x)
	r.n++
	if len(r.raw) >= max(rttMergeMin, len(r.vals)) {
		r.merge()
	}
}

// merge moves the values added into vals and cnts. A value already there
// is counted in place, so that merging allocates only when new distinct
// values come (the common case allocates nothing: no garbage per ping,
// which would make the collector's goal, not the capture, set the heap).
func (r *rttCounts) merge() {
	if len(r.raw) == 0 {
		return
	}
	slices.Sort(r.raw)
	fresh := r.raw[:0] // the values not in vals, sorted, in raw's room
	for _, x := range r.raw {
		if k, ok := slices.BinarySearch(r.vals, x); ok {
			r.cnts[k]++
		} else {
			fresh = append(fresh, x)
		}
	}
	if len(fresh) > 0 {
		r.mergeFresh(fresh)
	}
	r.raw = r.raw[:0]
}

// mergeFresh merges fresh (sorted, none in vals) into vals and cnts.
func (r *rttCounts) mergeFresh(fresh []time.Duration) {
	distinct := 1
	for k := 1; k < len(fresh); k++ {
		if fresh[k] != fresh[k-1] {
			distinct++
		}
	}
	vals := make([]time.Duration, 0, len(r.vals)+distinct)
	cnts := make([]uint32, 0, cap(vals))
	k := 0
	for _, x := range fresh {
		for k < len(r.vals) && r.vals[k] < x {
			vals, cnts = append(vals, r.vals[k]), append(cnts, r.cnts[k])
			k++
		}
		if m := len(vals); m > 0 && vals[m-1] == x {
			cnts[m-1]++
			continue
		}
		vals, cnts = append(vals, x), append(cnts, 1)
	}
	vals, cnts = append(vals, r.vals[k:]...), append(cnts, r.cnts[k:]...)
	r.vals, r.cnts = vals, cnts
}

// stats returns the minimum, the median (over an even count the lower of
// the two middle values, outputs.md "tables --json") and the maximum of
// the values added, and how many there are.
func (r *rttCounts) stats() (min, median, max time.Duration, n int) {
	if r.n == 0 {
		return 0, 0, 0, 0
	}
	r.merge()
	mid := uint64(r.n-1) / 2 // the lower middle value's rank, from 0
	var seen uint64
	median = r.vals[len(r.vals)-1]
	for k, c := range r.cnts {
		if seen += uint64(c); seen > mid {
			median = r.vals[k]
			break
		}
	}
	return r.vals[0], median, r.vals[len(r.vals)-1], r.n
}
