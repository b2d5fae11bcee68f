package messages

import (
	"fmt"
	"maps"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// TimeFormat is how the time column reads (Wireshark's View → Time Display
// Format): seconds since the first message or the time reference, the time
// of day in UTC or local time, or the seconds since the previous message
// listed or the previous one on the same connection.
type TimeFormat uint8

const (
	SinceFirst TimeFormat = iota // seconds since the first message (or the reference)
	UTC                          // time of day, UTC
	Local                        // time of day, the local zone
	Delta                        // seconds since the previous message listed
	DeltaConn                    // seconds since the previous message of the same connection
	timeFormats
)

var timeFormatNames = [...]string{SinceFirst: "since first", UTC: "UTC", Local: "local", Delta: "delta", DeltaConn: "delta on connection"}

func (f TimeFormat) String() string {
	if int(f) < len(timeFormatNames) {
		return timeFormatNames[f]
	}
	return fmt.Sprintf("TimeFormat(%d)", f)
}

// Next is the format after f, cycling.
func (f TimeFormat) Next() TimeFormat { return (f + 1) % timeFormats }

// timeWidth is the time column's width: the time of day needs 15 cells.
func (f TimeFormat) width() int {
	if f == UTC || f == Local {
		return 15
	}
	return 10
}

// StampFunc is a message's connection and time without decoding it
// (session.Index.Stamp, views.Source.Stamp): what the deltas look back with.
type StampFunc func(n int) (dissect.Conn, time.Time, bool)

// deltaConnBack bounds how far back a delta on the connection looks among
// the rows listed (all connections mixed); past it the row shows no delta.
const deltaConnBack = 10000

// SetTime sets the time format, the reference message (0: none; times
// since first then count from it, Wireshark's Ctrl-T) and how the deltas
// look at other messages.
func (m *Model) SetTime(f TimeFormat, ref int, stamp StampFunc) {
	m.timeFmt, m.ref, m.stamp = f, ref, stamp
	m.refTime = time.Time{}
	if ref > 0 && stamp != nil {
		if _, t, ok := stamp(ref); ok {
			m.refTime = t
		}
	}
}

// TimeFormat returns the time format in force and the reference message.
func (m Model) TimeFormat() (TimeFormat, int) { return m.timeFmt, m.ref }

// timeCell is row i's time column: message n at time t on conn c.
func (m Model) timeCell(i, n int, t time.Time, c dissect.Conn) string {
	w := m.timeFmt.width()
	if n == m.ref && m.ref > 0 {
		return fmt.Sprintf("%*s", w, "*REF*")
	}
	switch m.timeFmt {
	case UTC:
		return t.UTC().Format("15:04:05.000000")
	case Local:
		return t.Local().Format("15:04:05.000000")
	case Delta, DeltaConn:
		if prev, ok := m.previous(i, c); ok {
			return fmt.Sprintf("%*.6f", w, t.Sub(prev).Seconds())
		}
		return fmt.Sprintf("%*.6f", w, 0.0)
	}
	start := m.t0
	if !m.refTime.IsZero() {
		start = m.refTime
	}
	rel := 0.0
	if !start.IsZero() {
		rel = t.Sub(start).Seconds()
	}
	return fmt.Sprintf("%*.6f", w, rel)
}

// previous is the time of the message before row i: the row above for
// Delta, the nearest row above on connection c for DeltaConn.
func (m Model) previous(i int, c dissect.Conn) (time.Time, bool) {
	if m.stamp == nil {
		return time.Time{}, false
	}
	for j := i - 1; j >= 0 && j >= i-deltaConnBack; j-- {
		pc, t, ok := m.stamp(m.number(j))
		if !ok {
			return time.Time{}, false
		}
		if m.timeFmt == Delta || pc == c {
			return t, true
		}
	}
	return time.Time{}, false
}

// ToggleMark marks the selected message, or unmarks it (Wireshark's
// Ctrl-M), and reports whether it is marked now.
func (m *Model) ToggleMark() (int, bool) {
	n := m.Selected()
	if n <= 0 {
		return 0, false
	}
	if m.marks == nil {
		m.marks = map[int]bool{}
	}
	if m.marks[n] {
		delete(m.marks, n)
		return n, false
	}
	m.marks[n] = true
	return n, true
}

// Marked reports whether message n is marked.
func (m Model) Marked(n int) bool { return m.marks[n] }

// Marks is how many messages are marked.
func (m Model) Marks() int { return len(m.marks) }

// NextMark moves the cursor to the next (d > 0) or previous marked row
// listed, and reports whether there was one.
func (m *Model) NextMark(d int) bool {
	for i := m.Cursor() + d; i >= 0 && i < m.Len(); i += d {
		if m.marks[m.number(i)] {
			m.follow, m.want = false, 0
			m.SetCursor(i, m.Len())
			return true
		}
	}
	return false
}

// markCell is what stands between the severity letter and the number: a
// dot on a marked row, a space otherwise (so unmarked rows keep their
// layout).
func (m Model) markCell(n int) string {
	if m.marks[n] {
		return "•"
	}
	return " "
}

// timeTitle is what the title adds about the time column when it is not
// the default.
func (m Model) timeTitle() string {
	s := ""
	if m.timeFmt != SinceFirst {
		s += "  time: " + m.timeFmt.String()
	}
	if m.ref > 0 {
		s += fmt.Sprintf("  ref #%d", m.ref)
	}
	if len(m.marks) > 0 {
		s += "  marked " + dissect.Count(len(m.marks), "msg")
	}
	return s
}

// MarkSet returns a copy of the marked message numbers.
func (m Model) MarkSet() map[int]bool { return maps.Clone(m.marks) }
