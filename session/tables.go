package session

import (
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned/listeners"
	"github.com/usmnscope/usmnscope/unturned/pair"
)

// The rows of the listener-ID tables are unturned/listeners' (wire.md
// 4.5), named here for the readers of Tables.
type (
	// Learned says how a table entry was learned (outputs.md "learned").
	Learned = listeners.Learned
	// ServerEntry is one row of the server table.
	ServerEntry = listeners.ServerEntry
	// ClientEntry is one row of the client table.
	ClientEntry = listeners.ClientEntry
	// Ref is an unresolved reference: an invoke naming an ID not (yet) in
	// a table.
	Ref = listeners.Ref
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
	Ping [2]pair.PingStats
}

// tablesFrom is the Tables of conn as of message asOf from the listener
// tables' snapshot.
func tablesFrom(st *listeners.State, conn dissect.Conn, asOf int) *Tables {
	snap := st.Snapshot(asOf)
	return &Tables{
		Conn:            conn,
		AsOf:            asOf,
		Server:          snap.Server,
		Client:          snap.Client,
		MissingOnServer: snap.MissingOnServer,
		MissingOnClient: snap.MissingOnClient,
		Unresolved:      snap.Unresolved,
		Warnings:        snap.Warnings,
	}
}
