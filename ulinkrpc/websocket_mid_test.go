package ulinkrpc

import (
	"bytes"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/lp"
	"github.com/usmnscope/usmnscope/decode/transport/websocket"
)

// wsMessages is a direction's WebSocket frames as a ULinkRPC peer writes
// them (one binary message per [length][frame]; masked from the client),
// the data they carry, and where each frame starts.
func wsMessages(frames [][]byte, masked bool) (stream, data []byte, starts []int) {
	key := [4]byte{0x37, 0xfa, 0x21, 0x3d}
	for i, f := range frames {
		msg := AppendFrame(nil, f)
		var k *[4]byte
		if masked {
			key[0] = byte(i)
			k = &key
		}
		starts = append(starts, len(stream))
		stream = websocket.EncodeFrame(stream, websocket.OpBinary, true, k, msg)
		data = append(data, msg...)
	}
	return stream, data, starts
}

// TestWebSocketMidStream: joined at any byte of its first frame, a
// WebSocket decoder started MidStream skips to the next frame and hands on
// the data of every frame from there, with one note (on the masked, client
// side) that the framing was inferred and one for the bytes skipped.
func TestWebSocketMidStream(t *testing.T) {
	_, frames := conversation(6)
	for _, masked := range []bool{true, false} {
		stream, data, starts := wsMessages(frames, masked)
		for cut := 1; cut < starts[1]; cut++ {
			w := NewWebSocket(WSConfig{MidStream: true, Masked: &masked})
			var got []byte
			ev := func(e websocket.Event) {
				if e.Kind == websocket.EventData {
					got = append(got, e.Data...)
				}
			}
			w.Feed(stream[cut:], ev)
			fs := w.End(ev)
			want := data[len(AppendFrame(nil, frames[0])):]
			if !bytes.Equal(got, want) {
				t.Fatalf("masked %v, cut %d: %d data bytes; want %d (every frame after the first)", masked, cut, len(got), len(want))
			}
			var texts []string
			for _, f := range fs {
				texts = append(texts, f.Text)
			}
			all := strings.Join(texts, "\n")
			if strings.Contains(all, "WebSocket framing inferred") != masked || !strings.Contains(all, "resync: skipped") {
				t.Errorf("masked %v, cut %d: findings %q; want the inference note (client side only) and the skip", masked, cut, texts)
			}
		}
	}
}

// TestFindWSFrames: WebSocket frames joined mid-stream are found from the
// next frame's start, masked or not as asked; raw length-prefixed frames,
// and frames masked the other way, are not; too few bytes are undecided
// until the end.
func TestFindWSFrames(t *testing.T) {
	_, frames := conversation(6)
	client, _, cs := wsMessages(frames, true)
	server, _, ss := wsMessages(frames, false)
	var raw []byte
	for _, f := range frames {
		raw = AppendFrame(raw, f)
	}
	key := [4]byte{9, 8, 7, 6}
	m0, m1 := AppendFrame(nil, frames[0]), AppendFrame(nil, frames[1])
	frag := websocket.EncodeFrame(nil, websocket.OpBinary, false, &key, m0[:5])
	frag = websocket.EncodeFrame(frag, websocket.OpPing, true, &key, []byte("hi"))
	frag = websocket.EncodeFrame(frag, websocket.OpContinuation, true, &key, m0[5:])
	frag = websocket.EncodeFrame(frag, websocket.OpBinary, true, &key, m1)
	for _, tt := range []struct {
		name           string
		in             []byte
		masked, final  bool
		off            int
		found, decided bool
	}{
		{"client from 3", client[3:], true, false, cs[1] - 3, true, true},
		{"server from 1", server[1:], false, false, ss[1] - 1, true, true},
		{"client read as server", client[3:], false, true, 0, false, true},
		{"server read as client", server[1:], true, true, 0, false, true},
		{"raw frames as client", raw, true, true, 0, false, true},
		{"raw frames as server", raw, false, true, 0, false, true},
		{"a fragmented message, a ping inside", frag, true, false, 0, true, true},
		{"from its continuation: the next message", frag[11+8:], true, false, len(frag) - 11 - 8 - len(websocket.EncodeFrame(nil, websocket.OpBinary, true, &key, m1)), true, true},
		{"a header only", client[cs[1] : cs[1]+6], true, false, 0, false, false},
		{"a header only, final", client[cs[1] : cs[1]+6], true, true, 0, false, true},
	} {
		off, found, decided := FindWSFrames(tt.in, tt.masked, tt.final)
		if found != tt.found || decided != tt.decided || found && off != tt.off {
			t.Errorf("FindWSFrames(%s) = %d, %v, %v; want %d, %v, %v", tt.name, off, found, decided, tt.off, tt.found, tt.decided)
		}
	}
}

// TestWSFrameFragmentPastEnd: a chain whose first binary fragment runs
// past the bytes at hand is undecided (or rejected at the end), never a
// read past them. The host's random resync test found the slice out of
// range it was before.
func TestWSFrameFragmentPastEnd(t *testing.T) {
	// Binary, not FIN, masked with a zero key, payload length 10; the
	// payload opens with a [length] of 100 (more than this fragment holds,
	// as a first fragment's must) and is cut after those 4 bytes.
	d := []byte{0x02, 0x80 | 10, 0, 0, 0, 0, 0, 0, 0, 100}
	for _, final := range []bool{false, true} {
		if off, found, decided := FindWSFrames(d, true, final); found || decided != final || !final && off != 0 {
			t.Errorf("FindWSFrames(first fragment cut, final %v) = %d, %v, %v; want undecided at 0 until the end", final, off, found, decided)
		}
	}
	h, _ := websocket.ParseHeader(d)
	if got := wsFrame(h, d[h.Size:]); got != lp.Undecided {
		t.Errorf("wsFrame(first fragment cut) = %v; want %v", got, lp.Undecided)
	}
}

// TestWSFrame: ULinkRPC's evidence for a WebSocket joined mid-stream is a
// binary message holding exactly one [length][frame] with a plausible
// frame, or a first fragment holding less than its frame.
func TestWSFrame(t *testing.T) {
	_, frames := conversation(1)
	msg := AppendFrame(nil, frames[0])
	key := [4]byte{9, 8, 7, 6}
	long := AppendFrame(nil, append(bytes.Clone(frames[0]), 0))
	tests := []struct {
		name  string
		frame []byte
		want  lp.Result
	}{
		{"a binary message", websocket.EncodeFrame(nil, websocket.OpBinary, true, nil, msg), lp.Accept},
		{"masked", websocket.EncodeFrame(nil, websocket.OpBinary, true, &key, msg), lp.Accept},
		{"a first fragment", websocket.EncodeFrame(nil, websocket.OpBinary, false, &key, msg[:7]), lp.Accept},
		{"a first fragment that is the whole frame", websocket.EncodeFrame(nil, websocket.OpBinary, false, &key, msg), lp.Reject},
		{"text", websocket.EncodeFrame(nil, websocket.OpText, true, nil, msg), lp.Reject},
		{"a length prefix one too long", websocket.EncodeFrame(nil, websocket.OpBinary, true, nil, long[:len(long)-1]), lp.Reject},
		{"a zero length prefix", websocket.EncodeFrame(nil, websocket.OpBinary, true, nil, []byte{0, 0, 0, 0, 1}), lp.Reject},
		{"too short for a prefix and a byte", websocket.EncodeFrame(nil, websocket.OpBinary, true, nil, []byte{0, 0, 0, 0}), lp.Reject},
		{"not a frame", websocket.EncodeFrame(nil, websocket.OpBinary, true, nil, AppendFrame(nil, []byte{0xff, 1, 2})), lp.Reject},
	}
	for _, tt := range tests {
		h, err := websocket.ParseHeader(tt.frame)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := wsFrame(h, tt.frame[h.Size:]); got != tt.want {
			t.Errorf("wsFrame(%s) = %v; want %v", tt.name, got, tt.want)
		}
		for n := h.Size; n < len(tt.frame) && tt.want == lp.Accept; n++ {
			if got := wsFrame(h, tt.frame[h.Size:n]); got != lp.Undecided {
				t.Errorf("wsFrame(%s cut to %d bytes) = %v; want undecided", tt.name, n, got)
			}
		}
	}
}
