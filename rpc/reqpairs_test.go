package rpc

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// TestReqPairs: reqPairs answers as dissect.Pairs[reqKey] does, over
// random asks and answers on few and many keys, request ids used again
// while open, and floods past Max.
func TestReqPairs(t *testing.T) {
	for _, tc := range []struct {
		keys, max, steps int
	}{{4, 0, 20000}, {300, 0, 50000}, {50, 40, 50000}, {5000, 100, 30000}, {3, 2, 5000}} {
		rng := rand.New(rand.NewPCG(uint64(tc.keys), uint64(tc.max)))
		var got reqPairs
		var want dissect.Pairs[reqKey]
		got.Max, want.Max = tc.max, tc.max
		n := 0
		recs := map[int]*Record{}
		key := func() reqKey { return keyOf(dissect.Dir(rng.IntN(2)), uint32(rng.IntN(tc.keys))) }
		for step := range tc.steps {
			if rng.IntN(2) == 0 {
				n++
				k, a := key(), dissect.Ask{N: n, Time: time.Unix(int64(n), 0)}
				recs[n] = &Record{N: n}
				f1, d1 := got.Ask(k, a, recs[n])
				f2, d2 := want.Ask(k, a)
				if f1.a != f2 || d1 != d2 || d1 && f1.rec != recs[f2.N] {
					t.Fatalf("%+v step %d: Ask(%x) forgot %+v, %v; want %+v, %v", tc, step, k, f1, d1, f2, d2)
				}
			} else {
				k := key()
				q, ok1 := got.Latest(k)
				a1 := q.a
				a2, ok2 := want.Latest(k)
				if a1 != a2 || ok1 != ok2 || ok1 && q.rec != recs[a2.N] {
					t.Fatalf("%+v step %d: Latest(%x) = %+v, %v; want %+v, %v", tc, step, k, a1, ok1, a2, ok2)
				}
			}
			if got.Len() != want.Len() || got.Dropped != want.Dropped {
				t.Fatalf("%+v step %d: %d open, %d dropped; want %d, %d", tc, step, got.Len(), got.Dropped, want.Len(), want.Dropped)
			}
			if step%499 == 0 {
				if g, w := got.Pending(), want.Pending(); !reflect.DeepEqual(g, w) {
					t.Fatalf("%+v step %d: Pending %v; want %v", tc, step, g, w)
				}
			}
		}
		// Answered all: the table empties.
		for _, p := range want.Pending() {
			if _, ok := got.Latest(p.Key); !ok {
				t.Fatalf("%+v: %x lost", tc, p.Key)
			}
		}
		if got.Len() != 0 || got.used != 0 || len(got.more) != 0 {
			t.Fatalf("%+v: %d open, %d slots, %d more after all were answered", tc, got.Len(), got.used, len(got.more))
		}
	}
}
