package views

import (
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// Source is what the views read: the methods of *session.Index they use.
// Tests pass synthetic sources; the program passes the capture being fed.
//
// Len, Stamp, Connections, ConnectionsSince, Findings, CaptureWorst and
// Profile read memory only, so
// Update and View call them. Message, Detail and Tables decode a message
// again from its bytes, which may be read back from the capture file:
// when ReadsStore says so, the views call them only inside commands and
// take what they read as messages (IO reaches the UI only as messages).
type Source interface {
	Len() int
	// Stamp is message n's connection and time without decoding it.
	Stamp(n int) (dissect.Conn, time.Time, bool)
	Connections() []session.ConnInfo
	Findings() []dissect.Finding
	// ConnectionsSince updates summaries without findings in place
	// (session.Index.ConnectionsSince): what the views poll, so that a
	// render neither copies findings nor takes the capture's lock.
	ConnectionsSince(dst []session.ConnInfo, since uint64) ([]session.ConnInfo, uint64)
	// CaptureWorst is the worst severity of the capture-wide findings.
	CaptureWorst() (dissect.Severity, bool)
	// ProfileName is the name of the profile the capture is decoded with.
	ProfileName() string
	// Settled is how many messages (1..Settled) are final (session.Index).
	Settled() int

	// ReadsStore reports whether the three below may read a file.
	ReadsStore() bool
	Message(n int) *session.Message
	Detail(n int) *session.Message
	Tables(c dissect.Conn, asOf int) *session.Tables
}

var _ Source = (*session.Index)(nil)

// ParseFunc compiles a display-filter expression in the CLI's filter
// language. On error it returns the byte offset in expr where the error is,
// so the filter bar can point at it.
type ParseFunc func(expr string) (match func(*session.Message) bool, errPos int, err error)

// HeadFunc gives the test of a message's index record alone (Index.Head)
// that a ParseFunc's match of expr amounts to, or nil when expr reads more
// than the record holds (a field of the decoded message).
type HeadFunc func(expr string) func(session.Head) bool
