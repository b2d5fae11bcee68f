package session

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// TestOrderMinimal is issue 13's minimal case: no SYN, client
// 11.0.0.1:1024 ↔ server 10.0.0.1:27016; frame 1 c2s `0f a0 11 22 33`,
// frame 2 s2c `01 02 03`, then 30 pairs (c2s `00 01 04`, s2c `00 01 03`).
// Both directions resynchronise only at the end of the stream, yet the
// messages are numbered by the frame that completed them: alternately.
func TestOrderMinimal(t *testing.T) {
	conn := dissect.Conn{Client: netip.MustParseAddrPort("11.0.0.1:1024"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(frame int) time.Time { return t0.Add(time.Duration(frame) * time.Millisecond) }
	for _, closeIt := range []bool{false, true} {
		c := NewIndex(nil)
		c.Open(conn, RulePort, at(1), 1)
		c.Data(conn, dissect.C2S, []byte{0x0f, 0xa0, 0x11, 0x22, 0x33}, at(1), 1)
		c.Data(conn, dissect.S2C, []byte{0x01, 0x02, 0x03}, at(2), 2)
		frame := 3
		for i := 0; i < 30; i++ {
			c.Data(conn, dissect.C2S, []byte{0x00, 0x01, 0x04}, at(frame), frame)
			c.Data(conn, dissect.S2C, []byte{0x00, 0x01, 0x03}, at(frame+1), frame+1)
			frame += 2
		}
		if closeIt {
			c.Close(conn, at(frame), frame)
		}
		c.Finish()
		if c.Len() != 60 {
			t.Fatalf("close %v: Len() = %d; want 60", closeIt, c.Len())
		}
		for n := 1; n <= 60; n++ {
			m := c.Message(n)
			wantDir, wantFrame := dissect.C2S, n+2
			if n%2 == 0 {
				wantDir = dissect.S2C
			}
			if m.Dir != wantDir || m.Frame != wantFrame || !m.Time.Equal(at(wantFrame)) {
				t.Fatalf("close %v: message %d = %v frame %d at %v; want %v frame %d", closeIt, n, m.Dir, m.Frame, m.Time, wantDir, wantFrame)
			}
		}
	}
}

// TestOrderQuietBlocker: a direction that trickles a few bytes mid-message
// and then stays silent holds the other connections' messages only up to
// the queue's bound, and the numbering still follows arrival.
func TestOrderQuietBlocker(t *testing.T) {
	conn := dissect.Conn{Client: netip.MustParseAddrPort("11.0.0.1:1024"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	other := dissect.Conn{Client: netip.MustParseAddrPort("11.0.0.2:1025"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewIndex(nil)
	c.Open(conn, RulePort, t0, 1)
	c.Open(other, RuleSYN, t0, 1)
	// The quiet side: 3 bytes of a message tail, then nothing.
	c.Data(conn, dissect.S2C, []byte{0x10, 0x00, 0x00}, t0, 1)
	frame := 2
	for i := 0; i < maxPending+100; i++ {
		c.Data(other, dissect.C2S, []byte{0x00, 0x01, 0x04}, t0.Add(time.Duration(frame)), frame)
		frame++
	}
	if c.Len() < 100 {
		t.Fatalf("Len() = %d with %d messages queued behind a silent direction; want the queue bounded", c.Len(), len(c.pending))
	}
	c.Finish()
	prev := 0
	for n := 1; n <= c.Len(); n++ {
		m := c.Message(n)
		if m.Frame < prev {
			t.Fatalf("message %d frame %d after frame %d", n, m.Frame, prev)
		}
		prev = m.Frame
	}
}

// TestOrderIdle: Idle numbers every message that arrived, even while a
// direction still waits to resynchronise, and later input keeps the order.
func TestOrderIdle(t *testing.T) {
	conn := dissect.Conn{Client: netip.MustParseAddrPort("11.0.0.1:1024"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewIndex(nil)
	c.Open(conn, RulePort, t0, 1)
	c.Data(conn, dissect.S2C, []byte{0x0f, 0xa0, 0x11}, t0, 1) // waits for 4000 bytes
	for f := 2; f <= 6; f++ {
		c.Data(conn, dissect.C2S, []byte{0x00, 0x01, 0x04}, t0.Add(time.Duration(f)), f)
	}
	if c.Len() != 0 {
		t.Fatalf("Len() = %d before Idle; want 0 (held behind the s2c bytes)", c.Len())
	}
	c.Idle()
	if c.Len() != 5 {
		t.Fatalf("Len() = %d after Idle; want 5", c.Len())
	}
	c.Data(conn, dissect.S2C, []byte{0x00, 0x01, 0x03, 0x00, 0x01, 0x03, 0x00, 0x01, 0x03}, t0.Add(7), 7)
	c.Finish()
	prev := 0
	for n := 1; n <= c.Len(); n++ {
		if m := c.Message(n); m.Frame < prev {
			t.Fatalf("message %d frame %d after frame %d", n, m.Frame, prev)
		} else {
			prev = m.Frame
		}
	}
	if c.Len() != 8 {
		t.Errorf("Len() = %d; want 8", c.Len())
	}
}
