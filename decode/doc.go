// Package decode turns the byte streams of Unturned SystemSockets
// connections into typed messages, USMN listener headers and per-connection
// listener-ID tables, as described in ../shared/spec/wire.md.
//
// The decoders are pure: bytes in, typed values and findings out, no IO and
// no panics. Capture is the stateful part on top that the CLI and the TUI
// feed and read.
//
// # Framing
//
// wire.md section 2: each SystemSockets message travels behind a 2-byte
// big-endian length (1..65535; zero never occurs). A Framer cuts one
// direction's stream into messages as chunks of any size arrive, a length
// header split over two chunks included. A message that lies wholly in a
// chunk is handed out without copying. After a Gap (lost bytes), after
// StartUnsynced (a stream joined mid-connection) or on an impossible length,
// the Framer resynchronises: it takes the smallest offset from which three
// consecutive length headers of at most ResyncMaxLen bytes chain exactly (at
// the end of the stream, two whole messages ending on the last byte
// suffice) and reports the bytes it skipped as a Sequence finding. The
// resynchronisation buffer is bounded by what deciding one offset can need,
// 2·(2+ResyncMaxLen)+2 bytes. Length headers are weak evidence: message
// bytes can chain too, so the first messages after a resynchronisation may
// be garbage before framing falls onto the true boundaries.
//
// # Messages
//
// wire.md section 3: DecodeMessage reads one message from stream bit 0: the
// message enum (4 bits C→S, 5 bits S→C in 3.26, wider once widened), then
// the vanilla body, dispatching through a table by direction and enum value.
// It fills a Decoded and, when asked, the netpak.Spans of every field.
// Encoder builds messages for tests. DecodeOne decodes a single message for
// the bits command.
//
// # USMN
//
// wire.md section 4: the marker appended to GetWorkshopFiles and
// DownloadWorkshopFiles (4.1), widened enums (4.2), the Invoke Message
// Listener header (4.3) and Negotiate Listener Details (4.4). State carries
// what a direction's decoding depends on: whether the enum is widened and
// the Serverside_ID_Bit_Count in force.
//
// # Tables
//
// wire.md section 4.5: Capture keeps for each connection the server table,
// the client table with its client→server mapping, the missing listeners,
// per-listener invoke and payload counts and the queue of unresolved
// references, replayed in order when an ID gets defined. Tables(conn, n)
// gives that state as of message n: the nearest checkpoint, with the USMN
// messages after it decoded again and applied.
//
// # Storage
//
// A Capture keeps per message only a compact index record (36 bytes, in
// fixed blocks: outputs.md's fields and spans are decoded again when a
// message is shown), so a million messages cost tens of megabytes. Message
// bytes stay in the capture file when the caller supplies it as a Store and
// passes each chunk's file offset (DataAt); only messages split across
// segments, or from a source without a file (stdin, live capture), are
// copied into an in-memory arena. The decoder itself still does no IO: the
// Store is the caller's.
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
// # Profiles
//
// wire.md section 6: the protocol constants the seeds leave open live in a
// Profile. Default returns the values of section 6; ParseProfile reads a
// TOML file with the keys of section 6.1 over them and rejects unknown keys
// and unusable values, naming the key.
//
// # Findings
//
// Expert information is a Finding: a Severity (note, warn, error), a Group
// (malformed, sequence, undecoded, protocol, inference), a text and the
// message bit it points at (-1 for connection-level findings such as those
// of the Framer). A decode error is a finding on the message, never a
// failure of the whole capture: what decoded before the bad part is kept.
// Strings from the wire pass through Escape before they reach a terminal.
package decode
