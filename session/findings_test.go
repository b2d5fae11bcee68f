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

// TestZeroLengthShapeCapped is issue 17's zero-length shape at a small
// scale: client data of 100 × (`00 01 02` × 3 + `00 00`) after a captured
// handshake makes a framing finding per empty frame; the connection keeps
// MaxFindings of them, counts the rest, and every message is still decoded.
func TestZeroLengthShapeCapped(t *testing.T) {
	const limit, cycles = 8, 100
	c := NewIndexLimits(nil, unturned.Limits{MaxFindings: limit})
	c.Open(cvConn, RuleSYN, cvT0, 1)
	var data []byte
	for range cycles {
		data = append(data, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 0)
	}
	c.Data(cvConn, dissect.C2S, data, cvT0, 2)
	c.Finish()
	ci := c.Connections()[0]
	if len(ci.Findings) != limit || ci.Suppressed == 0 {
		t.Fatalf("%d findings kept, %d suppressed; want %d kept and the rest counted", len(ci.Findings), ci.Suppressed, limit)
	}
	if got := c.Len(); got < 3*cycles {
		t.Errorf("Len() = %d; want the %d messages of the shape decoded", got, 3*cycles)
	}
	if m := c.Message(1); m == nil || len(m.Data) != 1 || m.Data[0] != 2 {
		t.Errorf("Message(1) = %+v; want the first one-byte message kept", m)
	}
}

// TestGapShapeCapped is issue 17's gap shape at a small scale: every gap is
// a connection finding; past MaxFindings they are counted, and the message
// before the gaps is kept.
func TestGapShapeCapped(t *testing.T) {
	const limit, gaps = 8, 200
	c := NewIndexLimits(nil, unturned.Limits{MaxFindings: limit})
	c.Open(cvConn, RuleSYN, cvT0, 1)
	c.Data(cvConn, dissect.C2S, []byte{0, 1, 2}, cvT0, 2)
	for i := range gaps {
		c.Gap(cvConn, dissect.C2S, 1, cvT0, 3+i)
		c.Data(cvConn, dissect.C2S, []byte{0, 1, 2, 0, 1, 2}, cvT0, 3+i)
	}
	c.Finish()
	ci := c.Connections()[0]
	if len(ci.Findings) != limit || ci.Suppressed < gaps-limit {
		t.Fatalf("%d findings kept, %d suppressed; want %d kept and at least %d counted", len(ci.Findings), ci.Suppressed, limit, gaps-limit)
	}
	if m := c.Message(1); m == nil || len(m.Data) != 1 || m.Data[0] != 2 {
		t.Errorf("Message(1) = %+v; want the message before the gaps kept", m)
	}
}
