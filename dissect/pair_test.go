package dissect

import (
	"testing"
	"time"
)

func at(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }

// TestPairsPing pairs Unturned pings per direction, first in first out: a
// PingResponse in s2c answers the oldest PingRequest sent c2s.
func TestPairsPing(t *testing.T) {
	var p Pairs[Dir]
	p.Ask(C2S, Ask{N: 1, Time: at(0)})
	p.Ask(S2C, Ask{N: 2, Time: at(1)})
	p.Ask(C2S, Ask{N: 3, Time: at(2)})
	if a, ok := p.Oldest(C2S); !ok || a.N != 1 {
		t.Fatalf("Oldest(c2s) = %v, %v; want 1", a, ok)
	}
	if a, ok := p.Oldest(C2S); !ok || a.N != 3 {
		t.Fatalf("Oldest(c2s) = %v, %v; want 3", a, ok)
	}
	if _, ok := p.Oldest(C2S); ok {
		t.Fatal("Oldest(c2s) on an empty key answered")
	}
	if got := p.Pending(); len(got) != 1 || got[0].N != 2 || got[0].Key != S2C {
		t.Fatalf("Pending = %v; want n 2 s2c", got)
	}
}

// TestPairsLatest pairs by id, the latest unanswered asker (ULinkRPC).
func TestPairsLatest(t *testing.T) {
	var p Pairs[uint32]
	p.Ask(7, Ask{N: 1})
	p.Ask(7, Ask{N: 4})
	p.Ask(8, Ask{N: 5})
	if a, _ := p.Latest(7); a.N != 4 {
		t.Fatalf("Latest(7) = %d; want 4", a.N)
	}
	if a, _ := p.OldestWhere(func(k uint32) bool { return k == 8 }); a.N != 5 {
		t.Fatalf("OldestWhere(8) = %d; want 5", a.N)
	}
	if a, _ := p.OldestWhere(func(uint32) bool { return true }); a.N != 1 {
		t.Fatalf("OldestWhere(any) = %d; want 1", a.N)
	}
	if p.Len() != 0 {
		t.Fatalf("Len = %d; want 0", p.Len())
	}
}

// TestPairsBound forgets the oldest asker past Max.
func TestPairsBound(t *testing.T) {
	p := Pairs[int]{Max: 3}
	var forgot []int
	for i := 1; i <= 5; i++ {
		if a, ok := p.Ask(i%2, Ask{N: i}); ok {
			forgot = append(forgot, a.N)
		}
	}
	if len(forgot) != 2 || forgot[0] != 1 || forgot[1] != 2 {
		t.Fatalf("forgotten = %v; want [1 2]", forgot)
	}
	if p.Len() != 3 || p.Dropped != 2 {
		t.Fatalf("Len, Dropped = %d, %d; want 3, 2", p.Len(), p.Dropped)
	}
	if got := p.Pending(); got[0].N != 3 {
		t.Fatalf("oldest kept = %d; want 3", got[0].N)
	}
}

func TestDurations(t *testing.T) {
	for _, tc := range []struct {
		in            []time.Duration
		min, med, max time.Duration
	}{
		{[]time.Duration{5}, 5, 5, 5},
		{[]time.Duration{9, 1, 4, 7}, 1, 4, 9},
		{[]time.Duration{3, 1, 2}, 1, 2, 3},
	} {
		var d Durations
		for _, x := range tc.in {
			d.Add(x)
		}
		mn, md, mx, ok, _ := d.Latency()
		if !ok || mn != tc.min || md != tc.med || mx != tc.max {
			t.Errorf("Stats(%v) = %v %v %v; want %v %v %v", tc.in, mn, md, mx, tc.min, tc.med, tc.max)
		}
	}
	var d Durations
	if _, _, _, ok, _ := d.Latency(); ok {
		t.Error("Stats of nothing is ok")
	}
}

// TestPairsFlood answers a long run of askers one by one while more come
// (a PingRequest flood): the queue's head moves and compacts, and every
// answer is still the oldest.
func TestPairsFlood(t *testing.T) {
	var p Pairs[Dir]
	next := 1
	for i := 1; i <= 5000; i++ {
		p.Ask(C2S, Ask{N: i})
		if i%3 == 0 {
			if a, ok := p.Peek(C2S); !ok || a.N != next {
				t.Fatalf("Peek(c2s) after %d = %v, %v; want %d", i, a, ok, next)
			}
			if a, _ := p.Oldest(C2S); a.N != next {
				t.Fatalf("Oldest(c2s) after %d = %d; want %d", i, a.N, next)
			}
			next++
		}
	}
	if p.Len() != 5000-next+1 {
		t.Fatalf("Len = %d; want %d", p.Len(), 5000-next+1)
	}
	for p.Len() > 0 {
		if a, _ := p.Oldest(C2S); a.N != next {
			t.Fatalf("Oldest(c2s) = %d; want %d", a.N, next)
		}
		next++
	}
	if _, ok := p.Peek(C2S); ok {
		t.Fatal("Peek of an emptied key answered")
	}
}

// TestPairsNoAlloc: question and answer in turn, over keys that come and
// go, allocate nothing once warm (issue 15: no allocation per message).
func TestPairsNoAlloc(t *testing.T) {
	var p Pairs[uint32]
	k := uint32(0)
	step := func() {
		k++
		p.Ask(k, Ask{N: int(k)})
		p.Ask(k+1, Ask{N: int(k)})
		p.Oldest(k)
		p.Latest(k + 1)
	}
	step()
	if n := testing.AllocsPerRun(1000, step); n != 0 {
		t.Errorf("AllocsPerRun(ask, answer) = %v; want 0", n)
	}
}

// TestDurationsPrefix: statistics of the first n durations only.
func TestDurationsPrefix(t *testing.T) {
	var d Durations
	for _, x := range []time.Duration{9, 1, 4, 7} {
		d.Add(x)
	}
	p := d.Prefix(3)
	if mn, md, mx, ok, _ := p.Latency(); !ok || mn != 1 || md != 4 || mx != 9 || p.Len() != 3 {
		t.Errorf("Prefix(3).Latency() = %v %v %v %v, Len %d; want 1 4 9 true, 3", mn, md, mx, ok, p.Len())
	}
	p.Add(0)
	if _, md, _, _, _ := d.Latency(); md != 4 {
		t.Errorf("Stats after adding to a prefix: median %v; want 4 (the prefix must not write into d)", md)
	}
	if e := d.Prefix(0); e.Len() != 0 {
		t.Errorf("Prefix(0).Len() = %d; want 0", e.Len())
	}
}

// TestPairsLastKey: the key used last keeps its emptied queue, which
// answers nothing and is not listed, and leaves the map for the next key.
func TestPairsLastKey(t *testing.T) {
	var p Pairs[int]
	p.Ask(1, Ask{N: 1})
	p.Oldest(1)
	if _, ok := p.Oldest(1); ok {
		t.Fatal("Oldest(1) answered from an emptied queue")
	}
	if _, ok := p.Latest(1); ok {
		t.Fatal("Latest(1) answered from an emptied queue")
	}
	if _, ok := p.OldestWhere(func(int) bool { return true }); ok || len(p.Pending()) != 0 || p.Len() != 0 {
		t.Fatalf("OldestWhere, Pending, Len = %v, %v, %d; want none", ok, p.Pending(), p.Len())
	}
	p.Ask(2, Ask{N: 2})
	if len(p.open) != 1 {
		t.Errorf("%d queues in the map after moving to key 2; want 1", len(p.open))
	}
	p.Ask(1, Ask{N: 3})
	if a, _ := p.OldestWhere(func(int) bool { return true }); a.N != 2 {
		t.Errorf("OldestWhere = %d; want 2", a.N)
	}
	if a, _ := p.Peek(1); a.N != 3 {
		t.Errorf("Peek(1) = %d; want 3", a.N)
	}
}
