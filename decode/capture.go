package decode

import (
	"sync"
	"time"
)

// ConnInfo summarises one connection for lists: who the peers are, what
// each side runs and how much crossed (the TUI's connections pane, tables
// JSON "usmn" and "messages").
type ConnInfo struct {
	Conn       Conn
	Rule       string // which rule decided the server side (from capture)
	First      time.Time
	Last       time.Time
	Messages   int
	Bytes      [2]int64 // indexed by Dir
	USMNClient bool     // client's marker seen
	USMNServer bool     // server's marker seen
	Widened    [2]bool  // per Dir
	WidenedAt  [2]int   // message number from which the direction is widened, 0 if never
	Inferred   bool     // widening was inferred, not seen in a handshake
	Worst      Severity
	HasFinding bool
	Findings   []Finding // connection-level findings (gaps, resync, inference, UDP notes)
}

// Capture holds the decoded messages and listener tables of one capture. It
// is fed by one goroutine (the capture → decode wiring) and may be read by
// others at the same time (the TUI), so every method locks.
//
// Messages are numbered from 1 in the order in which their last byte arrived
// (outputs.md "n").
type Capture struct {
	mu      sync.RWMutex
	profile *Profile
}

// NewCapture returns an empty Capture decoding with profile p.
func NewCapture(p *Profile) *Capture {
	if p == nil {
		p = Default()
	}
	return &Capture{profile: p}
}

// Profile returns the profile the capture is decoded with.
func (c *Capture) Profile() *Profile { return c.profile }

// Open announces a connection; rule says how its server side was chosen.
func (c *Capture) Open(conn Conn, rule string, t time.Time, frame int) {}

// Data feeds reassembled bytes of one direction of a connection.
func (c *Capture) Data(conn Conn, dir Dir, data []byte, t time.Time, frame int) {}

// Gap reports lost bytes in one direction; framing resynchronises after it.
func (c *Capture) Gap(conn Conn, dir Dir, lost int, t time.Time, frame int) {}

// Close reports the end of a connection (FIN or RST).
func (c *Capture) Close(conn Conn, t time.Time, frame int) {}

// Note attaches a finding to a connection, or to the capture when conn is
// the zero Conn.
func (c *Capture) Note(conn Conn, f Finding) {}

// Finish ends the input: pending inferences settle and partial messages
// become findings.
func (c *Capture) Finish() {}

// Len returns the number of messages decoded so far.
func (c *Capture) Len() int { return 0 }

// Settled returns how many messages (1..Settled) are final: later input
// cannot change how they decode.
func (c *Capture) Settled() int { return 0 }

// Message returns message n (from 1) without its field spans, or nil.
func (c *Capture) Message(n int) *Message { return nil }

// Detail returns message n decoded again with its field spans, or nil.
func (c *Capture) Detail(n int) *Message { return nil }

// Connections returns the connections in the order they were first seen.
func (c *Capture) Connections() []ConnInfo { return nil }

// Tables returns the listener-ID tables of conn as of message asOf (the
// state after that message of the capture was applied); asOf ≤ 0 means the
// end of what was read.
func (c *Capture) Tables(conn Conn, asOf int) *Tables { return nil }

// Findings returns the capture-wide findings.
func (c *Capture) Findings() []Finding { return nil }
