package session

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestPartialFramesBounded is issue 17's partial-frames shape at a small
// scale: many connections each start a 65,535-byte message in both
// directions and send its body in 1,000-byte chunks, round-robin. The
// framers together never hold more than Limits.MaxBuffered; the largest
// partial messages are dropped with a finding on their connection and one
// on the capture; the message decoded before is kept, and framing stays
// synchronised on the message after the dropped one.
func TestPartialFramesBounded(t *testing.T) {
	const (
		conns   = 20
		bound   = 200_000
		body    = 0xFFFF
		chunk   = 1000
		maxHeld = bound
	)
	c := NewIndexLimits(nil, unturned.Limits{MaxBuffered: bound})
	cs := make([]dissect.Conn, conns)
	t0 := time.Unix(1700000000, 0)
	for i := range cs {
		cs[i] = dissect.Conn{
			Client: netip.AddrPortFrom(netip.MustParseAddr("10.0.0.2"), uint16(40000+i)),
			Server: netip.MustParseAddrPort("10.0.0.1:27016"),
		}
		c.Open(cs[i], RuleSYN, t0, 1)
		for d := dissect.C2S; d <= dissect.S2C; d++ {
			// A whole one-byte message, then the header of a
			// 65,535-byte one.
			c.Data(cs[i], d, []byte{0, 1, 2, 0xff, 0xff}, t0, 1)
		}
	}
	peak := 0
	for sent := 0; sent < body; sent += chunk {
		n := min(chunk, body-sent)
		for i := range cs {
			for d := dissect.C2S; d <= dissect.S2C; d++ {
				c.Data(cs[i], d, make([]byte, n), t0, 2)
				peak = max(peak, c.un.Buffered())
			}
		}
	}
	// The message after the long one.
	for i := range cs {
		c.Data(cs[i], dissect.C2S, []byte{0, 1, 2}, t0, 3)
	}
	if peak > maxHeld {
		t.Errorf("framers held %d bytes at their peak; want at most %d", peak, maxHeld)
	}
	if want := conns * 2 * (body + 2); peak >= want {
		t.Errorf("peak %d: the bound never engaged (%d bytes sent)", peak, want)
	}
	capNote := false
	for _, f := range c.Findings() {
		capNote = capNote || strings.Contains(f.Text, "partial messages of all connections held more than 200000 bytes (max_total_buffer)")
	}
	if !capNote {
		t.Errorf("capture findings %v lack the max_total_buffer note", c.Findings())
	}
	dropped := 0
	for _, ci := range c.Connections() {
		for _, f := range ci.Findings {
			if strings.Contains(f.Text, "dropped a partial message") && strings.Contains(f.Text, "past max_total_buffer") {
				dropped++
			}
		}
	}
	if dropped == 0 {
		t.Errorf("no connection has a finding for its dropped partial message")
	}
	// Each connection: the first whole message of each direction, then
	// either the 65,535-byte one (if it was never dropped) or not, and the
	// message after it, decoded in step.
	c.Finish()
	for i, ci := range c.Connections() {
		kept := 0
		for _, f := range ci.Findings {
			if strings.Contains(f.Text, "past max_total_buffer") {
				kept++
			}
		}
		if want := 3 + (2 - kept); ci.Messages != want {
			t.Errorf("connection %d: %d messages with %d dropped; want %d", i, ci.Messages, kept, want)
		}
	}
	if held := c.un.Buffered(); held != 0 {
		t.Errorf("after Finish the framers hold %d bytes; want 0", held)
	}
}
