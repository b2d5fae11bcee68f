package infer

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// Decoded is a capture decoded under one profile, as the search reads it.
// The host's index is what holds it (internal/pipeline adapts
// session.Index, unturned/feed's Decoded); the search sees it only through this
// interface so that the inference stays on the protocol's side of the
// import graph and names no host type (issue 23).
type Decoded interface {
	// Len is the number of messages, numbered from 1.
	Len() int
	// Head is what the index record of message n says without decoding
	// it; false when there is no message n.
	Head(n int) (Head, bool)
	// Message is message n decoded; false when it cannot be had (its
	// bytes are no longer held).
	Message(n int) (Message, bool)
	// Findings are the connection-level findings of the Unturned
	// connections (not of another protocol's).
	Findings() []dissect.Finding
}

// Head is a message as its index record gives it: enough to skip it or to
// tally it without reading its bytes.
type Head struct {
	N    int
	Conn dissect.Conn
	Dir  dissect.Dir
	Kind unturned.Kind
	// Flagged: the message's worst finding is a warning or an error.
	Flagged bool
	// Other: another protocol's message (ULinkRPC, whose Kind is
	// Unknown), which says nothing of the Unturned profile.
	Other bool
}

// Message is a decoded message: its Head with its bytes as framed and the
// findings its decoding gave.
type Message struct {
	Head
	Data     []byte
	Findings []dissect.Finding
	// Unresolved: a USMN message whose listener reference no definition
	// resolved.
	Unresolved bool
}
