package pipeline

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestScoreHeadsParts: ScoreHeads tallied in parts on several cores (an
// index of scoreSplit messages or more) scores every fixture capture as
// tallied in one pass: flagged messages and the workshop trailer are found
// in whichever part holds them.
func TestScoreHeadsParts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "captures", "*.pcap*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture captures: %v", err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func(s int) { scoreSplit = s }(scoreSplit)
	flagged, trailer := false, false
	for _, path := range paths {
		d, err := Open(Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Feed(nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		scoreSplit = 1 << 62
		want := ScoreHeads(d.Index)
		scoreSplit = 0
		if got := ScoreHeads(d.Index); got != want {
			t.Errorf("ScoreHeads(%s) in parts = %+v; in one = %+v", filepath.Base(path), got, want)
		}
		flagged, trailer = flagged || want.Flagged > 0, trailer || want.Trailer
		d.Source.Close()
	}
	if !flagged || !trailer {
		t.Errorf("no fixture has a flagged message (%v) or a workshop trailer (%v): the comparison proves little", flagged, trailer)
	}
}
