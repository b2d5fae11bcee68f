package rpc

import "testing"

// askers finds every open asker by number and none let go, across the
// compactions that drop the answered ones, with numbers added out of
// order too.
func TestAskers(t *testing.T) {
	var l askers
	open := map[int]*Record{}
	for n := 1; n <= 200; n++ {
		r := &Record{N: 2 * n}
		l.add(r)
		open[r.N] = r
		if n%3 != 0 {
			if got := l.take(2*n - 2); got != open[2*n-2] {
				t.Fatalf("take(%d) = %v, want %v", 2*n-2, got, open[2*n-2])
			}
			delete(open, 2*n-2)
		}
	}
	r := &Record{N: 7} // out of order
	l.add(r)
	open[7] = r
	for n := 0; n <= 402; n++ {
		if got := l.get(n); got != open[n] {
			t.Fatalf("get(%d) = %v, want %v", n, got, open[n])
		}
	}
	if l.len() != len(open) {
		t.Fatalf("len = %d, want %d", l.len(), len(open))
	}
	if l.take(3) != nil || l.take(2) != nil || l.take(1000) != nil {
		t.Fatal("take of no open asker gave one")
	}
}
