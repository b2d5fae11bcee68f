package websocket

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport"
)

// h decodes hex, spaces allowed.
func h(s string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		panic(err)
	}
	return b
}

var testKey = [4]byte{0x37, 0xfa, 0x21, 0x3d}

// TestParseFrameRFC: the RFC 6455 5.7 vectors, and every shorter cut of
// each is ErrShort.
func TestParseFrameRFC(t *testing.T) {
	tests := []struct {
		in      []byte
		op      Opcode
		fin     bool
		payload string
	}{
		{h(`81 05 48656c6c6f`), OpText, true, "Hello"},          // unmasked text "Hello"
		{h(`81 85 37fa213d 7f9f4d5158`), OpText, true, "Hello"}, // masked
		{h(`01 03 48656c`), OpText, false, "Hel"},               // first fragment
		{h(`80 02 6c6f`), OpContinuation, true, "lo"},           // last fragment
		{h(`89 05 48656c6c6f`), OpPing, true, "Hello"},          // ping
		{h(`8a 85 37fa213d 7f9f4d5158`), OpPong, true, "Hello"}, // masked pong
		{append(h(`82 7e 0100`), make([]byte, 256)...), OpBinary, true, strings.Repeat("\x00", 256)},
		{append(h(`82 7f 0000000000010000`), make([]byte, 65536)...), OpBinary, true, strings.Repeat("\x00", 65536)},
	}
	for _, tt := range tests {
		hd, p, err := ParseFrame(tt.in)
		if err != nil || hd.Opcode != tt.op || hd.Fin != tt.fin || string(p) != tt.payload {
			t.Errorf("ParseFrame(%.20x) = %v %v %q, %v; want %v %v %q", tt.in, hd.Opcode, hd.Fin, p, err, tt.op, tt.fin, tt.payload)
		}
		for n := range len(tt.in) {
			if _, _, err := ParseFrame(tt.in[:n]); !errors.Is(err, transport.ErrShort) {
				t.Errorf("ParseFrame(cut %d of %.20x) = %v; want ErrShort", n, tt.in, err)
			}
		}
	}
	if got := EncodeFrame(nil, OpText, true, &testKey, []byte("Hello")); !bytes.Equal(got, h(`81 85 37fa213d 7f9f4d5158`)) {
		t.Errorf("EncodeFrame(masked Hello) = %x", got)
	}
}

// TestParseHeaderErrors: each header RFC 6455 forbids, and a cut one, with
// the field and byte of the error.
func TestParseHeaderErrors(t *testing.T) {
	tests := []struct {
		in   []byte
		text string
		size int
	}{
		{h(``), "websocket: header: need 1 byte at byte 0, have 0", 0},
		{h(`82`), "websocket: length: need 1 byte at byte 1, have 0", 0},
		{h(`83 00`), "websocket: opcode: reserved opcode 3 at byte 0", 2},
		{h(`c2 00`), "websocket: rsv: reserved bits 4 set (no extension was negotiated) at byte 0", 2},
		{h(`09 00`), "websocket: opcode: ping frame fragmented or longer than 125 bytes at byte 0", 2},
		{h(`89 7e 0100`), "websocket: opcode: ping frame fragmented or longer than 125 bytes at byte 0", 4},
		{h(`82 7e 0010`), "websocket: length16: length 16 not in its shortest form at byte 2", 4},
		{h(`82 fe 0010 01020304`), "websocket: length16: length 16 not in its shortest form at byte 2", 4},
		{h(`82 7f 8000000000000000`), "websocket: length64: 64-bit length 9223372036854775808 out of range at byte 2", 10},
		{h(`82 7f 000000000000ffff`), "websocket: length64: 64-bit length 65535 out of range at byte 2", 10},
		{h(`82 7e 00`), "websocket: length16: need 2 bytes at byte 2, have 1", 2},
		{h(`82 ff 00000000`), "websocket: length64: need 8 bytes at byte 2, have 4", 2},
		{h(`82 fe 0100 0102`), "websocket: mask_key: need 4 bytes at byte 4, have 2", 4},
	}
	for _, tt := range tests {
		hd, err := ParseHeader(tt.in)
		if err == nil || err.Error() != tt.text || hd.Size != tt.size {
			t.Errorf("ParseHeader(%x) = size %d, %v; want %d, %s", tt.in, hd.Size, err, tt.size, tt.text)
		}
	}
}

// TestHeaderSize checks headerSize against ParseHeader for every second
// byte (each length form, masked or not) and both a data and a control
// opcode: the header is whole at exactly that size, and one byte less is
// ErrShort.
func TestHeaderSize(t *testing.T) {
	for _, b0 := range []byte{0x82, 0x89} {
		for b1 := range 256 {
			b := []byte{b0, byte(b1), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
			switch b1 & 0x7f {
			case 126:
				b[2], b[3] = 0x01, 0x00 // 256: the shortest form
			case 127:
				b[7] = 0x01 // 1<<24
			}
			n := headerSize(b)
			if got := headerSize(b[:1]); got != 2 {
				t.Fatalf("headerSize(%x) = %d; want 2", b[:1], got)
			}
			if _, err := ParseHeader(b[:n-1]); !errors.Is(err, transport.ErrShort) {
				t.Errorf("ParseHeader(%x), one short of headerSize %d = %v; want ErrShort", b[:n-1], n, err)
			}
			hd, err := ParseHeader(b[:n])
			if errors.Is(err, transport.ErrShort) || err == nil && hd.Size != n {
				t.Errorf("ParseHeader(%x) = size %d, %v; want size headerSize %d", b[:n], hd.Size, err, n)
			}
		}
	}
}

// TestEncodeFrameLengths: each length form round-trips, masked or not.
func TestEncodeFrameLengths(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 65535, 65536} {
		for _, key := range []*[4]byte{nil, &testKey} {
			p := bytes.Repeat([]byte{0xa5}, n)
			b := EncodeFrame(nil, OpBinary, true, key, p)
			hd, got, err := ParseFrame(b)
			if err != nil || hd.Len != uint64(n) || hd.Masked != (key != nil) || hd.Size+n != len(b) || !bytes.Equal(got, p) {
				t.Errorf("EncodeFrame(%d bytes, masked %v) read back as %+v, %d bytes, %v", n, key != nil, hd, len(got), err)
			}
		}
	}
}

func TestCloseBody(t *testing.T) {
	tests := []struct {
		in     []byte
		code   int
		reason string
		err    string
	}{
		{nil, 0, "", ""},
		{h(`03`), 0, "", "websocket: close.code: need 2 bytes at byte 0, have 1"},
		{h(`03e8`), 1000, "", ""},
		{append(h(`03e9`), "going away"...), 1001, "going away", ""},
	}
	for _, tt := range tests {
		code, reason, err := CloseBody(tt.in)
		if code != tt.code || reason != tt.reason || errText(err) != tt.err {
			t.Errorf("CloseBody(%x) = %d %q %v; want %d %q %s", tt.in, code, reason, err, tt.code, tt.reason, tt.err)
		}
	}
}

// errText is err's text, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestParseUpgrade: a request and responses, granted or not, and heads
// that are not HTTP; every shorter cut of a head is ErrShort.
func TestParseUpgrade(t *testing.T) {
	req := EncodeUpgradeRequest("127.0.0.1:20000", "/ws", "dGhlIHNhbXBsZSBub25jZQ==")
	tests := []struct {
		in   string
		want string // Request Method Target Status Reason WebSocket Len, or the error
	}{
		{string(req), "true GET /ws 0  true 156"},
		{string(EncodeUpgradeResponse("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")), "false   101 Switching Protocols true 129"},
		{"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\nbody", "false   400 Bad Request false 47"},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "true GET / 0  false 27"},
		{"HTTP/1.1 101\r\nupgrade: WebSocket\r\n\r\n", "false   101  true 36"},
		{"hello\r\n\r\n", `websocket: http: not an HTTP start line: "hello" at byte 0`},
		{"GET /ws\r\n\r\n", `websocket: http: not an HTTP/1.x request line: "GET /ws" at byte 0`},
		{"HTTP/1.1 1x1 OK\r\n\r\n", `websocket: http: bad status "1x1" at byte 0`},
		{"GET / HTTP/1.1\r\nno colon\r\n\r\n", `websocket: http: header line without a colon: "no colon" at byte 0`},
	}
	for _, tt := range tests {
		u, err := ParseUpgrade([]byte(tt.in))
		got := errText(err)
		if err == nil {
			got = fmt.Sprint(u.Request, " ", u.Method, " ", u.Target, " ", u.Status, " ", u.Reason, " ", u.WebSocket(), " ", u.Len)
		}
		if got != tt.want {
			t.Errorf("ParseUpgrade(%q) = %s; want %s", tt.in, got, tt.want)
		}
		end := strings.Index(tt.in, "\r\n\r\n") + 4
		for n := range end {
			if _, err := ParseUpgrade([]byte(tt.in[:n])); !errors.Is(err, transport.ErrShort) {
				t.Errorf("ParseUpgrade(cut %d of %q) = %v; want ErrShort", n, tt.in, err)
			}
		}
	}
	u, _ := ParseUpgrade(req)
	if u.Header("sec-websocket-key") != "dGhlIHNhbXBsZSBub25jZQ==" || u.Header("Origin") != "" {
		t.Errorf("Header: key %q, origin %q", u.Header("sec-websocket-key"), u.Header("Origin"))
	}
}
