// Package transport is what the transports below it share: the error
// their parsers return. The transports are what several protocols ride on,
// each a package of its own that knows no protocol:
//
//   - lp: length-prefixed frames with resynchronisation (SystemSockets'
//     2-byte lengths, ULinkRPC's 4-byte ones);
//   - websocket: RFC 6455 over TCP: the HTTP upgrade, frames unmasked,
//     their data handed on whatever the message boundaries, control
//     frames as events;
//   - kcp: KCP segments over UDP, a conversation's PUSH segments put back
//     in sn order and joined into messages.
//
// A protocol composes them: it chooses the transport of a connection,
// gives it its tests (a frame that parses, the evidence a stream joined
// mid-stream needs) and the words of its findings, and frames or decodes
// what the transport hands on.
package transport
