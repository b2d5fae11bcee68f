package session

import (
	"path/filepath"
	"testing"
)

// TestStampsHeads: the batch reads (Stamps, ConnAt, Heads, Marks) say for every
// message of every fixture capture what Stamp and Head say one at a
// time, in batches of any size, from any start.
func TestStampsHeads(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "fixtures", "captures", "*.pcapng"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture captures: %v", err)
	}
	for _, path := range paths {
		c := readFixture(t, path)
		for _, size := range []int{1, 7, 4096} {
			for from := 1; from <= c.Len(); from += size {
				st := c.Stamps(make([]MessageStamp, 0, size), from)
				hs := c.Heads(make([]Head, 0, size), from)
				ms := c.Marks(make([]Mark, 0, size), from)
				if want := min(size, c.Len()-from+1); len(st) != want || len(hs) != want || len(ms) != want {
					t.Fatalf("%s: Stamps, Heads, Marks from %d with room for %d = %d, %d, %d; want %d", path, from, size, len(st), len(hs), len(ms), want)
				}
				for i := range st {
					n := from + i
					conn, tm, _ := c.Stamp(n)
					got, ok := c.ConnAt(int(st[i].Conn))
					if !ok || got != conn || st[i].Time != tm.UnixNano() {
						t.Errorf("%s: Stamps[%d] = %v at %d; want %v at %d", path, n, got, st[i].Time, conn, tm.UnixNano())
					}
					h, _ := c.Head(n)
					if hs[i] != h {
						t.Errorf("%s: Heads[%d] = %+v; want %+v", path, n, hs[i], h)
					}
					if want := (Mark{N: n, Kind: h.Kind, Worst: h.Worst, HasFinding: h.HasFinding, Hosted: h.Hosted}); ms[i] != want {
						t.Errorf("%s: Marks[%d] = %+v; want %+v", path, n, ms[i], want)
					}
				}
			}
		}
		if st := c.Stamps(make([]MessageStamp, 0, 4), c.Len()+1); len(st) != 0 {
			t.Errorf("%s: Stamps past the end = %v; want none", path, st)
		}
		if _, ok := c.ConnAt(len(c.Connections())); ok {
			t.Errorf("%s: ConnAt past the connections is ok", path)
		}
	}
}
