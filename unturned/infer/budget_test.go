package infer_test

import (
	"strconv"
	"testing"

	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

// TestRunBudget: the search decodes at most the messages it is allowed
// (issue 29: the profile hint's time bounded by its work, not a clock):
// the two decodes of the capture (each the sample's messages) plus every
// message read under a candidate stay within the bound, the keys the
// bound stopped are undecided saying so, and an ample bound changes
// nothing. usmn-midframe read unbounded costs 2.9 million readings (2.3 s
// on this machine); the old search had no such bound.
func TestRunBudget(t *testing.T) {
	rec := record(t, fixtures+"/captures/usmn-midframe.pcapng")
	free := infer.RunBounded(unturned.Default(), decoder(t, rec), 5000)
	if free.Messages < 1_000_000 {
		t.Fatalf("unbounded: %d readings; the test wants a capture whose search reads over a million", free.Messages)
	}
	for _, bound := range []int{0, 100, 5_000, 50_000, 300_000} {
		res := infer.RunBudget(unturned.Default(), decoder(t, rec), 5000, bound)
		if allowed := max(0, bound-2*res.Active.Messages); res.Messages > allowed || res.Decodes == 2 && res.Messages+2*res.Active.Messages > bound {
			t.Errorf("RunBudget(bound %d): %d readings and %d decodes of %d messages; want at most %d readings, the whole within the bound", bound, res.Messages, res.Decodes, res.Active.Messages, allowed)
		}
		if res.Candidates >= free.Candidates {
			t.Errorf("RunBudget(bound %d) tried %d candidates; want fewer than unbounded's %d", bound, res.Candidates, free.Candidates)
		}
		said := false
		for _, u := range res.Undecided {
			said = said || u.Reason == "the search stopped at its bound of "+strconv.Itoa(bound)+" message decodes before deciding it"
		}
		if !said {
			t.Errorf("RunBudget(bound %d): no key undecided for the decode bound: %+v", bound, res.Undecided)
		}
	}
	ample := infer.RunBudget(unturned.Default(), decoder(t, rec), 5000, 100_000_000)
	if ample.Messages != free.Messages || ample.Candidates != free.Candidates || *ample.Profile != *free.Profile {
		t.Errorf("an ample bound: %d readings, %d candidates; want %d and %d, the same profile", ample.Messages, ample.Candidates, free.Messages, free.Candidates)
	}
}
