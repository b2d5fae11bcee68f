// Package rpc is the stateful side of ULinkRPC, usmnscope's second
// protocol: per connection, it feeds what a capture yields (TCP byte chunks,
// WebSocket chunks, KCP datagrams, gaps, the end) through the pure codec of
// package ulinkrpc and keeps numbered records, their pairing and timing, and
// the connection's findings and events (../shared/spec/ulinkrpc.md 2–7).
//
// # Transports
//
// A Session has one Transport. TCP chunks go straight into a per-direction
// ulinkrpc.Stream; WebSocket chunks through a websocket.Decoder first,
// whose control frames and upgrade become connection events; UDP datagrams
// through a kcp.Reassembler per direction (KCP, ulinkrpc.md 2.3), each
// conv's messages into its own Stream. Buffers are the codec's, each
// bounded (Stream, WebSocket, the reassembler's kcp.Config); Config
// bounds the rest.
//
// # Records and pairing
//
// Each frame becomes a Record (outputs.md "ULinkRPC records"): the transform
// layer removed (ulinkrpc.md 3), the envelope decoded with byte spans
// (ulinkrpc.md 4), the payload named and typed from contracts when given
// (ulinkrpc.md 6). With the transform settings unknown each frame is
// classified (ulinkrpc.md 3); the classification is said once per
// connection and class, a connection finding naming the first record and
// counting them, and on a record only where it differs from the
// connection's first frame's (classnote.go). Pairing follows ulinkrpc.md 5 and outputs.md "Pairing":
// a Response pairs with the latest unanswered Request of its request_id in
// the opposite direction, a KeepAlivePong with the Ping of the same ticks,
// else the oldest unanswered Ping; both records carry the partner's number,
// the answer its latency. An answer with nothing to pair is a note and
// counts in no statistics; Requests unanswered at End are pending.
//
// # Hosted sessions
//
// With Config.Yield a host (session.Index) numbers the records: the
// session hands each decoded frame over at once with the Stamp of the
// chunk that completed it (Stamp.Seq, the host's arrival order), reports
// streams holding bytes while they resynchronise, and KCP segments held
// behind a missing sn (Holding, Abandon; wsheld.go, kcpheld.go), and
// names, pairs and tallies each record when the host calls Numbered, in
// the host's number order across both protocols. The host keeps the
// records; the session keeps only the open askers and its Tally, which
// gives the `rpc` table as of any number. The host reaches the rest
// through decode's interfaces, which Hosted implements (host.go): the
// label, the budget, the `rpc` table (View), Recycle and Shed, and the
// compact and slim keeping (compact.go, slim.go).
//
// # Light sessions
//
// Config.Light is what `tables` needs and no more (light.go, issue 15):
// each frame is read only as far as the tables go (ulinkrpc.DecodeBrief),
// into a light record without fields, payload, envelope copy or findings,
// numbered, paired and counted by the same rules, and handed back for
// reuse once the host is done with it (Recycle). The tables, the record
// count and the connection findings equal a full session's (TestLightSame,
// FuzzSession); session.Index hosts light sessions when its Stream hands
// no message out.
//
// # Outputs
//
// AppendJSON writes a record as a `dump --json` line, Line as a `dump` text
// line (through internal/termsafe), Tree its layer tree (transport →
// transform → envelope → payload → the contract, each field with its span)
// that the TUI's detail pane draws and TreeText prints for `dump -V`,
// Session.Tables and AppendTablesJSON the
// `rpc` object of `tables --json`, AppendConnJSON a whole connection entry.
//
// # What the host reads
//
// The host and its readers name no ULinkRPC type (issue 23): a View
// (view.go) is the `rpc` table as decode.Tables, the text `tables` prints
// and the rows of the TUI's tables pane; a Record states the facts beyond
// its Meta that export and stats read (facts.go: decode.Caller, its call's
// names and IDs; decode.ValueWriter, its values as its JSON spells them;
// decode.Framed, its framing on the wire).
package rpc
