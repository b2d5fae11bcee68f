package session

import (
	"math/rand/v2"
	"testing"

	"github.com/usmnscope/usmnscope/decode"
)

// storeRec is a decode.Record told apart by its number alone.
type storeRec struct {
	decode.Record
	i int32
}

// TestHostedStoreRing: a Stream's hostedStore (the ring) holds what a map
// would, over records kept from the newest index and forgotten mostly in
// index order, some out of it, with long waits that make it grow and
// runs that empty it; and a put before its window lays it out again.
func TestHostedStoreRing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 29))
	var s hostedStore
	want := map[int32]decode.Record{}
	check := func(at string) {
		t.Helper()
		for i := s.base - 3; i < s.base+s.n+3; i++ {
			if got := s.get(i); got != want[i] {
				t.Fatalf("%s: get(%d) = %v; want %v", at, i, got, want[i])
			}
		}
		for i, r := range want {
			if s.get(i) != r {
				t.Fatalf("%s: get(%d) lost its record", at, i)
			}
		}
	}
	next, oldest := int32(0), int32(0)
	for step := range 60000 {
		switch k := rng.IntN(10); {
		case k < 5:
			next += int32(1 + rng.IntN(3)) // some indices are not hosted
			r := &storeRec{i: next}
			s.put(next, r)
			want[next] = r
		case k < 9:
			// The oldest first, as a Stream hands records out.
			for oldest <= next && want[oldest] == nil {
				oldest++
			}
			if rng.IntN(200) == 0 {
				oldest += int32(rng.IntN(300)) // a wait ends: forgotten out of order
			}
			s.del(oldest)
			delete(want, oldest)
		default:
			i := next - int32(rng.IntN(8))
			s.del(i)
			delete(want, i)
		}
		if step%997 == 0 {
			check("step")
		}
	}
	check("end")
	for i := range want {
		s.del(i)
		delete(want, i)
	}
	if s.n != 0 {
		t.Fatalf("emptied, the window still holds %d", s.n)
	}
	// Before the window: laid out again.
	a, b, c := &storeRec{i: 1000}, &storeRec{i: 900}, &storeRec{i: 1100}
	s.put(1000, a)
	s.put(900, b)
	s.put(1100, c)
	if s.get(1000) != a || s.get(900) != b || s.get(1100) != c || s.get(950) != nil {
		t.Fatalf("a put before the window lost a record")
	}
	s.del(900)
	if s.base != 1000 {
		t.Fatalf("base %d after the oldest left; want 1000", s.base)
	}
}

// TestHostedStoreMap: a full index's hostedStore keeps and forgets any
// index.
func TestHostedStoreMap(t *testing.T) {
	var s hostedStore
	s.full()
	a, b := &storeRec{i: 5}, &storeRec{i: 2}
	s.put(5, a)
	s.put(2, b)
	if s.get(5) != a || s.get(2) != b || s.get(3) != nil {
		t.Fatal("map store lost a record")
	}
	s.del(5)
	if s.get(5) != nil || s.get(2) != b {
		t.Fatal("map store forgot the wrong record")
	}
}

// TestPushAsk: hostedAsks stays the queue of askers pushed and not yet
// taken from its front (as hostedBound takes them), in order, while
// pushAsk moves it back to its array's start.
func TestPushAsk(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 28))
	var c Index
	var want []int
	next := 0
	for range 100000 {
		if rng.IntN(2) == 0 {
			next++
			c.pushAsk(hostedAsk{n: next})
			want = append(want, next)
		} else if len(c.hostedAsks) > 0 {
			c.hostedAsks[0] = hostedAsk{}
			c.hostedAsks = c.hostedAsks[1:]
			want = want[1:]
			if len(c.hostedAsks) == 0 && rng.IntN(2) == 0 {
				c.hostedAsks = nil
			}
		}
		if len(c.hostedAsks) != len(want) {
			t.Fatalf("queue of %d; want %d", len(c.hostedAsks), len(want))
		}
		for i, a := range c.hostedAsks {
			if a.n != want[i] {
				t.Fatalf("queue[%d] = %d; want %d", i, a.n, want[i])
			}
		}
		// The array's slots outside the queue hold nothing.
		all := c.askArr[:cap(c.askArr)]
		from := -1
		if q := c.hostedAsks; len(q) > 0 {
			from = cap(c.askArr) - cap(q)
			if &all[from] != &q[0] {
				t.Fatalf("the queue is not in askArr")
			}
		}
		for i, a := range all {
			if (i < from || i >= from+len(c.hostedAsks)) && a.n != 0 {
				t.Fatalf("slot %d outside the queue holds asker %d", i, a.n)
			}
		}
	}
	if cap(c.askArr) > 1024 {
		t.Errorf("array of %d for a queue of at most a few hundred", cap(c.askArr))
	}
}
