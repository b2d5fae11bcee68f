package ulinkrpc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/websocket"
)

var wsKey = [4]byte{0x37, 0xfa, 0x21, 0x3d}

// wsClient builds a client stream: the upgrade, each frame as one binary
// message (the second split in two fragments), a ping, a close.
func wsClient(frames [][]byte) (stream, data []byte) {
	stream = websocket.EncodeUpgradeRequest("127.0.0.1:20000", "/ws", "dGhlIHNhbXBsZSBub25jZQ==")
	for i, f := range frames {
		msg := AppendFrame(nil, f)
		data = append(data, msg...)
		if i == 1 {
			stream = websocket.EncodeFrame(stream, websocket.OpBinary, false, &wsKey, msg[:5])
			stream = websocket.EncodeFrame(stream, websocket.OpPing, true, &wsKey, []byte("hi"))
			stream = websocket.EncodeFrame(stream, websocket.OpContinuation, true, &wsKey, msg[5:])
			continue
		}
		stream = websocket.EncodeFrame(stream, websocket.OpBinary, true, &wsKey, msg)
	}
	stream = websocket.EncodeFrame(stream, websocket.OpClose, true, &wsKey, append([]byte{0x03, 0xe8}, "bye"...))
	return stream, data
}

// TestWebSocketFrames: a ULinkRPC client's WebSocket stream, in chunks of
// any size, hands its frame Stream every [length][frame] it carries, and
// the frames come out whole.
func TestWebSocketFrames(t *testing.T) {
	_, frames := conversation(5)
	stream, data := wsClient(frames)
	for size := 1; size <= len(stream); size += 13 {
		w := NewWebSocket(WSConfig{Upgrade: true})
		s := NewStream(StreamConfig{})
		var fed []byte
		var got [][]byte
		y := func(f []byte, _ FrameInfo) { got = append(got, bytes.Clone(f)) }
		ev := func(e websocket.Event) {
			if e.Kind == websocket.EventData {
				fed = append(fed, e.Data...)
				s.Feed(e.Data, y)
			}
		}
		for i := 0; i < len(stream); i += size {
			w.Feed(stream[i:min(i+size, len(stream))], ev)
		}
		w.End(ev)
		s.End(y)
		if !bytes.Equal(fed, data) || fmt.Sprint(got) != fmt.Sprint(frames) {
			t.Errorf("chunk %d: data %d bytes (want %d), %d frames (want %d)", size, len(fed), len(data), len(got), len(frames))
		}
	}
}

// TestWebSocketWords: ULinkRPC's words in its WebSocket decoder's
// findings: a parse error reads "ulinkrpc websocket: ...", a text message
// is noted as not ULinkRPC's, and a connection joined mid-stream says on
// its client side what its framing is inferred to be.
func TestWebSocketWords(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"a reserved opcode", h(`83 00`), "ulinkrpc websocket: opcode: reserved opcode 3 at byte 0 (frame at stream offset 0)"},
		{"reserved bits", h(`c2 00`), "ulinkrpc websocket: rsv: reserved bits 4 set (no extension was negotiated) at byte 0 (frame at stream offset 0)"},
		{"a long ping", h(`09 00`), "ulinkrpc websocket: opcode: ping frame fragmented or longer than 125 bytes at byte 0 (frame at stream offset 0)"},
		{"a long length16", h(`82 7e 0010`), "ulinkrpc websocket: length16: length 16 not in its shortest form at byte 2 (frame at stream offset 0)"},
		{"a long length64", h(`82 7f 8000000000000000`), "ulinkrpc websocket: length64: 64-bit length 9223372036854775808 out of range at byte 2 (frame at stream offset 0)"},
		{"a text message", websocket.EncodeFrame(nil, websocket.OpText, true, nil, []byte("{}")), "websocket: text message at stream offset 0 (ULinkRPC sends binary); its bytes are framed all the same"},
		{"a cut close body", websocket.EncodeFrame(nil, websocket.OpClose, true, nil, []byte{3}), "ulinkrpc websocket: close.code: need 2 bytes at byte 0, have 1"},
	}
	for _, tt := range tests {
		w := NewWebSocket(WSConfig{})
		w.Feed(tt.in, func(websocket.Event) {})
		if fs := w.End(func(websocket.Event) {}); len(fs) == 0 || fs[0].Text != tt.want {
			t.Errorf("%s: findings %v; want first %q", tt.name, findingTexts(fs), tt.want)
		}
	}
	w := NewWebSocket(WSConfig{Upgrade: true})
	w.Feed([]byte("hello\r\n\r\n"), func(websocket.Event) {})
	if fs := w.End(func(websocket.Event) {}); len(fs) != 1 || fs[0].Text != `ulinkrpc websocket: http: not an HTTP start line: "hello" at byte 0` {
		t.Errorf("a head that is not HTTP: findings %v", findingTexts(fs))
	}
	masked := true
	fs := NewWebSocket(WSConfig{MidStream: true, Masked: &masked}).Findings()
	if want := "websocket: the HTTP upgrade was not captured: WebSocket framing inferred from the bytes (binary frames each holding one ULinkRPC frame, masked from the client only); resynchronising on frame headers"; len(fs) != 1 || fs[0].Text != want {
		t.Errorf("mid-stream: findings %v; want %q", findingTexts(fs), want)
	}
	if fs := findingTexts(NewWebSocket(WSConfig{MidStream: true, Masked: new(bool)}).Findings()); strings.Contains(fs, "inferred") {
		t.Errorf("mid-stream, server side: findings %v; want no note", fs)
	}
}
