package feed_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/feed"
	"github.com/usmnscope/usmnscope/unturned/infer"
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
		ix := decodeFile(t, pipeline.Config{}, path)
		feed.SetScoreSplit(1 << 62)
		want := feed.Score(ix)
		feed.SetScoreSplit(0)
		if got := feed.Score(ix); got != want {
			t.Errorf("Score(%s) in parts = %+v; in one = %+v", filepath.Base(path), got, want)
		}
		flagged, trailer = flagged || want.Flagged > 0, trailer || want.Trailer
	}
	if !flagged || !trailer {
		t.Errorf("no fixture has a flagged message (%v) or a workshop trailer (%v): the comparison proves little", flagged, trailer)
	}
}

// TestScoreHosted: Score, which reads no head of an index of hosted
// messages alone, scores every fixture capture (ULinkRPC's among them)
// as the tally of every head does.
func TestScoreHosted(t *testing.T) {
	var paths []string
	for _, dir := range []string{"captures", "ulinkrpc"} {
		p, err := filepath.Glob(filepath.Join("..", "..", "fixtures", dir, "*.pcap*"))
		if err != nil || len(p) == 0 {
			t.Fatalf("no fixture captures in %s: %v", dir, err)
		}
		paths = append(paths, p...)
	}
	cfg, err := pipeline.Loaders{}.Load()
	if err != nil {
		t.Fatal(err)
	}
	hostedOnly := 0
	for _, path := range paths {
		ix := decodeFile(t, cfg, path)
		want := feed.ScoreHeads(ix)
		if got := feed.Score(ix); got != want {
			t.Errorf("Score(%s) = %+v; the tally of every head %+v", filepath.Base(path), got, want)
		}
		if ix.Len() > 0 && want == (infer.Hint{}) {
			hostedOnly++
		}
	}
	if hostedOnly == 0 {
		t.Error("no fixture is of hosted messages alone: the comparison proves little")
	}
}

// decodeFile decodes the capture at path under cfg into a full index; its
// source is closed when the test ends.
func decodeFile(t *testing.T, cfg pipeline.Config, path string) *session.Index {
	t.Helper()
	opts := cfg.Options()
	opts.Path = path
	d, err := pipeline.Open(opts)
	if err == nil {
		t.Cleanup(func() { d.Source.Close() })
		err = d.Feed(nil)
	}
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return d.Index
}
