package decode

import "fmt"

// Learned says how a table entry was learned (outputs.md "learned").
type Learned uint8

const (
	LearnedDefinition Learned = iota // from an invoke header's definition
	LearnedNegotiate                 // from TellClientListenerId or RequestServerListenerId
	LearnedInferred                  // guessed, e.g. an ID used before its definition was captured
)

var learnedNames = [...]string{LearnedDefinition: "definition", LearnedNegotiate: "negotiate", LearnedInferred: "inferred"}

func (l Learned) String() string {
	if int(l) < len(learnedNames) {
		return learnedNames[l]
	}
	return fmt.Sprintf("Unknown(%d)", uint8(l))
}

// ServerEntry is one row of the server table (wire.md 4.5).
type ServerEntry struct {
	ID          uint32
	Type        string
	Version     uint32
	IDBits      int
	Learned     Learned
	First       int // message number where it was learned
	Invokes     int // S→C invokes
	PayloadBits int
	Changed     bool // created or updated by the message the tables are as of
}

// ClientEntry is one row of the client table (wire.md 4.5).
type ClientEntry struct {
	ID          uint32
	Type        string
	Version     uint32
	ServerID    uint32
	Mapped      bool // ServerID is known (TellClientListenerId)
	Learned     Learned
	First       int
	Invokes     int // C→S invokes, including those addressed by the mapped server ID
	PayloadBits int
	Changed     bool
}

// Ref is an unresolved reference: an invoke naming an ID not (yet) in a
// table (wire.md 4.5).
type Ref struct {
	N   int
	Dir Dir
	ID  uint32
}

// Tables is the listener-ID state of one connection as of one message.
// Lists are sorted by ID.
type Tables struct {
	Conn            Conn
	AsOf            int // message number the state is as of
	Server          []ServerEntry
	Client          []ClientEntry
	MissingOnServer []uint32 // client IDs the server said it lacks
	MissingOnClient []uint32 // server IDs the client said it lacks
	Unresolved      []Ref
	Warnings        []Finding // version mismatches and other table-level findings
}
