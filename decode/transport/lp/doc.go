// Package lp is the length-prefixed framing with resynchronisation that
// several protocols ride on: SystemSockets' 2-byte big-endian lengths
// (wire.md 2) and ULinkRPC's 4-byte ones (ulinkrpc.md 2). A Framer cuts
// one direction's byte stream into frames; the header width, byte order,
// length limit, what a zero length means and the frame test of
// resynchronisation are its Config, and the words its findings use are
// the protocol's. Joined mid-stream or after a gap, it finds frame
// boundaries again with the search of a Rule (Search): the smallest offset
// from which consecutive length headers chain and each frame passes the
// protocol's test.
//
// It knows no protocol: unturned.Framer and ulinkrpc.Stream are this
// Framer with their rules, and keep their own names and counters.
//
// # Bounds
//
// While synchronised a Framer holds at most one partial frame, grown as
// its bytes arrive (never allocated from the length header alone, never
// past the frame); while resynchronising, at most Rule.Bound bytes.
package lp
