package feed_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned/feed"
)

// TestScoreParts: Score tallied in parts on several cores (an index of
// scoreSplit messages or more) scores every fixture capture as tallied in
// one pass: flagged messages and the workshop trailer are found in
// whichever part holds them.
func TestScoreParts(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "captures", "*.pcap*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture captures: %v", err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer feed.SetScoreSplit(feed.SetScoreSplit(0))
	flagged, trailer := false, false
	for _, path := range paths {
		d, err := pipeline.Open(pipeline.Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Feed(nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		feed.SetScoreSplit(1 << 62)
		want := feed.Score(d.Index)
		feed.SetScoreSplit(0)
		if got := feed.Score(d.Index); got != want {
			t.Errorf("Score(%s) in parts = %+v; in one = %+v", filepath.Base(path), got, want)
		}
		flagged, trailer = flagged || want.Flagged > 0, trailer || want.Trailer
		d.Source.Close()
	}
	if !flagged || !trailer {
		t.Errorf("no fixture has a flagged message (%v) or a workshop trailer (%v): the comparison proves little", flagged, trailer)
	}
}
