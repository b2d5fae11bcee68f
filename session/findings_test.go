package session

import (
	"strconv"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestFindingsCapped: a capture that makes a finding per packet keeps
// MaxFindings of them per connection and for the capture, says so once in
// the last kept slot, counts the rest, and still counts their severity
// (issue 17: 2M connection findings took 615 MB).
func TestFindingsCapped(t *testing.T) {
	const limit, sent = 5, 20
	c := NewIndexLimits(nil, unturned.Limits{MaxFindings: limit})
	for i := range sent {
		sev := dissect.Note
		if i == sent-1 {
			sev = dissect.Error // past the cap: counted in Worst all the same
		}
		c.Note(cvConn, dissect.Finding{Severity: sev, Group: dissect.Sequence, Text: "conn " + strconv.Itoa(i), Bit: -1})
		c.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Text: "capture " + strconv.Itoa(i), Bit: -1})
	}
	ci := c.Connections()[0]
	if len(ci.Findings) != limit || ci.Suppressed != sent-(limit-1) {
		t.Fatalf("connection: %d findings, %d suppressed; want %d and %d", len(ci.Findings), ci.Suppressed, limit, sent-(limit-1))
	}
	if ci.Findings[limit-2].Text != "conn 3" || !strings.Contains(ci.Findings[limit-1].Text, "findings limit of 5 reached for this connection") {
		t.Errorf("connection findings %+v; want the first 4 and the limit notice", ci.Findings)
	}
	if ci.Worst != dissect.Error {
		t.Errorf("connection worst = %v; want error (a suppressed finding still counts)", ci.Worst)
	}
	fs := c.Findings()
	if len(fs) != limit || c.Suppressed() != sent-(limit-1) || !strings.Contains(fs[limit-1].Text, "reached for this capture") {
		t.Errorf("capture: %d findings (%v), %d suppressed; want %d with the notice last, %d suppressed", len(fs), fs, c.Suppressed(), limit, sent-(limit-1))
	}
}
