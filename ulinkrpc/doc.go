// Package ulinkrpc is the pure codec of ULinkRPC, usmnscope's second
// protocol, as ../shared/spec/ulinkrpc.md describes it: bytes in, typed
// values, fields with byte spans and findings out, no IO and no state beyond
// what a stream decoder needs. Fields are dissect.Field values whose bit
// offsets are 8 × the byte offset; findings are dissect.Finding values.
//
// # Frames
//
// ulinkrpc.md 2: every transport carries `[length u32 BE][frame]`. A Stream
// cuts one direction's bytes into frames as chunks arrive, caps each frame
// (64 MiB, or less), notes a zero-length frame as a close and, after a Gap,
// StartUnsynced or an invalid length, resynchronises on the smallest offset
// from which three frames chain and each parses exactly (fewer up to the
// last byte at End), reporting what it skipped, as decode's SystemSockets
// framing does. Its buffers are bounded: one partial frame while
// synchronised, 3·(4+ResyncMaxLen)+4 bytes while resynchronising.
//
// # WebSocket
//
// ulinkrpc.md 2.2: ULinkRPC rides the shared WebSocket transport
// (decode/transport/websocket: its Decoder, Event, ParseFrame, ...), which
// turns one direction into data bytes (unmasked, across fragments and
// message boundaries) for a Stream, gaps, and the upgrade, ping, pong and
// close as connection events. What is ULinkRPC's is NewWebSocket: the
// decoder with ULinkRPC's words ("ulinkrpc websocket: ..."), and, joined
// mid-stream without the upgrade (WSConfig.MidStream), resynchronising on
// a whole binary frame holding exactly one [length][frame] that parses;
// FindWSFrames is the same test for a detector.
//
// # KCP
//
// ulinkrpc.md 2.3: ParseHandshake reads UKCP/UACK, ULinkRPC's own
// handshake; the segments after it are the shared KCP transport's
// (decode/transport/kcp: Segment, Reassembler, Message, ...).
// NewReassembler gives one direction's reassembler ULinkRPC's words, its
// bounds (a kcp.Config's limits) and the capture-wide Budget.
//
// # Transform
//
// ulinkrpc.md 3: Untransform removes the optional layer: the flags byte,
// gzip with the receiver's cap (MaxInflate: a gzip bomb stops there with an
// error), AES-256-CBC with HMAC-SHA256 under Keys from DeriveKeys (HKDF or
// the older SHA256 derivation). With the settings unknown (Mode Auto) it
// classifies each frame by Classify's rules and says so in a finding.
//
// # Envelope and payload
//
// ulinkrpc.md 4: DecodeEnvelope decodes the five frame types with a field
// per wire field and reports malformed, trailing bytes and invalid length as
// errors, an unknown type or status as notes. ulinkrpc.md 6: DecodePayload
// detects JSON (a field tree with dotted names) or MemoryPack: cut into
// members with type guesses by CutMemoryPack, or named and typed by
// DecodeMemoryPack given a DTO description. ParseContracts reads the C#
// contract sources (services, methods, pushes, ids, DTOs); SchemaTOML prints
// them as ../shared/spec/schema.md section 4's TOML.
//
// # Encoders
//
// For tests and fixtures: EncodeRequest and the other envelope encoders,
// AppendFrame, EncodeHandshake, ApplyTransform (Gzip, Encrypt) and the MP*
// MemoryPack writers. JSON payloads are plain encoding/json output.
//
// # Errors
//
// Decoders return *Error values that say where (`ulinkrpc envelope:
// request_id: need 4 bytes at byte 5, have 2`) and wrap a sentinel
// (ErrShort, ErrTrailing, ErrInvalidLength, ErrFormat, ErrTooLarge, ErrAuth,
// ErrNoKey) for errors.Is.
package ulinkrpc
