package decode

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/usmnscope/usmnscope/netpak"
)

// Dir is the direction of a message on a connection.
type Dir uint8

const (
	C2S Dir = iota // client to server: the server reads EServerMessage
	S2C            // server to client: the client reads EClientMessage
)

var dirNames = [...]string{C2S: "c2s", S2C: "s2c"}

func (d Dir) String() string {
	if int(d) < len(dirNames) {
		return dirNames[d]
	}
	return fmt.Sprintf("Unknown(%d)", uint8(d))
}

// Severity of a finding (outputs.md: note, warn, error).
type Severity uint8

const (
	Note Severity = iota
	Warn
	Error
)

var severityNames = [...]string{Note: "note", Warn: "warn", Error: "error"}

func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return fmt.Sprintf("Unknown(%d)", uint8(s))
}

// Group says what kind of finding it is.
type Group uint8

const (
	Malformed Group = iota // the bits do not parse
	Sequence               // out of order, gaps, resynchronisation
	Undecoded              // bits shown but not decoded
	Protocol               // well-formed but against the protocol (version mismatch, unknown trailer)
	Inference              // a guess usmnscope made (widened enums without a handshake)
)

var groupNames = [...]string{Malformed: "malformed", Sequence: "sequence", Undecoded: "undecoded", Protocol: "protocol", Inference: "inference"}

func (g Group) String() string {
	if int(g) < len(groupNames) {
		return groupNames[g]
	}
	return fmt.Sprintf("Unknown(%d)", uint8(g))
}

// Finding is one piece of expert info about a message or a connection.
type Finding struct {
	Severity Severity
	Group    Group
	Text     string
	Bit      int // message bit the finding points at, or -1
}

// Conn identifies a TCP connection by its two ends. It is comparable, so it
// serves as a map key.
type Conn struct {
	Client netip.AddrPort
	Server netip.AddrPort
}

// String formats the connection as outputs.md's "CLIENT_IP:PORT-SERVER_IP:PORT".
func (c Conn) String() string { return c.Client.String() + "-" + c.Server.String() }

// Enum is the message enum as read: its value, its width and whether it was
// read widened (wire.md 4.2).
type Enum struct {
	Value   uint32
	Bits    int
	Widened bool
}

// Listener describes the USMN listener a message refers to, as known when
// the message was decoded (outputs.md "listener"). Nil pointers are JSON null.
type Listener struct {
	Type     *string
	Version  *uint32
	ClientID *uint32
	ServerID *uint32
	Resolved bool
}

// Message is one decoded SystemSockets message.
type Message struct {
	N     int       // message number in the capture, from 1
	Frame int       // capture frame that completed the message, from 1
	Time  time.Time // capture time of that frame
	Conn  Conn
	Dir   Dir
	Data  []byte // the message bytes, without the 2-byte frame header

	Enum     Enum
	Name     string        // outputs.md "msg"
	Fields   []netpak.Span // in wire order; nil when spans were not asked for
	Mode     string        // NegotiateListenerDetails mode name
	Listener *Listener     // for the two USMN messages

	PayloadBit  int // first bit of a USMN invoke payload
	PayloadBits int // its length, trailing pad bits included
	Summary     string
	Findings    []Finding
}

// Worst returns the highest severity among the message's findings and
// whether there is any.
func (m *Message) Worst() (Severity, bool) {
	var w Severity
	any := false
	for _, f := range m.Findings {
		if !any || f.Severity > w {
			w, any = f.Severity, true
		}
	}
	return w, any
}
