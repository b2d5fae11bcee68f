package main

import (
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/internal/infer"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestScoreIndexHeads: scoreIndex, tallied from the index records (issue
// 18: the TUI's load no longer decodes every message for the hint), scores
// every fixture capture as the definition does: infer.Score's messages and
// flagged, from each message decoded, and a workshop message's trailer.
func TestScoreIndexHeads(t *testing.T) {
	flaggedSome := false
	for _, path := range fixtureCaptures(t) {
		p := unturned.Default()
		src, err := openSource(&streams{}, path, p)
		if err != nil {
			t.Fatal(err)
		}
		dc := newDecoder(p)
		attachStore(dc, path)
		if err := pipeline.Feed(src, dc, nil); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		src.Close()
		sc := infer.ScoreOf(dc)
		want := hintScore{Messages: sc.Messages, Flagged: sc.Flagged}
		for n := 1; n <= dc.Len() && !want.Trailer; n++ {
			if m := dc.Message(n); m != nil {
				want.Trailer = infer.WorkshopTrailer(m)
			}
		}
		flaggedSome = flaggedSome || want.Flagged > 0
		if got := scoreIndex(dc); got != want {
			t.Errorf("scoreIndex(%s) = %+v; want %+v", filepath.Base(path), got, want)
		}
	}
	if !flaggedSome {
		t.Error("no fixture capture has a flagged message: the comparison proves little")
	}
}
