package session

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// TestConnectionsSince: summaries come without findings, a call copies
// only connections that changed since the version it is given, and new
// connections are appended; ConnFindings and CaptureWorst give the rest.
func TestConnectionsSince(t *testing.T) {
	c := NewIndex(nil)
	a := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:5000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	b := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.3:5000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	t0 := time.Unix(1700000000, 0)
	c.Open(a, RuleSYN, t0, 1)
	c.Data(a, dissect.C2S, []byte{0, 1, 2}, t0, 2)
	c.Note(a, dissect.Finding{Severity: dissect.Warn, Text: "w", Bit: -1})

	list, v1 := c.ConnectionsSince(nil, 0)
	if len(list) != 1 || list[0].Conn != a || list[0].Messages != 1 || list[0].Findings != nil || list[0].Worst != dissect.Warn {
		t.Fatalf("ConnectionsSince(nil, 0) = %+v; want a with 1 message, worst warn, no findings", list)
	}
	if again, v := c.ConnectionsSince(list, v1); v != v1 || len(again) != 1 {
		t.Errorf("unchanged: version %d, %d conns; want %d, 1", v, len(again), v1)
	}
	// A stale entry that did not change stays as the caller left it: the
	// call copies only what changed.
	list[0].Messages = -1
	c.Open(b, RuleSYN, t0, 3)
	list, v2 := c.ConnectionsSince(list, v1)
	if v2 <= v1 || len(list) != 2 || list[1].Conn != b || list[0].Messages != -1 {
		t.Fatalf("after b opened: version %d (was %d), %+v; want b appended, a not copied again", v2, v1, list)
	}
	c.Data(a, dissect.C2S, []byte{0, 1, 2}, t0, 4)
	list, _ = c.ConnectionsSince(list, v2)
	if list[0].Messages != 2 {
		t.Errorf("a after a second message: %d messages; want 2", list[0].Messages)
	}
	if fs, n := c.ConnFindings(a); len(fs) != 1 || fs[0].Text != "w" || n != 0 {
		t.Errorf("ConnFindings(a) = %v, %d; want [w], 0", fs, n)
	}
	if _, ok := c.CaptureWorst(); ok {
		t.Errorf("CaptureWorst with no capture findings: ok")
	}
	c.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Error, Text: "e", Bit: -1})
	if w, ok := c.CaptureWorst(); !ok || w != dissect.Error {
		t.Errorf("CaptureWorst = %v, %v; want error", w, ok)
	}
}
