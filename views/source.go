package views

import (
	"time"

	"github.com/usmnscope/usmnscope/decode"
)

// Source is what the views read: the methods of *decode.Capture they use.
// Tests pass synthetic sources; the program passes the capture being fed.
type Source interface {
	Len() int
	Message(n int) *decode.Message
	// Stamp is message n's connection and time without decoding it.
	Stamp(n int) (decode.Conn, time.Time, bool)
	Detail(n int) *decode.Message
	Connections() []decode.ConnInfo
	Tables(c decode.Conn, asOf int) *decode.Tables
	Findings() []decode.Finding
	Profile() *decode.Profile
}

var _ Source = (*decode.Capture)(nil)

// ParseFunc compiles a display-filter expression in the CLI's filter
// language. On error it returns the byte offset in expr where the error is,
// so the filter bar can point at it.
type ParseFunc func(expr string) (match func(*decode.Message) bool, errPos int, err error)
