package session

import (
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
)

// Message is one decoded SystemSockets message.
type Message struct {
	N     int       // message number in the capture, from 1
	Frame int       // capture frame that completed the message, from 1
	Time  time.Time // capture time of that frame
	Conn  dissect.Conn
	Dir   dissect.Dir
	Data  []byte // the message bytes, without the 2-byte frame header

	Enum     unturned.Enum
	Name     string             // outputs.md "msg"
	Fields   []netpak.Span      // in wire order; nil when spans were not asked for
	Mode     string             // NegotiateListenerDetails mode name
	Listener *unturned.Listener // for the two USMN messages

	PayloadBit  int // first bit of a USMN invoke payload
	PayloadBits int // its length, trailing pad bits included
	Summary     string
	Findings    []dissect.Finding
}

// Worst returns the highest severity among the message's findings and
// whether there is any.
func (m *Message) Worst() (dissect.Severity, bool) {
	var w dissect.Severity
	any := false
	for _, f := range m.Findings {
		if !any || f.Severity > w {
			w, any = f.Severity, true
		}
	}
	return w, any
}
