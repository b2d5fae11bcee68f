package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
	utfeed "github.com/usmnscope/usmnscope/unturned/feed"
	"github.com/usmnscope/usmnscope/unturned/infer"
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
		sc := infer.ScoreOf(utfeed.Decoded(dc))
		want := hintScore{Messages: sc.Messages, Flagged: sc.Flagged}
		for n := 1; n <= dc.Len() && !want.Trailer; n++ {
			if m := dc.Message(n); m != nil {
				want.Trailer = infer.WorkshopTrailer(utfeed.Message(m))
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

// TestHintBudget: the profile hint's time is bounded by the work it may do
// (issue 29: at most a tenth of the load and 1 s), counted in message
// decodes: 3/10 of the load's messages or a reading per 128 bytes of the
// file, never past 1,000,000 readings, at least 30,000. A dump of a
// capture the default profile decodes badly hands the search that bound,
// and the search spends no more: counted, not timed.
func TestHintBudget(t *testing.T) {
	for _, c := range []struct {
		messages int
		size     int64
		want     int
	}{
		{0, 0, hintMinDecodes},
		{30, 4868, hintMinDecodes},
		{200_000, 0, 60_000},
		{26_807, 19_512_476, 152_441},
		{10_000_000, 0, hintMaxDecodes},
		{0, 1 << 40, hintMaxDecodes},
	} {
		if got := hintBudget(c.messages, c.size); got != c.want {
			t.Errorf("hintBudget(%d, %d) = %d; want %d", c.messages, c.size, got, c.want)
		}
	}
	type call struct {
		bound int
		res   *infer.Result
	}
	var calls []call
	old := pipeline.HintRun
	defer func() { pipeline.HintRun = old }()
	pipeline.HintRun = func(base *unturned.Profile, dec infer.Decoder, maxCands, maxDecodes int) *infer.Result {
		res := old(base, dec, maxCands, maxDecodes)
		calls = append(calls, call{maxDecodes, res})
		return res
	}
	for _, name := range []string{"profile-custom", "profile-wire61"} {
		calls = nil
		path := filepath.Join("..", "..", "fixtures", "captures", name+".pcapng")
		var out, errw bytes.Buffer
		Execute([]string{"dump", path}, nil, &out, &errw)
		if len(calls) != 1 {
			t.Fatalf("dump %s: the hint searched %d times; want once", name, len(calls))
		}
		c := calls[0]
		if c.bound != hintMinDecodes {
			t.Errorf("dump %s: the search's bound is %d message decodes; want %d", name, c.bound, hintMinDecodes)
		}
		if spent := c.res.Messages + c.res.Decodes*c.res.Active.Messages; spent > c.bound {
			t.Errorf("dump %s: the search spent %d message decodes; its bound is %d", name, spent, c.bound)
		}
		if !strings.Contains(out.String(), "usmnscope profile infer") {
			t.Errorf("dump %s: no profile hint within the bound:\n%s", name, out.String())
		}
	}
}
