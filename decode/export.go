package decode

import "github.com/usmnscope/usmnscope/dissect"

// A protocol's part in writing a selection of messages back to a capture
// file (the host's Export, docs/cli.md "Writing a selection"): how its
// connections are framed on the wire again, and which of their messages
// the selection's decoding needs besides those asked for. The host writes
// the partner of every paired message (Meta.Pair) whatever the protocol,
// and each connection's transport handshake; the rest it asks of the
// protocol of the connection (Protocol.Export), so that it names none.

// Export is what a protocol tells the host's Export. A protocol without
// one (Protocol.Export nil) cannot be written back: Export fails on a
// selection that holds one of its connections.
type Export struct {
	// Framing is the framing of a connection whose first message written
	// is r (nil: a message of the host's own, a natively hosted protocol's).
	Framing func(r Record) Framing
	// Mark is a message's detection mark, by its typed name (a bit; 0:
	// none): a connection whose messages' marks do not add up to Marks is
	// decoded by inference from all of its messages, so it is written
	// whole. Marks 0 (or Mark nil): never.
	Mark  func(name string) int
	Marks int
	// Context reports whether a message, not asked for and before the
	// last message written on its connection, is written for their
	// decoding, by its typed name and, when that is not enough, its fields
	// (fields decodes it whole; nil for none).
	Context func(name string, fields func() []dissect.Field) bool
	// FirstEach: the first message of each direction of a connection
	// written, not asked for, is written for their decoding (ULinkRPC: it
	// carries the transform layer's classification note).
	FirstEach bool
}

// Framing is how one connection is written back: one of Place, for a
// stream, or Datagrams, for a UDP flow; neither: nothing of it is written.
type Framing struct {
	// Place finds each message of one direction ms in its stream s and
	// returns the ranges of the kept ones (in any order; the host joins
	// them); captured (nil: every byte was) says which bytes the capture
	// holds, placed (when not nil) takes where each message lies.
	Place func(s []byte, captured func(from, to int64) bool, ms []Placed, kept map[int]bool, placed map[int]Range) ([]Range, error)
	// Across: a framing that resynchronises after a capture gap keeps the
	// gap and what the resynchronisation chains from; one that does not
	// is placed once, from the whole stream.
	Across bool
	// Datagrams, for a UDP flow, puts the bytes to write of each datagram
	// that carries kept messages into out by frame; byDir are the flow's
	// messages of each direction (client to server first).
	Datagrams func(dgs []Datagram, byDir [2][]Placed, kept map[int]bool, out map[int][]byte) error
}

// Placed is one message a Framing places: its number, and its record, or
// for a message of the host's own (Rec nil) its bytes without their frame
// header.
type Placed struct {
	N    int
	Rec  Record
	Data []byte
}

// Range is a run of a stream's bytes, From to To (exclusive).
type Range struct{ From, To int64 }

// Datagram is one captured datagram of a UDP flow written back: its frame
// number, its direction and its payload.
type Datagram struct {
	Frame      int
	FromServer bool
	Payload    []byte
}
