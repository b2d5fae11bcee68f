// Package netpak reads and writes the NetPak bit stream that every Unturned
// NetMessage is made of (../shared/spec/wire.md, section 1).
//
// # Bit order
//
// A NetPak message is one continuous LSB-first bit stream (wire.md 1.1):
// each write puts the value's least significant bit at the next free stream
// bit, and stream bit k is bit k mod 8 of byte k/8. Nothing is aligned
// unless AlignToByte is called, and the writer pads the last byte with zero
// bits. No bit length is sent, so a reader cannot tell up to 7 trailing
// zero bits from data.
//
// Worked example, the official test vector `1d 7f 01`:
//
//	Bits(0b101, 3)  stream bits 0..2 = 1,0,1   byte 0 = .....101
//	Bits(0b11, 2)   stream bits 3..4 = 1,1     byte 0 = ...11101
//	AlignToByte     bits 5..7 = 0              byte 0 = 00011101 = 0x1d
//	Bits(0x7f, 7)   bits 8..14 = 1×7            byte 1 = .1111111
//	AlignToByte     bit 15 = 0                 byte 1 = 01111111 = 0x7f
//	Bits(1, 1)      bit 16 = 1                 byte 2 = .......1
//	AlignToByte     bits 17..23 = 0            byte 2 = 00000001 = 0x01
//
// Because values run across byte boundaries, a UInt32 after a 5-bit enum
// spans five bytes, and a byte-aligned UInt16 is little-endian only by
// accident. 64-bit values are two 32-bit writes, the high half first.
//
// # Primitives
//
// Reader and Writer have a method for every primitive of wire.md 1.3, each
// the inverse of the other: Bits (0 to 32), Bit, the fixed-width integers,
// Float, String with any length width, Bytes, NetID, SteamID, GUID,
// DateTime, SignedInt, the clamped and normalized floats, Quaternion,
// NormalVector3, Radians, Degrees, VectorAsYaw, Color32RGB/RGBA, Transform,
// Enum and ListCount (CountBits(max) wide). The caller names every width;
// where the game has a default (String 11, ClampedVector3 (13, 7),
// Quaternion 9) the documentation says so.
//
// # Errors
//
// A Reader never panics and never reads past its input. Its error is
// sticky, in the style of compress/flate: the first failure sets Err, and
// every later read returns zero values, so a decoder reads a whole header
// and checks Err once. A read past the end yields a *ShortError naming the
// bit the read started at, the bits it wanted and the bits that were left
// (errors.Is(err, ErrShort)); padding, UTF-8 and range failures yield a
// *BitError wrapping ErrPadding, ErrUTF8 or ErrRange (the reader error
// states of wire.md 1.3). Sub hands out a reader bounded to a bit range,
// for payloads whose end is known.
//
// # Spans
//
// A decoder records each field it reads as a Span (name, bit offset, bit
// length, value) into a *Spans. Field trees, hexdump highlights and JSON
// output are all built from spans. A nil *Spans records nothing and costs a
// branch per field; the typed adders (AddUint, AddString, …) box the value
// only when spans are wanted.
//
// # Performance
//
// Bits is the hot path. It inlines into its caller: one comparison checks
// the width, one the end and the sticky error together (a pending error is
// a negative limit), and one that an 8-byte load at pos/8 stays inside the
// input; then one little-endian load, a shift and a mask give the value.
// The last 7 bytes are read from a word cached at Reset, rotated so that a
// single rotate by pos lines the next bit up, so no byte past the input is
// ever loaded (a guard-page test checks this). BenchmarkBits measures mixed
// 1 to 32 bit reads over 1 MiB.
package netpak
