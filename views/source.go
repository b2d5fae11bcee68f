package views

import (
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// Source is what the views read: the methods of *session.Index they use.
// Tests pass synthetic sources; the program passes the capture being fed.
type Source interface {
	Len() int
	Message(n int) *session.Message
	// Stamp is message n's connection and time without decoding it.
	Stamp(n int) (dissect.Conn, time.Time, bool)
	Detail(n int) *session.Message
	Connections() []session.ConnInfo
	Tables(c dissect.Conn, asOf int) *session.Tables
	Findings() []dissect.Finding
	Profile() *unturned.Profile
}

var _ Source = (*session.Index)(nil)

// ParseFunc compiles a display-filter expression in the CLI's filter
// language. On error it returns the byte offset in expr where the error is,
// so the filter bar can point at it.
type ParseFunc func(expr string) (match func(*session.Message) bool, errPos int, err error)
