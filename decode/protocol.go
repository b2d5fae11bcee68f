package decode

import (
	"slices"
	"sync"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// Stamp is where in the capture an event came from: the pcap frame number
// (from 1), the capture time of the packet, and the host's arrival
// sequence of the event (a record completed by an event keeps its Seq).
type Stamp struct {
	Frame int
	Time  time.Time
	Seq   uint64
	// File is the capture file offset of the event's bytes when InFile:
	// they are one run of the file (capture.Event.Offset), which a host
	// that reads the file again may point at instead of keeping them.
	File   int64
	InFile bool
	// Masked says the bytes at File lie there masked (a client's
	// WebSocket data, RFC 6455 5.3): XORed with the 4 bytes 8 before
	// File, the first of them with the first byte of the key.
	Masked bool
}

// FramedMsg is a message a protocol the host numbers natively (Unturned's
// this round: unturned/track) framed, as it hands it to the host: one
// pointer a message instead of its parts. Msg is valid during the call;
// End is the stream offset after its last byte; Start says it begins its
// direction's stream at a message boundary; At is the stamp of the chunk
// that held its last byte (File and InFile when the message lies whole in
// that chunk's run of the capture file).
type FramedMsg struct {
	Dir   dissect.Dir
	Start bool
	Msg   []byte
	End   int64
	At    Stamp
}

// Verdict is a content detector's answer about the bytes seen so far.
type Verdict uint8

const (
	Undecided Verdict = iota // more bytes needed
	Matches
	Differs
)

// Protocol is a protocol as a value. Name is what --decode-as, the records'
// `proto` and the notes call it.
type Protocol struct {
	Name string
	// Ports are the TCP server ports decoded as this protocol by default;
	// DatagramPorts the UDP ports whose datagrams it takes.
	Ports         []uint16
	DatagramPorts []uint16
	// Need is the most client bytes Detect may ask for; Detect (nil: none)
	// says whether a connection's first client bytes open the protocol.
	Need   int
	Detect func(c2s []byte) Verdict
	// Names are the typed names its records carry (Meta.Name): the filter's
	// msg==NAME accepts them and completes them.
	Names []string
	// New makes the state of one connection found to be this protocol;
	// nil: the host decodes the protocol natively (Unturned this round).
	New func(Config) Conn
	// Export is its part in writing a selection back to a capture file
	// (export.go); nil: its connections cannot be written back.
	Export *Export
}

// Claims reports whether p decodes TCP connections to port by default.
func (p *Protocol) Claims(port uint16) bool { return slices.Contains(p.Ports, port) }

// Config is what the host tells a new connection.
type Config struct {
	Conn dissect.Conn
	// First are the client's first bytes as the router saw them (at most
	// the protocols' Need), Server the server's when the start was not
	// captured: what a protocol tells its transport from.
	First, Server []byte
	// MidStream: the connection's start was not captured.
	MidStream bool
	// Datagram: a UDP flow, fed by Datagram only.
	Datagram bool
	// Light: the host hands no record out but the tables (`tables`).
	Light bool
	// Lazy: the host reads a record's fields only once it has numbered
	// it, and mostly only to write its JSON (a stream for `dump --json`,
	// issue 28): a record may leave them to be decoded then, from its
	// bytes (Briefer).
	Lazy bool
	// Yield hands each decoded record to the host at once, unnumbered,
	// with the stamp of the event that completed it; the host numbers it
	// (Conn.Numbered) in arrival order.
	Yield func(r Record, at Stamp)
}

// ConnFinding is a connection-level finding: N is the message that caused
// it, 0 for none. Info marks one that says how the connection was read: it
// is listed but is not the connection's worst severity.
type ConnFinding struct {
	dissect.Finding
	Info  bool
	N     int
	Dir   dissect.Dir
	Frame int
	Time  time.Time
}

// Feed is the half of a Conn the host feeds, in capture order and never
// concurrently: its bytes and gaps per direction, its datagrams, its end,
// and whether it holds bytes that may still end a record. A protocol the
// host still numbers natively (Unturned's this round: unturned/track) is
// fed through it too.
type Feed interface {
	Bytes(d dissect.Dir, b []byte, at Stamp)
	Gap(d dissect.Dir, lost int, at Stamp)
	Datagram(d dissect.Dir, b []byte, at Stamp)
	// End ends the connection (idempotent).
	End(at Stamp)
	// Holding reports whether the connection holds bytes of a record it
	// cannot hand out yet, and the earliest Seq among them; Abandon gives
	// up waiting for them.
	Holding() (seq uint64, ok bool)
	Abandon()
}

// Conn is a protocol's per-connection state. The host feeds it in capture
// order and never concurrently.
type Conn interface {
	Feed
	// Finish runs once every record is numbered (unanswered askers).
	Finish()
	// Findings are the connection findings so far (appended to only).
	Findings() []ConnFinding
	// Numbered tells the connection the number the host gave r (pairing
	// runs here, so that an asker is always numbered first); Waiting says
	// r is an asker whose answer may still come; Len counts the records
	// numbered.
	Numbered(r Record, n int)
	Waiting(r Record) bool
	Len() int
	// AppendTablesJSON appends the connection's protocol part of its
	// `tables --json` entry ("key":value pairs after the neutral keys).
	AppendTablesJSON(dst []byte) []byte
}

var (
	regMu    sync.Mutex
	registry []*Protocol
)

// Register adds p to the protocols every decode uses, replacing one of the
// same name; it returns a function that takes it out again (tests).
func Register(p *Protocol) (unregister func()) {
	regMu.Lock()
	defer regMu.Unlock()
	registry = slices.DeleteFunc(registry, func(q *Protocol) bool { return q.Name == p.Name })
	registry = append(registry, p)
	return func() {
		regMu.Lock()
		defer regMu.Unlock()
		registry = slices.DeleteFunc(registry, func(q *Protocol) bool { return q == p })
	}
}

// Protocols are the registered protocols in the order they registered.
func Protocols() []*Protocol {
	regMu.Lock()
	defer regMu.Unlock()
	return slices.Clone(registry)
}

// Lookup returns the registered protocol called name.
func Lookup(name string) *Protocol {
	for _, p := range Protocols() {
		if p.Name == name {
			return p
		}
	}
	return nil
}
