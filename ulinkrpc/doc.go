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
// ulinkrpc.md 2.2: ParseUpgrade reads the HTTP upgrade head, ParseWSFrame
// and ParseWSHeader RFC 6455 frames. WebSocket decodes one direction as a
// stream of WSEvents: data bytes (unmasked, across fragments and message
// boundaries) for a Stream, gaps, and the upgrade, ping, pong and close as
// connection events. A gap inside a frame's payload keeps the frame; one
// across frame boundaries resynchronises on two chained frame headers.
// Joined mid-stream without the upgrade (WSConfig.MidStream) it starts
// resynchronising, on a whole binary frame holding exactly one
// [length][frame] that parses, and says the framing was inferred;
// FindWSFrames is the same test for a detector.
//
// # KCP
//
// ulinkrpc.md 2.3: ParseHandshake reads UKCP/UACK, ParseSegment and
// ParseDatagram the 24-byte little-endian segments. A Reassembler orders
// PUSH segments by sn per conv, drops duplicates, joins fragments into
// messages, counts ACK, WASK and WINS, skips gaps with a warning when it
// holds too much behind one (or when told to stop waiting, Abandon), and is
// bounded per conv and in total (KCPLimits). Each message names the
// datagram it arrived with, the one that brought the last of its segments
// (KCPMessage.Datagram), and Holding the earliest datagram whose segments
// wait behind a missing sn: a host numbering by arrival needs both.
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
// AppendFrame, EncodeWSFrame, EncodeUpgradeRequest, EncodeSegment,
// SplitMessage, EncodeHandshake, ApplyTransform (Gzip, Encrypt) and the MP*
// MemoryPack writers. JSON payloads are plain encoding/json output.
//
// # Errors
//
// Decoders return *Error values that say where (`ulinkrpc envelope:
// request_id: need 4 bytes at byte 5, have 2`) and wrap a sentinel
// (ErrShort, ErrTrailing, ErrInvalidLength, ErrFormat, ErrTooLarge, ErrAuth,
// ErrNoKey) for errors.Is.
package ulinkrpc
