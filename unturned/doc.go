// Package unturned is the pure codec of Unturned's SystemSockets traffic
// and of USMN, as described in ../shared/spec/wire.md: framing, the vanilla
// messages, the USMN marker, widened enums, the listener header and
// negotiation, an Encoder for tests and fixtures, and the Profile of
// protocol constants. Bytes in, typed values, fields with bit spans and
// findings out: no IO, no panics, no state beyond what one message (or one
// direction's framing) needs. The per-connection state built on top (widening
// inference, listener tables, the message index) lives in package session.
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
// wire.md section 3: Decode reads one message from stream bit 0: the
// message enum (4 bits C→S, 5 bits S→C in 3.26, wider once widened), then
// the vanilla body, dispatching through a table by direction and enum value.
// It fills a Decoded and, when asked, the netpak.Spans of every field.
// Encoder builds messages for tests.
//
// # USMN
//
// wire.md section 4: the marker appended to GetWorkshopFiles and
// DownloadWorkshopFiles (4.1), widened enums (4.2), the Invoke Message
// Listener header (4.3) and Negotiate Listener Details (4.4). State carries
// what a direction's decoding depends on: whether the enum is widened and
// the Serverside_ID_Bit_Count in force.
//
// # Writing a selection back
//
// Export (export.go, a decode.Export) is what writing selected messages
// back to a capture asks of Unturned: its connections re-framed as
// SystemSockets, the two USMN handshake messages as the detection marks
// without which a connection is written whole, and the messages the
// decoding of those written needs (the handshake's, NegotiateListenerDetails,
// an InvokeMessageListener with a listener definition).
//
// # Profiles
//
// wire.md section 6: the protocol constants the seeds leave open live in a
// Profile. Default returns the values of section 6; ParseProfile reads a
// TOML file with the keys of section 6.1 over them and rejects unknown keys
// and unusable values, naming the key. Its [limits] table (Bounds) holds the
// decoder's bounds and those of the capture layer: the capture ones are zero
// unless a file sets them, meaning capture's own defaults, which package
// capture states and internal/pipeline.DefaultBounds writes in for display;
// this package does not import capture.
//
// # Findings
//
// Expert information is a dissect.Finding: a Severity (note, warn, error), a
// Group (malformed, sequence, undecoded, protocol, inference), a text and
// the message bit it points at (-1 for connection-level findings such as
// those of the Framer). A decode error is a finding on the message, never a
// failure of the whole capture: what decoded before the bad part is kept.
// Strings from the wire pass through termsafe.Escape before they reach a
// summary.
package unturned
