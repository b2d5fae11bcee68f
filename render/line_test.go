package render

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// oldLine is Line as fmt built it before AppendLine (issue 28): the
// reference the appends must equal byte for byte.
func oldLine(f Format, m *session.Message) string {
	s := fmt.Sprintf("%5d %10s %s %s %s", m.N, RelTime(m.Time, f.Start), m.Conn, m.Dir, MessageName(m))
	if sum := Summary(m); sum != "" {
		s += " " + sum
	}
	if m.HasLatency {
		s += " " + fmt.Sprintf("%.2f ms", float64(m.Latency)/float64(time.Millisecond))
	}
	if w, ok := m.Worst(); ok {
		var first dissect.Finding
		for _, fd := range m.Findings {
			if fd.Severity == w {
				first = fd
				break
			}
		}
		s += fmt.Sprintf(" [%s: %s", w, first.Text)
		if more := len(m.Findings) - 1; more > 0 {
			s += fmt.Sprintf(" (+%d more)", more)
		}
		s += "]"
	}
	return s
}

func TestLineAppends(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	conn := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:50123"), Server: netip.MustParseAddrPort("10.0.0.1:27015")}
	find := []dissect.Finding{{Severity: dissect.Note, Text: "a note"}, {Severity: dissect.Error, Text: "first error"}, {Severity: dissect.Error, Text: "second"}}
	for _, tt := range []struct {
		f    Format
		m    session.Message
		want string
	}{
		{Format{Start: t0}, session.Message{N: 7, Time: t0.Add(1500 * time.Microsecond), Conn: conn, Dir: dissect.C2S, Kind: unturned.KindServerPingRequest, Data: []byte{1, 2}},
			"    7   0.001500 10.0.0.2:50123-10.0.0.1:27015 c2s PingRequest 2 bytes"},
		{Format{Start: t0}, session.Message{N: 1234567, Time: t0.Add(-time.Second), Conn: conn, Dir: dissect.S2C, Kind: unturned.KindServerPingResponse, Data: []byte{1},
			HasLatency: true, Latency: 2345 * time.Microsecond, Enum: unturned.Enum{Widened: true}, Findings: find},
			"1234567  -1.000000 10.0.0.2:50123-10.0.0.1:27015 s2c PingResponse⁺ 1 byte 2.35 ms [error: first error (+2 more)]"},
		{Format{}, session.Message{N: 3, Time: t0, Conn: conn, Summary: "PingRequest odd\x1b]0;x", Kind: unturned.KindServerPingRequest},
			"    3          - 10.0.0.2:50123-10.0.0.1:27015 c2s PingRequest odd\\x1b]0;x"},
		{Format{Start: t0}, session.Message{N: 12, Time: t0.Add(123456 * time.Second), Conn: conn, Kind: unturned.KindShutdown, Data: []byte{}},
			"   12 123456.000000 10.0.0.2:50123-10.0.0.1:27015 c2s Shutdown 0 bytes"},
	} {
		m := tt.m
		got := tt.f.Line(&m)
		if got != tt.want {
			t.Errorf("Line(%d) = %q; want %q", m.N, got, tt.want)
		}
		if old := oldLine(tt.f, &m); got != old {
			t.Errorf("Line(%d) = %q; the fmt-built line was %q", m.N, got, old)
		}
	}
}
