package websocket

import (
	"bytes"
	"encoding/binary"

	"github.com/usmnscope/usmnscope/decode/transport"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// layer names this package's errors (transport.Error.Layer).
const layer = "websocket"

// Opcode is a frame's opcode (RFC 6455 5.2).
type Opcode uint8

const (
	OpContinuation Opcode = 0
	OpText         Opcode = 1
	OpBinary       Opcode = 2
	OpClose        Opcode = 8
	OpPing         Opcode = 9
	OpPong         Opcode = 10
)

var opcodeNames = [...]string{OpContinuation: "continuation", OpText: "text", OpBinary: "binary", OpClose: "close", OpPing: "ping", OpPong: "pong"}

func (o Opcode) String() string { return enum.Name(opcodeNames[:], uint64(o)) }

// Control reports whether o is a control opcode (8–15).
func (o Opcode) Control() bool { return o >= 8 }

func (o Opcode) known() bool { return o <= OpBinary || (o >= OpClose && o <= OpPong) }

// Header is a frame header:
// [FIN|RSV|opcode u8][MASK|len7 u8][len16 | len64][mask key 4 if MASK].
type Header struct {
	Fin    bool
	RSV    uint8 // the three reserved bits, 0 without extensions
	Opcode Opcode
	Masked bool
	Key    [4]byte
	Len    uint64 // payload length
	Size   int    // header bytes: 2 to 14
}

// ParseHeader reads a frame header at the front of b. It fails with
// transport.ErrShort when b holds only part of it, and with
// transport.ErrFormat on a header RFC 6455 forbids: an unknown opcode,
// reserved bits (this decoder negotiates no extension), a fragmented or
// long control frame, a 64-bit length with its top bit set, or a length
// not in its shortest form. On an error, Size is where the reading
// stopped.
func ParseHeader(b []byte) (Header, error) {
	var h Header
	if len(b) < 2 {
		field := "header"
		if len(b) == 1 {
			field = "length"
		}
		return h, transport.Short(layer, field, len(b), 1, len(b))
	}
	h.Fin, h.RSV, h.Opcode = b[0]&0x80 != 0, b[0]>>4&7, Opcode(b[0]&15)
	h.Masked, h.Len = b[1]&0x80 != 0, uint64(b[1]&0x7f)
	h.Size = 2
	switch h.Len {
	case 126:
		if len(b) < 4 {
			return h, transport.Short(layer, "length16", 2, 2, len(b))
		}
		h.Len, h.Size = uint64(binary.BigEndian.Uint16(b[2:])), 4
		if h.Len < 126 {
			return h, transport.Format(layer, "length16", 2, "length %d not in its shortest form", h.Len)
		}
	case 127:
		if len(b) < 10 {
			return h, transport.Short(layer, "length64", 2, 8, len(b))
		}
		h.Len, h.Size = binary.BigEndian.Uint64(b[2:]), 10
		if h.Len>>63 != 0 || h.Len < 1<<16 {
			return h, transport.Format(layer, "length64", 2, "64-bit length %d out of range", h.Len)
		}
	}
	if h.Masked {
		if len(b) < h.Size+4 {
			return h, transport.Short(layer, "mask_key", h.Size, 4, len(b))
		}
		copy(h.Key[:], b[h.Size:])
		h.Size += 4
	}
	switch {
	case !h.Opcode.known():
		return h, transport.Format(layer, "opcode", 0, "reserved opcode %d", h.Opcode)
	case h.RSV != 0:
		return h, transport.Format(layer, "rsv", 0, "reserved bits %d set (no extension was negotiated)", h.RSV)
	case h.Opcode.Control() && (!h.Fin || h.Len > 125):
		return h, transport.Format(layer, "opcode", 0, "%s frame fragmented or longer than 125 bytes", h.Opcode)
	}
	return h, nil
}

// headerSize is the size of the frame header at the front of b as its
// second byte tells it (RFC 6455 5.2: the extended length and the masking
// key follow it), or 2 while b holds less. A decoder fed a byte at a time
// collects this many bytes before ParseHeader: asking it at each byte
// built an ErrShort error per byte (issue 18).
func headerSize(b []byte) int {
	if len(b) < 2 {
		return 2
	}
	n := 2
	switch b[1] & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b[1]&0x80 != 0 {
		n += 4
	}
	return n
}

// ParseFrame reads one whole frame at the front of b and returns its
// header and its unmasked payload (a copy when masked). The error is
// transport.ErrShort for a cut frame.
func ParseFrame(b []byte) (Header, []byte, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return h, nil, err
	}
	if uint64(len(b)-h.Size) < h.Len {
		return h, nil, transport.Short(layer, "payload", h.Size, int(min(h.Len, 1<<62)), len(b))
	}
	p := b[h.Size : h.Size+int(h.Len)]
	if h.Masked {
		p = bytes.Clone(p)
		Unmask(p, h.Key, 0)
	}
	return h, p, nil
}

// Unmask XORs p with the masking key, cycling from key byte at: p[i] is
// the payload's byte at+i (RFC 6455 5.3). Masking and unmasking are the
// same.
func Unmask(p []byte, key [4]byte, at int) {
	for i := range p {
		p[i] ^= key[(at+i)&3]
	}
}

// EncodeFrame appends one frame; key non-nil masks it (a client's frames).
func EncodeFrame(dst []byte, op Opcode, fin bool, key *[4]byte, payload []byte) []byte {
	b0 := byte(op)
	if fin {
		b0 |= 0x80
	}
	var m byte
	if key != nil {
		m = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		dst = append(dst, b0, m|byte(n))
	case n < 1<<16:
		dst = binary.BigEndian.AppendUint16(append(dst, b0, m|126), uint16(n))
	default:
		dst = binary.BigEndian.AppendUint64(append(dst, b0, m|127), uint64(n))
	}
	if key == nil {
		return append(dst, payload...)
	}
	dst = append(dst, key[:]...)
	at := len(dst)
	dst = append(dst, payload...)
	Unmask(dst[at:], *key, 0)
	return dst
}

// CloseBody splits a close frame's payload into its status code and reason
// (RFC 6455 5.5.1); an empty body has code 0 (1005, "no status", by the RFC).
func CloseBody(p []byte) (code int, reason string, err error) {
	switch {
	case len(p) == 0:
		return 0, "", nil
	case len(p) == 1:
		return 0, "", transport.Short(layer, "close.code", 0, 2, 1)
	}
	return int(binary.BigEndian.Uint16(p)), string(p[2:]), nil
}
