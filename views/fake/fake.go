package fake

import (
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// Source is a synthetic views.Source.
type Source struct {
	Msgs  []*session.Message // messages 1..len, when Gen is nil
	N     int                // message count when Gen is set
	Gen   func(n int) *session.Message
	Conns []session.ConnInfo
	Table func(c dissect.Conn, asOf int) *session.Tables
	Finds []dissect.Finding
	// Profile is the name of the profile the capture is shown decoded
	// with; "" is the default profile's, "default".
	Profile string
}

func (s *Source) Len() int {
	if s.Gen != nil {
		return s.N
	}
	return len(s.Msgs)
}

func (s *Source) Message(n int) *session.Message {
	if n < 1 || n > s.Len() {
		return nil
	}
	if s.Gen != nil {
		return s.Gen(n)
	}
	return s.Msgs[n-1]
}

func (s *Source) Detail(n int) *session.Message { return s.Message(n) }

// ReadsStore is false: a synthetic source holds its messages in memory.
func (s *Source) ReadsStore() bool { return false }

// Settled reports every message final: a fake source does not change.
func (s *Source) Settled() int { return s.Len() }

func (s *Source) Stamp(n int) (dissect.Conn, time.Time, bool) {
	m := s.Message(n)
	if m == nil {
		return dissect.Conn{}, time.Time{}, false
	}
	return m.Conn, m.Time, true
}

func (s *Source) Connections() []session.ConnInfo { return s.Conns }

func (s *Source) Tables(c dissect.Conn, asOf int) *session.Tables {
	if s.Table == nil {
		return nil
	}
	return s.Table(c, asOf)
}

func (s *Source) Findings() []dissect.Finding { return s.Finds }

// ConnectionsSince copies Conns without findings every time: a test may
// change them between calls.
func (s *Source) ConnectionsSince(dst []session.ConnInfo, since uint64) ([]session.ConnInfo, uint64) {
	dst = dst[:0]
	for _, c := range s.Conns {
		c.Findings = nil
		dst = append(dst, c)
	}
	return dst, since + 1
}

// CaptureWorst is the worst severity of Finds.
func (s *Source) CaptureWorst() (dissect.Severity, bool) {
	var (
		w  dissect.Severity
		ok bool
	)
	for _, f := range s.Finds {
		if !ok || f.Severity > w {
			w, ok = f.Severity, true
		}
	}
	return w, ok
}

// ProfileName is Profile, "default" without one.
func (s *Source) ProfileName() string {
	if s.Profile == "" {
		return "default"
	}
	return s.Profile
}
