package views

import (
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned/fake"
)

// countingSource counts the reads that copy every connection's findings,
// or that take the capture's lock, so a test can tell a render makes none.
type countingSource struct {
	*fake.Source
	copies, polls int
}

func (s *countingSource) Connections() []session.ConnInfo {
	s.copies++
	return s.Source.Connections()
}

func (s *countingSource) Findings() []dissect.Finding {
	s.copies++
	return s.Source.Findings()
}

func (s *countingSource) ConnectionsSince(dst []session.ConnInfo, since uint64) ([]session.ConnInfo, uint64) {
	s.polls++
	return s.Source.ConnectionsSince(dst, since)
}

func (s *countingSource) CaptureWorst() (dissect.Severity, bool) {
	s.polls++
	return s.Source.CaptureWorst()
}

// TestRenderReadsNoSummaries (issue 17 point 5): the root model takes
// connection summaries without findings when it refreshes, and a render
// reads only what it holds: no deep copy of findings, no call into the
// source, so no lock held while rendering. The status bar still shows the
// worst severity of the capture's findings.
func TestRenderReadsNoSummaries(t *testing.T) {
	src := &countingSource{Source: fake.Capture()}
	src.Finds = []dissect.Finding{{Severity: dissect.Error, Group: dissect.Malformed, Text: "capture-wide", Bit: -1}}
	m := loaded(t, src, 120, 40)
	if src.copies != 0 {
		t.Errorf("loading called Connections or Findings %d times; want 0 (ConnectionsSince and CaptureWorst)", src.copies)
	}
	if src.polls == 0 {
		t.Fatalf("loading never read the connection summaries")
	}
	polls := src.polls
	var out string
	for range 5 {
		out = m.View().Content
	}
	if src.polls != polls || src.copies != 0 {
		t.Errorf("5 renders made %d summary reads and %d copies; want none", src.polls-polls, src.copies)
	}
	if !strings.Contains(out, "worst error") {
		t.Errorf("status bar lacks the capture finding's severity:\n%s", out)
	}
}
