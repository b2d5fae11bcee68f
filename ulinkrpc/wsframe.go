package ulinkrpc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/internal/enum"
)

// Opcode is a WebSocket frame's opcode (RFC 6455 5.2).
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

// WSHeader is a WebSocket frame header:
// [FIN|RSV|opcode u8][MASK|len7 u8][len16 | len64][mask key 4 if MASK].
type WSHeader struct {
	Fin    bool
	RSV    uint8 // the three reserved bits, 0 without extensions
	Opcode Opcode
	Masked bool
	Key    [4]byte
	Len    uint64 // payload length
	Size   int    // header bytes: 2 to 14
}

// ParseWSHeader reads a frame header at the front of b. It fails with
// ErrShort when b holds only part of it, and with ErrFormat on a header
// RFC 6455 forbids: an unknown opcode, reserved bits (no extension is
// negotiated by ULinkRPC), a fragmented or long control frame, a 64-bit
// length with its top bit set, or a length not in its shortest form.
func ParseWSHeader(b []byte) (WSHeader, error) {
	r := newReader("websocket", b, 0)
	var w WSHeader
	b0 := r.u8("header")
	b1 := r.u8("length")
	if r.err != nil {
		return w, r.err
	}
	w.Fin, w.RSV, w.Opcode = b0&0x80 != 0, b0>>4&7, Opcode(b0&15)
	w.Masked, w.Len = b1&0x80 != 0, uint64(b1&0x7f)
	switch w.Len {
	case 126:
		v := r.bytes("length16", 2)
		if r.err == nil {
			w.Len = uint64(binary.BigEndian.Uint16(v))
		}
		if r.err == nil && w.Len < 126 {
			r.fail("length16", 2, ErrFormat, "length %d not in its shortest form", w.Len)
		}
	case 127:
		v := r.bytes("length64", 8)
		if r.err == nil {
			w.Len = binary.BigEndian.Uint64(v)
			if w.Len>>63 != 0 || w.Len < 1<<16 {
				r.fail("length64", 2, ErrFormat, "64-bit length %d out of range", w.Len)
			}
		}
	}
	if w.Masked {
		copy(w.Key[:], r.bytes("mask_key", 4))
	}
	switch {
	case r.err != nil:
	case !w.Opcode.known():
		r.fail("opcode", 0, ErrFormat, "reserved opcode %d", w.Opcode)
	case w.RSV != 0:
		r.fail("rsv", 0, ErrFormat, "reserved bits %d set (no extension was negotiated)", w.RSV)
	case w.Opcode.Control() && (!w.Fin || w.Len > 125):
		r.fail("opcode", 0, ErrFormat, "%s frame fragmented or longer than 125 bytes", w.Opcode)
	}
	w.Size = r.pos
	return w, r.err
}

// wsHeaderSize is the size of the frame header at the front of b as its
// second byte tells it (RFC 6455 5.2: the extended length and the masking
// key follow it), or 2 while b holds less. A decoder fed a byte at a time
// collects this many bytes before ParseWSHeader: asking it at each byte
// built an ErrShort error per byte (issue 18).
func wsHeaderSize(b []byte) int {
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

// ParseWSFrame reads one whole frame at the front of b and returns its
// header and its unmasked payload (a copy when masked). The error is
// ErrShort for a cut frame.
func ParseWSFrame(b []byte) (WSHeader, []byte, error) {
	w, err := ParseWSHeader(b)
	if err != nil {
		return w, nil, err
	}
	if uint64(len(b)-w.Size) < w.Len {
		return w, nil, &Error{Layer: "websocket", Field: "payload", Offset: w.Size, Need: int(min(w.Len, 1<<62)), Have: len(b) - w.Size, Err: ErrShort}
	}
	p := b[w.Size : w.Size+int(w.Len)]
	if w.Masked {
		p = bytes.Clone(p)
		unmask(p, w.Key, 0)
	}
	return w, p, nil
}

// unmask XORs p with the key, cycling from key byte at.
func unmask(p []byte, key [4]byte, at int) {
	for i := range p {
		p[i] ^= key[(at+i)&3]
	}
}

// EncodeWSFrame appends one frame; key non-nil masks it (client frames).
func EncodeWSFrame(dst []byte, op Opcode, fin bool, key *[4]byte, payload []byte) []byte {
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
	unmask(dst[at:], *key, 0)
	return dst
}

// CloseBody splits a close frame's payload into its status code and reason
// (RFC 6455 5.5.1); an empty body has code 0 (1005, "no status", by the RFC).
func CloseBody(p []byte) (code int, reason string, err error) {
	switch {
	case len(p) == 0:
		return 0, "", nil
	case len(p) == 1:
		return 0, "", &Error{Layer: "websocket", Field: "close.code", Offset: 0, Need: 2, Have: 1, Err: ErrShort}
	}
	return int(binary.BigEndian.Uint16(p)), string(p[2:]), nil
}

// Upgrade is the HTTP/1.1 request or response that opens a WebSocket
// (ulinkrpc.md 2.2).
type Upgrade struct {
	Request bool
	Method  string // request: GET
	Target  string // request: the path, /ws by default
	Status  int    // response: 101, or 400 / 503 when refused
	Reason  string
	Headers [][2]string // as sent, in order
	Len     int         // bytes of the head, the final CRLF CRLF included
}

// MaxUpgradeLen bounds the HTTP head the decoder buffers.
const MaxUpgradeLen = 16 << 10

// ParseUpgrade reads an HTTP/1.1 request or response head at the front of
// b. ErrShort means the blank line has not arrived yet.
func ParseUpgrade(b []byte) (Upgrade, error) {
	var u Upgrade
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		return u, &Error{Layer: "websocket", Field: "http", Offset: len(b), Need: 4, Have: 0, Err: ErrShort, Detail: "no blank line"}
	}
	u.Len = end + 4
	lines := strings.Split(string(b[:end]), "\r\n")
	parts := strings.SplitN(lines[0], " ", 3)
	bad := func(format string, args ...any) (Upgrade, error) {
		return u, &Error{Layer: "websocket", Field: "http", Offset: 0, Err: ErrFormat, Detail: fmt.Sprintf(format, args...)}
	}
	if len(parts) < 2 {
		return bad("not an HTTP start line: %q", lines[0])
	}
	if strings.HasPrefix(parts[0], "HTTP/1.") {
		st, err := strconv.Atoi(parts[1])
		if err != nil || st < 100 || st > 999 {
			return bad("bad status %q", parts[1])
		}
		u.Status = st
		if len(parts) == 3 {
			u.Reason = parts[2]
		}
	} else {
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "HTTP/1.") {
			return bad("not an HTTP/1.x request line: %q", lines[0])
		}
		u.Request, u.Method, u.Target = true, parts[0], parts[1]
	}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return bad("header line without a colon: %q", l)
		}
		u.Headers = append(u.Headers, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	return u, nil
}

// Header returns the first value of a header, matched case-insensitively.
func (u *Upgrade) Header(name string) string {
	for _, h := range u.Headers {
		if strings.EqualFold(h[0], name) {
			return h[1]
		}
	}
	return ""
}

// WebSocket reports whether the head asks for (request) or grants
// (response, 101) a WebSocket upgrade.
func (u *Upgrade) WebSocket() bool {
	if !u.Request && u.Status != 101 {
		return false
	}
	return strings.EqualFold(u.Header("Upgrade"), "websocket")
}

// EncodeUpgradeRequest and EncodeUpgradeResponse build the heads ULinkRPC's
// WebSocket transports exchange (for fixtures).
func EncodeUpgradeRequest(host, path, key string) []byte {
	return []byte("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key + "\r\n\r\n")
}

// EncodeUpgradeResponse: accept is the Sec-WebSocket-Accept value.
func EncodeUpgradeResponse(accept string) []byte {
	return []byte("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n")
}
