package session

import (
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
)

// Tables is the listener-ID state of one connection as of one message.
// Lists are sorted by ID.
type Tables struct {
	Conn            dissect.Conn
	AsOf            int // message number the state is as of
	Messages        int // messages of the connection up to AsOf
	Server          []ServerEntry
	Client          []ClientEntry
	MissingOnServer []uint32 // client IDs the server said it lacks
	MissingOnClient []uint32 // server IDs the client said it lacks
	Unresolved      []Ref
	Warnings        []dissect.Finding // version mismatches and other table-level findings

	// ProtoTable is a hosted connection's protocol tables as of AsOf
	// (decode.Tallied: ULinkRPC's, the `rpc` object of tables --json);
	// the listener keys are then empty.
	ProtoTable decode.Tables
	// With hostedCut, hostedFindings is how many of the hosted connection's
	// findings were said before the connection's first message after AsOf
	// (a Stream's Cut: Index.keepAsOf); without, all were.
	hostedCut      bool
	hostedFindings int

	// Ping is, per direction, the PingRequests sent in it up to AsOf
	// and the PingResponses that answered them (outputs.md "ping").
	Ping [2]PingStats
}
