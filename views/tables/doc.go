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
// # ULinkRPC
//
// A ULinkRPC connection has no listener tables: the pane shows its `rpc`
// table (session.Tables.RPC, outputs.md tables --json) instead: per method
// the requests, responses, errors, pending and latency min/median/max,
// then pushes, keep-alives with their RTT, the status counts and the
// requests still pending, on which Enter goes to the message.
package tables
