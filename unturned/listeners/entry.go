package listeners

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// Learned says how a table entry was learned (outputs.md "learned").
type Learned uint8

const (
	LearnedDefinition Learned = iota // from an invoke header's definition
	LearnedNegotiate                 // from TellClientListenerId or RequestServerListenerId
	LearnedInferred                  // guessed, e.g. an ID used before its definition was captured
)

var learnedNames = [...]string{LearnedDefinition: "definition", LearnedNegotiate: "negotiate", LearnedInferred: "inferred"}

func (l Learned) String() string { return enum.Name(learnedNames[:], l) }

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

	touched int // last message that created, updated or counted it
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

	touched int
}

// Ref is an unresolved reference: an invoke naming an ID not (yet) in a
// table (wire.md 4.5).
type Ref struct {
	N      int
	Dir    dissect.Dir
	ID     uint32
	Client bool // ID is a Clientside_Listener_ID (C→S with Has_Client_ID), else a server ID
}
