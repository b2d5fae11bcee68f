package websocket

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/lp"
	"github.com/usmnscope/usmnscope/dissect"
)

// run feeds a Decoder and collects the data and the events.
type run struct {
	data   []byte
	events []string
}

func (r *run) ev(e Event) {
	switch e.Kind {
	case EventData:
		r.data = append(r.data, e.Data...)
	case EventGap:
		r.events = append(r.events, fmt.Sprintf("gap %d", e.Gap))
	case EventUpgrade:
		r.events = append(r.events, fmt.Sprintf("upgrade %v %s %d", e.Upgrade.Request, e.Upgrade.Target, e.Upgrade.Status))
	case EventClose:
		r.events = append(r.events, fmt.Sprintf("close %d %q", e.Code, e.Reason))
	default:
		r.events = append(r.events, fmt.Sprintf("%v %q", e.Kind, e.Data))
	}
}

func texts(fs []dissect.Finding) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Text)
	}
	return strings.Join(s, "\n")
}

// messages are a toy protocol's: each starts with "ok" (judge).
func messages(n int) [][]byte {
	var ms [][]byte
	for i := range n {
		ms = append(ms, []byte(fmt.Sprintf("ok message %d %s", i, strings.Repeat("x", 3*i))))
	}
	return ms
}

// judge is the toy protocol's test: a binary frame whose payload starts
// with "ok".
func judge(h Header, p []byte) lp.Result {
	if h.Opcode != OpBinary || h.Len < 2 {
		return lp.Reject
	}
	if len(p) < 2 {
		return lp.Undecided
	}
	q := [2]byte{p[0], p[1]}
	Unmask(q[:], h.Key, 0)
	if string(q[:]) != "ok" {
		return lp.Reject
	}
	return lp.Accept
}

// client builds a client stream: the upgrade, each message as one binary
// message (the second split in two fragments, a ping between them), a
// close.
func client(msgs [][]byte) (stream, data []byte) {
	stream = EncodeUpgradeRequest("127.0.0.1:20000", "/ws", "dGhlIHNhbXBsZSBub25jZQ==")
	for i, m := range msgs {
		data = append(data, m...)
		if i == 1 {
			stream = EncodeFrame(stream, OpBinary, false, &testKey, m[:5])
			stream = EncodeFrame(stream, OpPing, true, &testKey, []byte("hi"))
			stream = EncodeFrame(stream, OpContinuation, true, &testKey, m[5:])
			continue
		}
		stream = EncodeFrame(stream, OpBinary, true, &testKey, m)
	}
	stream = EncodeFrame(stream, OpClose, true, &testKey, append([]byte{0x03, 0xe8}, "bye"...))
	return stream, data
}

// frames lays msgs out as a peer writes them, one binary message each
// (masked from the client, a key per frame), and where each frame starts.
func frames(msgs [][]byte, masked bool) (stream, data []byte, starts []int) {
	key := testKey
	for i, m := range msgs {
		var k *[4]byte
		if masked {
			key[0] = byte(i)
			k = &key
		}
		starts = append(starts, len(stream))
		stream = EncodeFrame(stream, OpBinary, true, k, m)
		data = append(data, m...)
	}
	return stream, data, starts
}

// TestDecoderStream: in chunks of any size, the data of every message
// (fragments joined) and the upgrade, ping and close as events.
func TestDecoderStream(t *testing.T) {
	stream, data := client(messages(5))
	want := []string{`upgrade true /ws 0`, `ping "hi"`, `close 1000 "bye"`}
	for size := 1; size <= len(stream); size += 7 {
		w := New(Config{Upgrade: true})
		var r run
		for i := 0; i < len(stream); i += size {
			w.Feed(stream[i:min(i+size, len(stream))], r.ev)
		}
		fs := w.End(r.ev)
		if !bytes.Equal(r.data, data) || strings.Join(r.events, "; ") != strings.Join(want, "; ") {
			t.Errorf("chunk %d: data %d bytes (want %d), events %q", size, len(r.data), len(data), r.events)
		}
		// The close is the last frame: 2 header bytes, 4 of key, 5 of body.
		if want := fmt.Sprintf(`websocket: close at stream offset %d, code 1000, reason "bye"`, len(stream)-11); len(fs) != 1 || fs[0].Text != want {
			t.Errorf("chunk %d: findings %q; want the close note", size, texts(fs))
		}
	}
}

// TestDecoderHeads: what the decoder makes of the head it starts with.
func TestDecoderHeads(t *testing.T) {
	frame := string(EncodeFrame(nil, OpBinary, true, nil, []byte("ok")))
	tests := []struct {
		name, in string
		events   string
		data     string
		findings string
	}{
		{"refused", "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" + frame,
			"upgrade false  400", "", "websocket: upgrade refused: 400 Bad Request"},
		{"granted", string(EncodeUpgradeResponse("x")) + frame, "upgrade false  101", "ok", ""},
		{"extensions", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n" + frame,
			"upgrade false  101", "ok", "websocket: extensions negotiated (permessage-deflate): frames with reserved bits cannot be decoded"},
		{"not an upgrade", "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n" + frame,
			"upgrade true /index.html 0", "", "websocket: GET /index.html is not an upgrade request"},
		{"not HTTP", "SSH-2.0-OpenSSH\r\n\r\n" + frame, "", "", `websocket: http: not an HTTP start line: "SSH-2.0-OpenSSH" at byte 0`},
		{"cut", "GET /ws HTTP/1.1\r\nHost", "", "", "websocket: the stream ended inside the HTTP head (22 bytes)"},
		{"too long", "GET /ws HTTP/1.1\r\n" + strings.Repeat("X-A: b\r\n", 4<<10), "", "",
			"websocket: no end of the HTTP head within 16384 bytes"},
	}
	for _, tt := range tests {
		w := New(Config{Upgrade: true})
		var r run
		w.Feed([]byte(tt.in), r.ev)
		fs := w.End(r.ev)
		if got := strings.Join(r.events, "; "); got != tt.events || string(r.data) != tt.data || texts(fs) != tt.findings {
			t.Errorf("%s: events %q, data %q, findings %q; want %q, %q, %q", tt.name, got, r.data, texts(fs), tt.events, tt.data, tt.findings)
		}
	}
	w := New(Config{Upgrade: true})
	w.Feed([]byte("GET /ws HT"), nop)
	w.Gap(3, nop)
	if fs := texts(w.End(nop)); fs != "websocket: gap of 3 bytes in the HTTP head" {
		t.Errorf("a gap in the head: findings %q", fs)
	}
}

// TestDecoderWords: the protocol's words in the findings, and none of
// them when the Config gives none.
func TestDecoderWords(t *testing.T) {
	bad := h(`83 00`)
	text := EncodeFrame(nil, OpText, true, nil, []byte("hi"))
	words := Config{ErrorPrefix: "toy ", Inferred: "one toy message a frame", Binary: "Toy"}
	tests := []struct {
		name string
		cfg  Config
		in   []byte
		want string
	}{
		{"a bad header", Config{}, bad, "websocket: opcode: reserved opcode 3 at byte 0 (frame at stream offset 0)\nwebsocket: resync: skipped 1 byte at the end of the stream"},
		{"a bad header, prefixed", words, bad, "toy websocket: opcode: reserved opcode 3 at byte 0 (frame at stream offset 0)\nwebsocket: resync: skipped 1 byte at the end of the stream"},
		{"a text message", Config{}, text, ""},
		{"a text message, binary only", words, text, "websocket: text message at stream offset 0 (Toy sends binary); its bytes are framed all the same"},
		{"a cut close body", words, EncodeFrame(nil, OpClose, true, nil, []byte{3}),
			"toy websocket: close.code: need 2 bytes at byte 0, have 1\nwebsocket: close at stream offset 0, code 0, reason \"\""},
	}
	for _, tt := range tests {
		w := New(tt.cfg)
		w.Feed(tt.in, func(Event) {})
		if got := texts(w.End(func(Event) {})); got != tt.want {
			t.Errorf("%s: findings %q; want %q", tt.name, got, tt.want)
		}
	}
	for _, masked := range []bool{true, false} {
		for _, cfg := range []Config{{}, words} {
			cfg.MidStream, cfg.Masked = true, &masked
			want := ""
			if masked {
				want = "websocket: the HTTP upgrade was not captured: WebSocket framing inferred from the bytes; resynchronising on frame headers"
				if cfg.Inferred != "" {
					want = "websocket: the HTTP upgrade was not captured: WebSocket framing inferred from the bytes (one toy message a frame); resynchronising on frame headers"
				}
			}
			if got := texts(New(cfg).Findings()); got != want {
				t.Errorf("mid-stream, masked %v, words %v: %q; want %q", masked, cfg.Inferred != "", got, want)
			}
		}
	}
}

// TestDecoderGap: a gap inside a data frame's payload is handed on and the
// frame goes on; one across a frame boundary resynchronises.
func TestDecoderGap(t *testing.T) {
	msgs := messages(6)
	stream, data, starts := frames(msgs, false)
	w := New(Config{})
	var r run
	w.Feed(stream[:5], r.ev)
	w.Gap(3, r.ev)
	w.Feed(stream[8:], r.ev)
	fs := w.End(r.ev)
	if want := append(bytes.Clone(data[:3]), data[6:]...); !bytes.Equal(r.data, want) || r.events[0] != "gap 3" || len(fs) != 0 {
		t.Errorf("gap in payload: data %q events %v findings %q", r.data, r.events, texts(fs))
	}
	w = New(Config{})
	r = run{}
	w.Feed(stream[:starts[1]-2], r.ev)
	w.Gap(6, r.ev)
	w.Feed(stream[starts[1]+4:], r.ev)
	fs = w.End(r.ev)
	want := fmt.Sprintf("websocket: gap of 6 bytes at stream offset %d across a frame boundary: resynchronising\nwebsocket: resync: skipped %d bytes", starts[1]-2, starts[2]-starts[1]-4)
	if tail := data[len(msgs[0])+len(msgs[1]):]; !bytes.Equal(r.data, append(bytes.Clone(data[:len(msgs[0])-2]), tail...)) || texts(fs) != want {
		t.Errorf("gap across frames: data %q findings %q; want %q", r.data, texts(fs), want)
	}
}

// TestDecoderCuts: every shorter cut of a stream ends cleanly, having
// handed on a prefix of the data.
func TestDecoderCuts(t *testing.T) {
	stream, data := client(messages(2))
	for n := range len(stream) {
		w := New(Config{Upgrade: true})
		var r run
		w.Feed(stream[:n], r.ev)
		w.End(r.ev)
		if !bytes.HasPrefix(data, r.data) {
			t.Errorf("cut %d: data %q, not a prefix of %q", n, r.data, data)
		}
	}
}

// TestDecoderMidStream: joined at any byte of its first frame, a decoder
// started MidStream skips to the next frame and hands on the data of every
// frame from there, with or without a judge, masked or not.
func TestDecoderMidStream(t *testing.T) {
	msgs := messages(6)
	for _, masked := range []bool{true, false} {
		stream, data, starts := frames(msgs, masked)
		for _, j := range []Judge{nil, judge} {
			for cut := 1; cut < starts[1]; cut++ {
				w := New(Config{MidStream: true, Masked: &masked, Judge: j})
				var r run
				w.Feed(stream[cut:], r.ev)
				fs := w.End(r.ev)
				if want := data[len(msgs[0]):]; !bytes.Equal(r.data, want) {
					t.Fatalf("masked %v, judge %v, cut %d: %d data bytes; want %d (every frame after the first)", masked, j != nil, cut, len(r.data), len(want))
				}
				if !strings.Contains(texts(fs), fmt.Sprintf("resync: skipped %s", dissect.Count(starts[1]-cut, "byte"))) {
					t.Errorf("masked %v, cut %d: findings %q; want the skip", masked, cut, texts(fs))
				}
			}
		}
	}
}

// TestSearch: frames joined mid-stream are found from the next frame's
// start, masked or not as asked, with the judge's evidence or without;
// frames masked the other way, and bytes that are no frames, are not; too
// few bytes are undecided until the end.
func TestSearch(t *testing.T) {
	msgs := messages(6)
	clientB, _, cs := frames(msgs, true)
	serverB, _, ss := frames(msgs, false)
	key := [4]byte{9, 8, 7, 6}
	frag := EncodeFrame(nil, OpBinary, false, &key, msgs[0][:5])
	frag = EncodeFrame(frag, OpPing, true, &key, []byte("hi"))
	frag = EncodeFrame(frag, OpContinuation, true, &key, msgs[0][5:])
	last := EncodeFrame(nil, OpBinary, true, &key, msgs[1])
	frag = append(frag, last...)
	// A binary frame that is not the toy's, then one that is.
	other := append(EncodeFrame(nil, OpBinary, true, nil, []byte("no")), serverB...)
	// Binary, not FIN, unmasked, payload length 10, cut after 4 bytes
	// that start as the toy's do.
	past := []byte{0x02, 10, 'o', 'k', 0, 0}
	text := bytes.Repeat([]byte("plain text, no frames "), 10)
	for _, tt := range []struct {
		name           string
		in             []byte
		masked, final  bool
		judge          Judge
		off            int
		found, decided bool
	}{
		{"client from 3", clientB[3:], true, false, judge, cs[1] - 3, true, true},
		{"server from 1", serverB[1:], false, false, judge, ss[1] - 1, true, true},
		{"server from 1, no judge", serverB[1:], false, false, nil, ss[1] - 1, true, true},
		{"client read as server", clientB[3:], false, true, judge, 0, false, true},
		{"server read as client", serverB[1:], true, true, judge, 0, false, true},
		{"text", text, true, true, nil, 0, false, true},
		{"a fragmented message, a ping inside", frag, true, false, judge, 0, true, true},
		{"from its continuation: the next message", frag[11+8:], true, false, judge, len(frag) - 11 - 8 - len(last), true, true},
		{"from its continuation, no judge", frag[11+8:], true, false, nil, 0, true, true},
		{"a frame the judge refuses", other, false, false, judge, len(other) - len(serverB), true, true},
		{"a header only", clientB[cs[1] : cs[1]+6], true, false, judge, 0, false, false},
		{"a header only, final", clientB[cs[1] : cs[1]+6], true, true, judge, 0, false, true},
		{"a first fragment past the end", past, false, false, judge, 0, false, false},
		{"a first fragment past the end, final", past, false, true, judge, 0, false, true},
	} {
		off, found, decided := Search(tt.in, tt.masked, tt.final, tt.judge)
		if found != tt.found || decided != tt.decided || found && off != tt.off {
			t.Errorf("Search(%s) = %d, %v, %v; want %d, %v, %v", tt.name, off, found, decided, tt.off, tt.found, tt.decided)
		}
	}
}

// TestDecoderHeld: the bytes a decoder may yet hand on later than they
// came: a frame header's past its third byte until Abandon lets them go,
// and every byte held while resynchronising until Abandon gives them
// their end-of-stream chance.
func TestDecoderHeld(t *testing.T) {
	f := EncodeFrame(nil, OpBinary, true, &testKey, bytes.Repeat([]byte("a"), 300))
	w := New(Config{})
	w.Feed(f[:6], nop)
	if w.Held() != 3 || w.Offset() != 6 {
		t.Errorf("6 bytes of an 8-byte header: held %d, offset %d; want 3, 6", w.Held(), w.Offset())
	}
	w.Abandon("for the test", nop)
	if w.Held() != 0 {
		t.Errorf("after Abandon: held %d; want 0", w.Held())
	}
	w = New(Config{})
	w.Gap(5, nop)
	var r run
	w.Feed(f, r.ev)
	if w.Held() != len(f) || len(r.data) != 0 {
		t.Errorf("resynchronising on one frame: held %d, data %d; want %d, 0", w.Held(), len(r.data), len(f))
	}
	w.Abandon("for the test", r.ev)
	if w.Held() != 0 || len(r.data) != 300 {
		t.Errorf("after Abandon: held %d, data %d; want 0, 300 (the frame ends on the last byte held)", w.Held(), len(r.data))
	}
}

// TestDecoderBounds: an HTTP head without its blank line is given up at
// MaxUpgradeLen; a data frame is streamed, never held whole (a 1 MiB
// message fed in 4 KiB chunks leaves at most a chunk of scratch); a
// resynchronisation holds at most Bound bytes.
func TestDecoderBounds(t *testing.T) {
	w := New(Config{Upgrade: true})
	head := append([]byte("GET /ws HTTP/1.1\r\n"), bytes.Repeat([]byte("X-A: b\r\n"), 4<<10)...)
	w.Feed(head, func(Event) {})
	fs := w.Findings()
	if w.state != stateDead || len(w.head) > MaxUpgradeLen || len(fs) == 0 || !strings.Contains(fs[0].Text, "no end of the HTTP head") {
		t.Errorf("a 32 KiB head: state %d, head %d bytes, findings %v; want given up at %d bytes", w.state, len(w.head), fs, MaxUpgradeLen)
	}

	w = New(Config{})
	key := [4]byte{1, 2, 3, 4}
	msg := EncodeFrame(nil, OpBinary, true, &key, make([]byte, 1<<20))
	data := 0
	for i := 0; i < len(msg); i += 4096 {
		w.Feed(msg[i:min(i+4096, len(msg))], func(ev Event) { data += len(ev.Data) })
		if cap(w.scr) > 4096 || cap(w.ctrl) > 125 {
			t.Fatalf("after %d bytes: scratch %d, control %d bytes; want a chunk and 125 at most", i, cap(w.scr), cap(w.ctrl))
		}
	}
	if data != 1<<20 {
		t.Errorf("1 MiB message: %d data bytes handed on; want %d", data, 1<<20)
	}

	w = New(Config{})
	w.Gap(1, func(Event) {})
	// Headers of 60 KiB frames whose next header never comes where it
	// should: candidates stay undecided as long as they can.
	junk := bytes.Repeat(append([]byte{0x82, 126, 0xf0, 0x00}, bytes.Repeat([]byte{0x82}, 60<<10)...), 6)
	for i := 0; i < len(junk); i += 4096 {
		w.Feed(junk[i:min(i+4096, len(junk))], func(Event) {})
		if len(w.rbuf) > w.Bound() || w.Bound() != 2*(14+64<<10)+14 {
			t.Fatalf("resynchronising: %d bytes held; want at most %d", len(w.rbuf), 2*(14+64<<10)+14)
		}
	}
}

func nop(Event) {}
