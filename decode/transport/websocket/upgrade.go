package websocket

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/decode/transport"
)

// Upgrade is the HTTP/1.1 request or response that opens a WebSocket
// (RFC 6455 4).
type Upgrade struct {
	Request bool
	Method  string // request: GET
	Target  string // request: the path
	Status  int    // response: 101, or another status when refused
	Reason  string
	Headers [][2]string // as sent, in order
	Len     int         // bytes of the head, the final CRLF CRLF included
}

// MaxUpgradeLen bounds the HTTP head a Decoder buffers.
const MaxUpgradeLen = 16 << 10

// ParseUpgrade reads an HTTP/1.1 request or response head at the front of
// b. transport.ErrShort means the blank line has not arrived yet.
func ParseUpgrade(b []byte) (Upgrade, error) {
	var u Upgrade
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		return u, &transport.Error{Layer: layer, Field: "http", Offset: len(b), Need: 4, Have: 0, Err: transport.ErrShort, Detail: "no blank line"}
	}
	u.Len = end + 4
	lines := strings.Split(string(b[:end]), "\r\n")
	parts := strings.SplitN(lines[0], " ", 3)
	bad := func(format string, args ...any) (Upgrade, error) {
		return u, transport.Format(layer, "http", 0, format, args...)
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

// EncodeUpgradeRequest builds a client's opening handshake (RFC 6455
// 4.1): a GET of path at host with the upgrade headers and key (for
// fixtures).
func EncodeUpgradeRequest(host, path, key string) []byte {
	return []byte("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key + "\r\n\r\n")
}

// EncodeUpgradeResponse builds the server's answer granting the upgrade:
// accept is the Sec-WebSocket-Accept value.
func EncodeUpgradeResponse(accept string) []byte {
	return []byte("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n")
}
