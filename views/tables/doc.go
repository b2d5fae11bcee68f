// Package tables is the listener-ID tables pane: the server table, the
// client table with its mapping, the missing lists, unresolved references
// and version warnings of one connection as of the selected message
// (wire.md 4.5). Entries that changed at that message are marked with *.
// Enter on an entry asks the root to filter the messages to that listener.
//
// # Listener filter
//
// A server entry selects the messages naming its server ID; a client entry
// those naming its client ID or, once mapped, its server ID (wire.md 4.3).
//
// # A protocol's own tables
//
// A connection whose protocol keeps tables of its own has no listener
// tables: the pane lists the rows that protocol lays out
// (session.Tables.Proto, a decode.Tables) instead, and Enter on a row that
// names a message goes to it. A ULinkRPC connection's are its `rpc` table
// (outputs.md tables --json): per method the requests, responses, errors,
// pending and latency min/median/max, then pushes, keep-alives with their
// RTT, the status counts and the requests still pending. The pane knows
// no protocol.
package tables
