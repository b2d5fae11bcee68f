// Package bits is the bit-level hexdump pane: offset, hex bytes, the bits
// of each byte in stream order and ASCII. NetPak is an LSB-first bit
// stream (wire.md 1.1: stream bit k is bit k mod 8 of byte k/8), so the
// default display writes each byte's bit 0 first, making a field that
// crosses a byte boundary read contiguously; a toggle shows MSB first.
//
// The pane does not decode: it renders Message.Data and the message's
// field spans, or a ULinkRPC message's envelope and its fields' spans
// (frame.Bytes). ULinkRPC is byte-oriented and big-endian (ulinkrpc.md 4),
// so its bytes are drawn MSB first; the order toggle flips that too. The bits of the selected field are highlighted exactly,
// fields alternate shades, and moving the bit cursor selects the field that
// owns the bit under it.
//
// # Layout
//
// A row is "offset hex… │bits… │ascii". In LSB-first order the leftmost
// digit of a byte is its bit 0, which is the stream's next bit (wire.md 1.1);
// in MSB-first order it is bit 7.
package bits
