package views

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/usmnscope/usmnscope/scenario"
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
		if got.scanned != want.scanned || !reflect.DeepEqual(got.byConn, want.byConn) || !reflect.DeepEqual(got.spark, want.spark) || !reflect.DeepEqual(got.first, want.first) {
			t.Errorf("budget %d: the batch index differs from the Stamp one (scanned %d, %d; %d, %d connections)", budget, got.scanned, want.scanned, len(got.byConn), len(want.byConn))
		}
	}
}
