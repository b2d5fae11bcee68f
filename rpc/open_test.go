package rpc

import (
	"math/rand/v2"
	"testing"
)

// TestOpenList: an openList holds, finds and takes what a map by n would,
// over askers put in number order (and some not), taken in any order,
// through its compactions; holds is true for the record put alone, not
// for a copy of it nor once taken.
func TestOpenList(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 28))
	var l openList
	want := map[int]*Record{}
	var all []*Record
	n := 0
	for step := range 50000 {
		switch k := rng.IntN(10); {
		case k < 5:
			n += 1 + rng.IntN(3)
			r := &Record{N: n}
			if rng.IntN(50) == 0 && n > 10 {
				r = &Record{N: n - rng.IntN(10)} // out of order, or a number again
			}
			l.put(r)
			want[r.N] = r
			all = append(all, r)
		case k < 8:
			m := n - rng.IntN(40)
			if got := l.take(m); got != want[m] {
				t.Fatalf("step %d: take(%d) = %v; want %v", step, m, got, want[m])
			}
			delete(want, m)
		default:
			// drop, given the record (or a copy, or another, or none).
			m := n - rng.IntN(40)
			r := want[m]
			switch rng.IntN(4) {
			case 0:
				if r != nil {
					cp := *r
					r = &cp
				}
			case 1:
				r = nil
			case 2:
				if len(all) > 0 {
					r = all[rng.IntN(len(all))]
				}
			}
			if got := l.drop(r, m); got != want[m] {
				t.Fatalf("step %d: drop(%v, %d) = %v; want %v", step, r, m, got, want[m])
			}
			delete(want, m)
		}
		if step%101 == 0 {
			if l.len() != len(want) {
				t.Fatalf("step %d: len %d; want %d", step, l.len(), len(want))
			}
			for _, r := range all[max(0, len(all)-200):] {
				open := want[r.N] == r
				if l.holds(r) != open {
					t.Fatalf("step %d: holds(#%d) = %v; want %v", step, r.N, !open, open)
				}
				cp := *r
				if l.holds(&cp) {
					t.Fatalf("step %d: holds a copy of #%d", step, r.N)
				}
				if got := l.find(r.N); got != want[r.N] {
					t.Fatalf("step %d: find(%d) = %v; want %v", step, r.N, got, want[r.N])
				}
			}
		}
	}
}
