package feed

import (
	"bytes"
	"encoding/binary"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// verdict is a detector's answer about the bytes seen so far.
type verdict = decode.Verdict

const (
	undecided = decode.Undecided // more bytes needed
	matches   = decode.Matches
	differs   = decode.Differs
)

// Need is the most client bytes the ULinkRPC detector looks at
// (decode.Protocol.Need): a first frame longer than this is not
// recognised by content.
const Need = 16 << 10

// transport tells a ULinkRPC connection's transport from its first
// client bytes: an HTTP GET is a WebSocket upgrade, anything else the
// length-prefixed TCP stream.
func transport(c2s []byte) rpc.Transport {
	if bytes.HasPrefix(c2s, []byte("GET ")) {
		return rpc.WebSocket
	}
	return rpc.TCP
}

// Detect is ULinkRPC's detector (decode.Protocol.Detect; ulinkrpc.md 1,
// by content): the first client bytes are a 4-byte big-endian length
// prefix and a frame that parses exactly (plain, or with the transform
// layer's flags byte or gzip), or an HTTP GET asking for a WebSocket
// upgrade whose first client message is such a frame.
func Detect(c2s []byte) decode.Verdict {
	get := []byte("GET ")
	switch {
	case len(c2s) < len(get) && bytes.HasPrefix(get, c2s) && len(c2s) > 0:
		return undecided
	case bytes.HasPrefix(c2s, get):
		return detectRPCUpgrade(c2s)
	}
	return detectRPCFrame(c2s)
}

// detectRPCFrame checks one length-prefixed frame at the start of b.
func detectRPCFrame(b []byte) verdict {
	// A length below Need starts 00 00 00–3f: decided from the first
	// bytes, as early as the GetWorkshopFiles detector decides.
	switch {
	case len(b) >= 1 && b[0] != 0, len(b) >= 2 && b[1] != 0, len(b) >= 3 && int(b[2]) > (Need-4)>>8:
		return differs
	case len(b) < 4:
		return undecided
	}
	n := int(binary.BigEndian.Uint32(b))
	if n == 0 || n > Need-4 {
		return differs
	}
	if len(b) >= 5 && !plausibleFirst(b[4]) {
		return differs
	}
	if len(b) < 4+n {
		return undecided
	}
	switch ulinkrpc.Classify(b[4 : 4+n]) {
	case ulinkrpc.ClassPlain, ulinkrpc.ClassFlags, ulinkrpc.ClassGzip:
		return matches
	}
	return differs
}

// plausibleFirst: a frame starts with its type (1–5), a flags byte of 0
// (transform on) or 1 (gzip).
func plausibleFirst(b byte) bool { return b <= 5 }

// detectRPCUpgrade checks an HTTP upgrade to a WebSocket and the first
// client WebSocket frame after it: a binary frame (masked, as a client's
// are) whose payload opens with a ULinkRPC frame.
func detectRPCUpgrade(b []byte) verdict {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) >= Need {
			return differs
		}
		return undecided
	}
	if !bytes.Contains(bytes.ToLower(b[:end]), []byte("upgrade: websocket")) {
		return differs
	}
	ws := b[end+4:]
	if len(ws) < 2 {
		return undecided
	}
	if ws[0]&0x0f != 2 || ws[1]&0x80 == 0 { // binary, masked
		return differs
	}
	n, pos := int(ws[1]&0x7f), 2
	switch n {
	case 126:
		if len(ws) < 4 {
			return undecided
		}
		n, pos = int(binary.BigEndian.Uint16(ws[2:])), 4
	case 127:
		return differs // a first message past 64 KiB: not looked at
	}
	if len(ws) < pos+4 {
		return undecided
	}
	mask := ws[pos : pos+4]
	pos += 4
	payload := ws[pos:min(len(ws), pos+n)]
	plain := make([]byte, len(payload))
	for i, c := range payload {
		plain[i] = c ^ mask[i&3]
	}
	v := detectRPCFrame(plain)
	if v == undecided && len(payload) == n {
		// The frame runs on in a later WebSocket message: the prefix and
		// the type were plausible.
		return matches
	}
	return v
}
