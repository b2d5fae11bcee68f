package views

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/views/messages"
)

// stampOnly hides the batch methods of a Source, so the index reads it a
// Stamp at a time.
type stampOnly struct{ Source }

// TestIndexBatchMatchesStamp: the index built from batches of stamps
// (session.Index.Stamps, issue 18) equals the one built a Stamp at a time,
// whatever the budgets the steps are given, over a capture of many
// connections with gaps, resynchronisations and messages numbered late.
func TestIndexBatchMatchesStamp(t *testing.T) {
	s, err := scenario.ReadFile("../fixtures/scenarios/scale/hostile-outoforder.toml")
	if err != nil {
		t.Fatal(err)
	}
	s.Floods[1].Conns = 10
	var buf bytes.Buffer
	if _, err := s.Generate(&buf, scenario.PCAPNG); err != nil {
		t.Fatal(err)
	}
	dc := decodeFile(t, buf.Bytes())
	n := dc.Len()
	want := newIndex()
	for want.step(stampOnly{dc}, n, 777) {
	}
	if len(want.byConn) < 2 {
		t.Fatalf("%d connections indexed; want several", len(want.byConn))
	}
	for _, budget := range []int{1, 500, 5000, stampBatch + 1, n + 10} {
		got := newIndex()
		// The known count grows as a loading capture's does.
		for known := min(n, 3000); ; known = min(n, known+3000) {
			for got.step(dc, known, budget) {
			}
			if known == n {
				break
			}
		}
		if got.scanned != want.scanned || !sameRows(got.byConn, want.byConn) || !reflect.DeepEqual(got.spark, want.spark) || !reflect.DeepEqual(got.first, want.first) {
			t.Errorf("budget %d: the batch index differs from the Stamp one (scanned %d, %d; %d, %d connections)", budget, got.scanned, want.scanned, len(got.byConn), len(want.byConn))
		}
	}
}

// sameRows reports whether a and b list the same numbers for the same
// connections.
func sameRows(a, b map[dissect.Conn]messages.Rows) bool {
	if len(a) != len(b) {
		return false
	}
	for conn, ra := range a {
		rb, ok := b[conn]
		if !ok || ra.Len() != rb.Len() {
			return false
		}
		for i := range ra.Len() {
			if ra.At(i) != rb.At(i) {
				return false
			}
		}
	}
	return true
}

// TestNumbers: the blocks of a connection's numbers read back what was
// added, across block boundaries, and a copy taken earlier keeps its
// length and numbers while the list grows (the rows a list was given).
func TestNumbers(t *testing.T) {
	for _, tt := range []struct {
		name string
		n    int
	}{
		{"empty", 0},
		{"one", 1},
		{"first block", numBlock},
		{"one past a block", numBlock + 1},
		{"several blocks", 3*numBlock + 17},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var l numbers
			var snaps []numbers
			for i := range tt.n {
				l.add(int32(3*i + 1))
				if i%1000 == 0 {
					snaps = append(snaps, l)
				}
			}
			snaps = append(snaps, l)
			for _, s := range snaps {
				for i := range s.Len() {
					if got, want := s.At(i), 3*i+1; got != want {
						t.Fatalf("a list of %d: At(%d) = %d; want %d", s.Len(), i, got, want)
					}
				}
			}
			if l.Len() != tt.n {
				t.Errorf("Len() = %d; want %d", l.Len(), tt.n)
			}
			for k, b := range l.blocks {
				if k < len(l.blocks)-1 && len(b) != numBlock {
					t.Errorf("block %d holds %d numbers; want %d", k, len(b), numBlock)
				}
			}
		})
	}
}
