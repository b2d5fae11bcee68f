// Package websocket is RFC 6455 over one direction of a TCP stream, as a
// transport a protocol composes: the HTTP upgrade (ParseUpgrade), frame
// headers and frames (ParseHeader, ParseFrame, unmasked with Unmask), and a
// streaming Decoder that hands on every data byte, whatever the message
// and frame boundaries, with control frames (ping, pong, close) and the
// upgrade as events. Fragmented messages need no reassembly of their own:
// their frames' data bytes follow each other in the stream handed on, and
// the protocol frames that stream as its receiver does (ULinkRPC's
// length-prefixed frames, with decode/transport/lp).
//
// Joined mid-stream or after a gap across a frame boundary, a Decoder
// resynchronises on frame headers: the smallest offset from which two
// headers chain, masked as the direction's frames are. Before the first
// frame boundary of a connection joined mid-stream, a protocol may ask for
// stronger evidence (Config.Judge, Search): a data frame that holds what
// the protocol sends.
//
// It knows no protocol: the words that name one in its findings (the
// prefix of a parse error, what a mid-stream decoder infers, the protocol
// that sends binary only) are its Config's.
//
// # Bounds
//
// A Decoder holds at most the HTTP head (MaxUpgradeLen), a frame header
// (14 bytes), a control frame's payload (125 bytes), a chunk's unmasking
// scratch and, while it resynchronises, Bound bytes.
package websocket
