package messages

import (
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// TestTimeCell: the time column in each format (issue 30). Messages 1..4
// at 0, 100, 250 and 600 ms after t0 on connections a, b, a, b.
func TestTimeCell(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	a := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:1"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	b := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.3:1"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	at := []time.Duration{0, 100 * time.Millisecond, 250 * time.Millisecond, 600 * time.Millisecond}
	conns := []dissect.Conn{a, b, a, b}
	stamp := func(n int) (dissect.Conn, time.Time, bool) {
		if n < 1 || n > 4 {
			return dissect.Conn{}, time.Time{}, false
		}
		return conns[n-1], t0.Add(at[n-1]), true
	}
	m := New(nil, All(4))
	m.SetStart(t0)
	for _, tt := range []struct {
		f    TimeFormat
		ref  int
		n    int
		want string
	}{
		{SinceFirst, 0, 3, "  0.250000"},
		{SinceFirst, 2, 3, "  0.150000"},
		{SinceFirst, 2, 1, " -0.100000"},
		{SinceFirst, 2, 2, "     *REF*"},
		{UTC, 0, 4, "10:00:00.600000"},
		{Local, 0, 4, t0.Add(at[3]).Local().Format("15:04:05.000000")},
		{Delta, 0, 1, "  0.000000"},
		{Delta, 0, 4, "  0.350000"},
		{DeltaConn, 0, 3, "  0.250000"},
		{DeltaConn, 0, 4, "  0.500000"},
		{DeltaConn, 0, 2, "  0.000000"},
	} {
		m.SetTime(tt.f, tt.ref, stamp)
		c, tm, _ := stamp(tt.n)
		if got := m.timeCell(tt.n-1, tt.n, tm, c); got != tt.want {
			t.Errorf("timeCell(%v, ref %d, message %d) = %q; want %q", tt.f, tt.ref, tt.n, got, tt.want)
		}
	}
	if f := DeltaConn.Next(); f != SinceFirst {
		t.Errorf("DeltaConn.Next() = %v; want %v (the cycle closes)", f, SinceFirst)
	}
}

// TestMarks: m toggles, ] and [ move between marked rows listed.
func TestMarks(t *testing.T) {
	m := New(nil, All(6))
	m.SetSize(80, 10)
	m.SetCursor(1, 6)
	if n, on := m.ToggleMark(); n != 2 || !on {
		t.Fatalf("ToggleMark on message 2 = %d, %v; want 2, true", n, on)
	}
	m.SetCursor(4, 6)
	m.ToggleMark()
	m.SetCursor(0, 6)
	if !m.NextMark(1) || m.Selected() != 2 {
		t.Errorf("] from 1: at %d; want 2", m.Selected())
	}
	if !m.NextMark(1) || m.Selected() != 5 {
		t.Errorf("] from 2: at %d; want 5", m.Selected())
	}
	if m.NextMark(1) {
		t.Errorf("] from the last mark moved to %d; want no move", m.Selected())
	}
	if !m.NextMark(-1) || m.Selected() != 2 {
		t.Errorf("[ from 5: at %d; want 2", m.Selected())
	}
	m.SetCursor(1, 6)
	if n, on := m.ToggleMark(); n != 2 || on || m.Marked(2) || m.Marks() != 1 {
		t.Errorf("ToggleMark again on 2 = %d, %v (marks %d); want it unmarked", n, on, m.Marks())
	}
}
