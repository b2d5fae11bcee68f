package rpc

import (
	"fmt"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// wsStep is one event of a WebSocket session, in frame frame with seq
// frame: bytes or a gap (gap > 0) of the server side (of the client side
// with client), or a host's Abandon (abandon).
type wsStep struct {
	frame   int
	data    []byte
	gap     int
	client  bool
	abandon bool
}

// wsResponse is a Response's [length][frame] as a WebSocket carries it.
func wsResponse(id uint32) []byte {
	return wire(ulinkrpc.EncodeResponse(id, ulinkrpc.StatusOk, nil, ""))
}

// wsBinary is an unmasked binary frame (the server's) carrying data.
func wsBinary(data []byte) []byte {
	return websocket.EncodeFrame(nil, websocket.OpBinary, true, nil, data)
}

// wsUndecided is the start of a binary frame whose [length] says it runs 28
// bytes on: a mid-stream decoder can decide it only once they came (or at
// the end), so it holds every byte from it meanwhile.
var wsUndecided = []byte{0x82, 0x20, 0, 0, 0, 0x1c}

// wsSession is a WebSocket session joined mid-stream, or past the server's
// upgrade head (frame 0), handing its records to yield (nil: it keeps them).
func wsSession(midStream bool, yield func(*Record, Stamp)) *Session {
	s := New(testConn, Config{Transport: WebSocket, MidStream: midStream, Yield: yield})
	if !midStream {
		s.Bytes(dissect.S2C, websocket.EncodeUpgradeResponse("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), Stamp{Time: t0})
	}
	return s
}

func (st wsStep) feed(s *Session) {
	at, d := Stamp{Frame: st.frame, Time: t0, Seq: uint64(st.frame)}, dissect.S2C
	if st.client {
		d = dissect.C2S
	}
	switch {
	case st.abandon:
		s.Abandon()
	case st.gap > 0:
		s.Gap(d, st.gap, at)
	default:
		s.Bytes(d, st.data, at)
	}
}

// TestHoldingWebSocket (outputs.md "Ordering"): a WebSocket side holds
// numbering exactly while its decoder holds bytes that may yet end frames,
// with the watermark of the chunk the earliest of them came in: not past a
// gap or Abandon that let them go, not from a chunk whose bytes it no
// longer holds. Holding after each step; 0 for not holding.
func TestHoldingWebSocket(t *testing.T) {
	resp := wsBinary(wsResponse(1))
	tests := []struct {
		name      string
		midStream bool
		steps     []wsStep
		want      []uint64
	}{
		{"resync bytes held from their chunk", true,
			[]wsStep{{frame: 1, data: wsUndecided}, {frame: 2, data: resp}},
			[]uint64{1, 1}},
		{"a gap lets them go at once", true,
			[]wsStep{{frame: 1, data: wsUndecided}, {frame: 2, gap: 5}},
			[]uint64{1, 0}},
		{"Abandon lets them go at once", true,
			[]wsStep{{frame: 1, data: wsUndecided}, {abandon: true}},
			[]uint64{1, 0}},
		{"the watermark follows the earliest byte held", true,
			// The first candidate's length 0 rejects it in frame 2, whose
			// own bytes are then the earliest held.
			[]wsStep{{frame: 1, data: wsUndecided[:5]}, {frame: 2, data: append([]byte{0}, wsUndecided...)}},
			[]uint64{1, 2}},
		{"synchronised frames hold nothing", false,
			[]wsStep{{frame: 1, data: resp[:7]}, {frame: 2, data: resp[7:]}},
			[]uint64{0, 0}},
		{"a header cut past its third byte is held", false,
			// A 10-byte header: should it turn out bad, the decoder
			// resynchronises from its second byte, and a frame may lie
			// within it (TestWebSocketBadHeaderStamp).
			[]wsStep{{frame: 1, data: []byte{0x82, 0x7f, 0, 0}}, {frame: 2, data: []byte{0, 0, 0, 1, 0, 0}}},
			[]uint64{1, 0}},
		{"Abandon stops waiting on a cut header", false,
			[]wsStep{{frame: 1, data: []byte{0x82, 0x7f, 0, 0}}, {abandon: true}, {frame: 3, data: []byte{0, 0, 0, 1, 0, 0}}},
			[]uint64{1, 0, 0}},
	}
	for _, tt := range tests {
		s := wsSession(tt.midStream, nil)
		for i, st := range tt.steps {
			st.feed(s)
			checkHolding(t, tt.name, i, s, tt.want[i])
		}
	}
}

// TestWebSocketHeldStamps (outputs.md "Ordering"): a frame whose bytes the
// WebSocket decoder held keeps the frame and seq of the chunk that brought
// its last byte, whenever the decoder hands it on: at End (TestRPCHostRandom
// seed 59: two Responses of frame 375 took End's stamp and were numbered
// after frame 393), at Abandon, once headers chain, or out of a header that
// turned out bad. The records' frame:seq after the steps and End (frame 9).
func TestWebSocketHeldStamps(t *testing.T) {
	r1, r2 := wsBinary(wsResponse(1)), wsBinary(wsResponse(2))
	// A Response's frame all but its last byte, whose last byte then comes
	// inside a header (reserved opcode 3, masked, 64-bit length) that its
	// mask key shows bad a chunk later: resynchronised from its second byte,
	// it holds a binary frame of that one byte, then frames that chain.
	last := wsResponse(3)
	cut := append([]byte{0x82, byte(len(last) - 1)}, last[:len(last)-1]...)
	bad := []byte{0x83, 0xff, 0x02, 0x01, last[len(last)-1], 0x82, 0x00, 0x82, 0x00, 0x89, 0x01, 0x00, 0x82, 0x00}
	tests := []struct {
		name      string
		midStream bool
		steps     []wsStep
		want      string
	}{
		{"at End", true, []wsStep{{frame: 1, data: wsUndecided}, {frame: 2, data: r1[:9]}, {frame: 3, data: r1[9:]}},
			"[3:3]"},
		{"at Abandon", true, []wsStep{{frame: 1, data: wsUndecided}, {frame: 2, data: r1}, {frame: 3, gap: 1, client: true}, {abandon: true}},
			"[2:2]"},
		{"once headers chain", true, []wsStep{{frame: 1, data: wsUndecided}, {frame: 2, data: r1}, {frame: 3, data: r2}},
			"[2:2 3:3]"},
		{"out of a bad header", false, []wsStep{{frame: 1, data: cut}, {frame: 2, data: bad[:5]}, {frame: 3, data: bad[5:]}},
			"[2:2]"},
	}
	for _, tt := range tests {
		var log stampLog
		s := wsSession(tt.midStream, log.yield)
		for _, st := range tt.steps {
			st.feed(s)
		}
		log.check(t, tt.name, s, tt.want)
	}
}

// checkHolding checks s.Holding() after step i of test name: want is the
// watermark, 0 for holding nothing.
func checkHolding(t *testing.T, name string, i int, s *Session, want uint64) {
	t.Helper()
	seq, ok := s.Holding()
	got, w := fmt.Sprint(ok), fmt.Sprint(want != 0)
	if ok {
		got = fmt.Sprint(seq)
	}
	if want != 0 {
		w = fmt.Sprint(want)
	}
	if got != w {
		t.Errorf("%s: Holding() after step %d = %s; want %s", name, i+1, got, w)
	}
}

// stampLog notes the frame:seq of each record a session yields.
type stampLog []string

func (l *stampLog) yield(r *Record, at Stamp) {
	*l = append(*l, fmt.Sprintf("%d:%d", r.Frame, at.Seq))
}

// check ends s at frame 9 and checks the records' frame:seq in test name.
func (l *stampLog) check(t *testing.T, name string, s *Session, want string) {
	t.Helper()
	s.End(Stamp{Frame: 9, Time: t0, Seq: 9})
	if fmt.Sprint(*l) != want {
		t.Errorf("%s: records (frame:seq) = %v; want %s", name, *l, want)
	}
}
