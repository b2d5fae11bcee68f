package ulinkrpc

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

var wsKey = [4]byte{0x37, 0xfa, 0x21, 0x3d}

// RFC 6455 5.7 vectors.
func TestParseWSFrameRFC(t *testing.T) {
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
		hd, p, err := ParseWSFrame(tt.in)
		if err != nil || hd.Opcode != tt.op || hd.Fin != tt.fin || string(p) != tt.payload {
			t.Errorf("ParseWSFrame(%.20x) = %v %v %q, %v; want %v %v %q", tt.in, hd.Opcode, hd.Fin, p, err, tt.op, tt.fin, tt.payload)
		}
		for n := range len(tt.in) {
			if _, _, err := ParseWSFrame(tt.in[:n]); !errors.Is(err, ErrShort) {
				t.Errorf("ParseWSFrame(cut %d of %.20x) = %v; want ErrShort", n, tt.in, err)
			}
		}
	}
	if got := EncodeWSFrame(nil, OpText, true, &wsKey, []byte("Hello")); !bytes.Equal(got, h(`81 85 37fa213d 7f9f4d5158`)) {
		t.Errorf("EncodeWSFrame(masked Hello) = %x", got)
	}
}

func TestParseWSHeaderErrors(t *testing.T) {
	tests := []struct {
		in   []byte
		text string
	}{
		{h(`83 00`), "ulinkrpc websocket: opcode: reserved opcode 3 at byte 0"},
		{h(`c2 00`), "ulinkrpc websocket: rsv: reserved bits 4 set (no extension was negotiated) at byte 0"},
		{h(`09 00`), "ulinkrpc websocket: opcode: ping frame fragmented or longer than 125 bytes at byte 0"},
		{h(`82 7e 0010`), "ulinkrpc websocket: length16: length 16 not in its shortest form at byte 2"},
		{h(`82 7f 8000000000000000`), "ulinkrpc websocket: length64: 64-bit length 9223372036854775808 out of range at byte 2"},
		{h(`82 7e 00`), "ulinkrpc websocket: length16: need 2 bytes at byte 2, have 1"},
	}
	for _, tt := range tests {
		if _, err := ParseWSHeader(tt.in); err == nil || err.Error() != tt.text {
			t.Errorf("ParseWSHeader(%x) = %v; want %s", tt.in, err, tt.text)
		}
	}
}

// wsRun feeds a WebSocket decoder and collects the data and the events.
type wsRun struct {
	data   []byte
	events []string
}

func (r *wsRun) ev(e WSEvent) {
	switch e.Kind {
	case WSData:
		r.data = append(r.data, e.Data...)
	case WSGap:
		r.events = append(r.events, fmt.Sprintf("gap %d", e.Gap))
	case WSUpgrade:
		r.events = append(r.events, fmt.Sprintf("upgrade %v %s %d", e.Upgrade.Request, e.Upgrade.Target, e.Upgrade.Status))
	case WSClose:
		r.events = append(r.events, fmt.Sprintf("close %d %q", e.Code, e.Reason))
	default:
		r.events = append(r.events, fmt.Sprintf("%v %q", e.Kind, e.Data))
	}
}

// wsClient builds a client stream: the upgrade, each frame as one binary
// message (the second split in two fragments), a ping, a close.
func wsClient(frames [][]byte) (stream, data []byte) {
	stream = EncodeUpgradeRequest("127.0.0.1:20000", "/ws", "dGhlIHNhbXBsZSBub25jZQ==")
	for i, f := range frames {
		msg := AppendFrame(nil, f)
		data = append(data, msg...)
		if i == 1 {
			stream = EncodeWSFrame(stream, OpBinary, false, &wsKey, msg[:5])
			stream = EncodeWSFrame(stream, OpPing, true, &wsKey, []byte("hi"))
			stream = EncodeWSFrame(stream, OpContinuation, true, &wsKey, msg[5:])
			continue
		}
		stream = EncodeWSFrame(stream, OpBinary, true, &wsKey, msg)
	}
	stream = EncodeWSFrame(stream, OpClose, true, &wsKey, append([]byte{0x03, 0xe8}, "bye"...))
	return stream, data
}

func TestWebSocketStream(t *testing.T) {
	_, frames := conversation(5)
	stream, data := wsClient(frames)
	want := []string{`upgrade true /ws 0`, `ping "hi"`, `close 1000 "bye"`}
	for size := 1; size <= len(stream); size += 7 {
		w := NewWebSocket(WSConfig{Upgrade: true})
		var r wsRun
		for i := 0; i < len(stream); i += size {
			w.Feed(stream[i:min(i+size, len(stream))], r.ev)
		}
		fs := w.End(r.ev)
		if !bytes.Equal(r.data, data) || strings.Join(r.events, "; ") != strings.Join(want, "; ") {
			t.Errorf("chunk %d: data %d bytes (want %d), events %q", size, len(r.data), len(data), r.events)
		}
		if len(fs) != 1 || !strings.Contains(fs[0].Text, `close at stream offset`) {
			t.Errorf("chunk %d: findings %v; want the close note", size, fs)
		}
	}
}

func TestWebSocketUpgradeRefused(t *testing.T) {
	w := NewWebSocket(WSConfig{Upgrade: true})
	var r wsRun
	w.Feed([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n\x82\x01\x00"), r.ev)
	fs := w.End(r.ev)
	if len(r.data) != 0 || len(fs) != 1 || fs[0].Text != "websocket: upgrade refused: 400 Bad Request" {
		t.Errorf("refused upgrade: data %x findings %v", r.data, fs)
	}
}

func TestWebSocketGap(t *testing.T) {
	_, frames := conversation(6)
	var stream, data []byte
	for _, f := range frames {
		msg := AppendFrame(nil, f)
		data = append(data, msg...)
		stream = EncodeWSFrame(stream, OpBinary, true, nil, msg)
	}
	// A gap inside the first frame's payload: the frame goes on.
	w := NewWebSocket(WSConfig{})
	var r wsRun
	w.Feed(stream[:5], r.ev)
	w.Gap(3, r.ev)
	w.Feed(stream[8:], r.ev)
	w.End(r.ev)
	if want := append(bytes.Clone(data[:3]), data[6:]...); !bytes.Equal(r.data, want) || r.events[0] != "gap 3" {
		t.Errorf("gap in payload: data %x events %v", r.data, r.events)
	}
	// A gap across a frame boundary: resynchronise on the next headers.
	w = NewWebSocket(WSConfig{})
	r = wsRun{}
	first := 2 + 4 + len(frames[0])
	w.Feed(stream[:first-2], r.ev)
	w.Gap(6, r.ev)
	w.Feed(stream[first+4:], r.ev)
	fs := w.End(r.ev)
	tail := data[len(data)-4-len(frames[5]):]
	if !bytes.HasSuffix(r.data, tail) || len(fs) < 2 {
		t.Errorf("gap across frames: data %x (want the tail %x) findings %v", r.data, tail, fs)
	}
}

// Every shorter cut of a WebSocket stream ends cleanly.
func TestWebSocketCuts(t *testing.T) {
	_, frames := conversation(2)
	stream, _ := wsClient(frames)
	for n := range len(stream) {
		w := NewWebSocket(WSConfig{Upgrade: true})
		var r wsRun
		w.Feed(stream[:n], r.ev)
		w.End(r.ev)
	}
}
