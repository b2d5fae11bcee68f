// Package session holds the state usmnscope keeps per connection of a
// capture: the index of every message (where its bytes are, when it came,
// the State it was decoded in), widening inference for connections joined
// mid-stream, the listener-ID tables as of any message, and the JSON
// records of outputs.md. It is fed capture events by internal/pipeline and
// read by the CLI and the TUI; it does no IO of its own (the Store is the
// caller's).
//
// # Rooms
//
// index.go is the connection event API (Open, DataAt, Gap, Close, Note,
// Finish) and the connection list; store.go the compact index records, the
// arena and the Store; connection.go what the host keeps of a connection,
// and nativeConn, the state of one whose messages it numbers and keeps as
// its own records (Unturned's: unturned/track frames it, holds its
// messages while its widening and Serverside_ID_Bit_Count are inferred,
// wire.md 4.2 and 4.6, and keeps its listener-ID tables and pairing;
// unturned.go is the host's side of it: a message's decoding, listener and
// pair written into its record, and the tables as of a message, wire.md
// 4.5, replayed from the records); listeners.go the listener type names
// the records point at; order.go numbering by arrival while a
// connection's protocol holds bytes (outputs.md "Ordering"); hosted.go
// the connections of the protocols the index hosts through decode's
// interfaces, ULinkRPC's among them (ulinkrpc.md, issue 15: their
// records numbered with the Unturned messages, Message.Rec),
// hostedstore.go where they are kept (a full index's map, a Stream's ring),
// and hostedslim.go how a full index keeps their records small; neutral.go what
// render and the views read of a connection's protocol part as decode's
// values (Tables.Proto, ConnInfo.ProtoTables: issue 23); pairs.go where
// the pairs of pings and listener-ID requests with their answers lie in
// the records (outputs.md "Pairing"; the pairing itself and the ping
// statistics are unturned/pair's); message.go the rebuild of a Message
// from its record, with its payload decoded by unturned/payload; tables.go
// the Tables value, whose listener-ID state machine and ID-indexed tables
// are unturned/listeners'; json*.go the outputs.md records; stream.go and
// stream_json.go the streaming mode; quiet.go what a pause of the input
// shows (Quiet, issue 24).
//
// # Tables
//
// wire.md section 4.5: Index keeps for each connection the server table,
// the client table with its client→server mapping, the missing listeners,
// per-listener invoke and payload counts and the queue of unresolved
// references, replayed in order when an ID gets defined. Tables(conn, n)
// gives that state as of message n: the nearest checkpoint, with the USMN
// messages after it decoded again and applied.
//
// # Streaming
//
// SetStream (stream.go, issue 18) makes an Index a streaming decoder for
// the outputs that need no history (dump, dump --json, tables, tables
// --at N): each message is handed to Stream.Settled once final, in order,
// from its one decoding, and then forgotten; no per-message record,
// message list, checkpoint or listener info outlives it, and no lock is
// taken. Memory is bounded by connections and buffers. With payload
// schemas a reference waiting for its listener ID is held in the stream
// until the ID is defined (at most 4096 messages, as Settled holds it), so
// dump decodes its payload as the full Index would. An asker of a pair
// (pairs.go, outputs.md "Pairing": a PingRequest, a
// RequestServerListenerId) is held the same way until it is answered or
// pair.Hold (4096) messages later no answer can pair with it, so it is
// handed out with its `pair`; likewise a ULinkRPC Request or KeepAlivePing
// until its answer is numbered (at most 4096 messages). A Stream without
// Settled (tables) hands nothing out, so its ULinkRPC connections are
// light (decode.Config.Light: read only as far as the tables go) and
// their askers wait for nothing. Stream.Cut (`tables --at N`) stops at
// message N once it is final: Index.Cut tells the feeder to stop reading,
// and the Index answers as of N (Len, Connections, Tables) without the
// end-of-capture findings. The TUI keeps the full Index.
//
// # Storage
//
// An Index keeps per message only a compact index record (36 bytes, in
// fixed blocks: outputs.md's fields and spans are decoded again when a
// message is shown), so a million messages cost tens of megabytes. Message
// bytes stay in the capture file when the caller supplies it as a Store and
// passes each chunk's file offset (DataAt); only messages split across
// segments, or from a source without a file (stdin, live capture), are
// copied into an in-memory arena. The decoder itself still does no IO: the
// Store is the caller's.
// A hosted record (hosted.go) is kept beside its index record, compact,
// or slim as its bytes and the index record alone (hostedslim.go,
// decode.Keeper), restored when read: its decoding is its connection's.
//
// Limits.MaxArena bounds the arena (0, the default, keeps everything: a
// file or stdin is read to be shown whole; live capture sets 64 MiB). Past
// it the oldest arena blocks are dropped whole, a ring with no copying: their
// messages keep their index records and still list, while Message and
// Detail give them without bytes or fields and with one error finding
// ("bytes of message n are no longer in memory …"), and Tables as of a
// message whose replay would need dropped bytes returns the state as of the
// message before them with a warning, never wrong tables. Blocks of messages
// held for an inference are kept until it settles. Live capture with
// --write passes the file as the Store, so its messages need no arena.
//
// # Payload schemas
//
// With SetSchemas (../shared/spec/schema.md) a message is decoded further
// when it is shown (Message, Detail, AppendJSONRange): the payload of a USMN
// invoke whose listener (type, version) has a schema, and the parameters of
// a vanilla InvokeMethod whose index has one, become fields with exact bit
// spans after the header fields (Message.Payload, and the end of Fields),
// with the schema's findings and the outputs.md keys payload_message and
// payload_method. Nothing is decoded at feed time, so the index record is
// unchanged; a reference unresolved when it was decoded is decoded with the
// listener its ID has been resolved to since (unless SetLateSchemas(false)),
// and Head decodes invokes again to count payload findings in its severity.
package session
