package rpc

import (
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// kcpConv is the conversation of kcpSession's handshake.
const kcpConv = 7

// kcpSession is a KCP session past the client's UKCP (frame 0), so that
// conversation kcpConv starts at sn 0, handing its records to yield (nil:
// it keeps them).
func kcpSession(cfg Config, yield func(*Record, Stamp)) *Session {
	cfg.Transport, cfg.Yield = KCP, yield
	s := New(testConn, cfg)
	s.Datagram(dissect.C2S, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: kcpConv}), Stamp{Time: t0})
	return s
}

// kcpRequest is Request id's [length][frame] as conv's PUSH segments from
// sn on, of at most mss data bytes each (0: one segment).
func kcpRequest(conv, id, sn uint32, mss int) []kcp.Segment {
	return kcp.SplitMessage(conv, sn, wire(ulinkrpc.EncodeRequest(id, 1, 1, nil)), mss)
}

// kcpStep is one event of a KCP session, in frame frame with seq frame: a
// client datagram of segs, or a host's Abandon (abandon).
type kcpStep struct {
	frame   int
	segs    []kcp.Segment
	abandon bool
}

func (st kcpStep) feed(s *Session) {
	if st.abandon {
		s.Abandon()
		return
	}
	var dg []byte
	for _, seg := range st.segs {
		dg = kcp.EncodeSegment(dg, seg)
	}
	s.Datagram(dissect.C2S, dg, Stamp{Frame: st.frame, Time: t0, Seq: uint64(st.frame)})
}

// TestHoldingKCP (ulinkrpc.md 2.3, outputs.md "Ordering"): a KCP side
// holds numbering exactly while its reassembler holds segments behind a
// missing sn, which may yet complete messages that arrived before whatever
// comes meanwhile, with the watermark of the earliest datagram that brought
// one of them: not past a gap that fills, Abandon, or a skip of a gap
// behind which too much is held. Holding after each step; 0 for not
// holding.
func TestHoldingKCP(t *testing.T) {
	r := func(id, sn uint32) []kcp.Segment { return kcpRequest(kcpConv, id, sn, 0) }
	frags := kcpRequest(kcpConv, 1, 0, 8)
	tests := []struct {
		name  string
		lim   kcp.Config
		steps []kcpStep
		want  []uint64
	}{
		{"a segment behind a missing sn is held from its datagram", kcp.Config{},
			[]kcpStep{{frame: 2, segs: r(1, 1)}, {frame: 3, segs: r(2, 2)}, {frame: 4, segs: r(3, 0)}},
			[]uint64{2, 2, 0}},
		{"the watermark follows the earliest datagram still held", kcp.Config{},
			[]kcpStep{{frame: 2, segs: r(1, 1)}, {frame: 3, segs: r(2, 3)}, {frame: 4, segs: r(3, 0)}},
			[]uint64{2, 2, 3}},
		{"the earliest of every conversation", kcp.Config{},
			// Conversation 8 has no handshake: it starts at the first sn
			// seen, 5, and holds sn 7 behind the missing sn 6.
			[]kcpStep{{frame: 2, segs: r(1, 1)}, {frame: 3, segs: kcpRequest(8, 1, 5, 0)}, {frame: 4, segs: kcpRequest(8, 2, 7, 0)}, {frame: 5, segs: r(2, 0)}},
			[]uint64{2, 2, 2, 4}},
		{"a retransmission keeps its first datagram", kcp.Config{},
			[]kcpStep{{frame: 2, segs: r(1, 1)}, {frame: 3, segs: r(1, 1)}},
			[]uint64{2, 2}},
		{"Abandon lets them go at once", kcp.Config{},
			[]kcpStep{{frame: 2, segs: r(1, 1)}, {abandon: true}, {frame: 4, segs: r(2, 0)}},
			[]uint64{2, 0, 0}},
		{"a gap skipped for too much held lets them go", kcp.Config{MaxSegments: 2},
			[]kcpStep{{frame: 2, segs: r(1, 1)}, {frame: 3, segs: r(2, 2)}, {frame: 4, segs: r(3, 3)}},
			[]uint64{2, 2, 0}},
		{"messages handed on into a resynchronising stream", kcp.Config{MaxSegments: 1},
			// Two held segments skip the gap before sn 1: its message (of
			// frame 3) starts the frame stream's resynchronisation, which
			// holds it and then sn 2's (of frame 2, arriving with frame 3
			// behind it in sn order: issue 24) until a third frame.
			[]kcpStep{{frame: 2, segs: r(1, 2)}, {frame: 3, segs: r(2, 1)}},
			[]uint64{2, 3}},
		{"segments in order hold nothing", kcp.Config{},
			[]kcpStep{{frame: 2, segs: r(1, 0)}, {frame: 3, segs: r(2, 1)}},
			[]uint64{0, 0}},
		{"a message cut after its first fragment holds nothing", kcp.Config{},
			// Its next fragment comes later than anything meanwhile.
			[]kcpStep{{frame: 2, segs: frags[:1]}, {frame: 3, segs: frags[1:]}},
			[]uint64{0, 0}},
	}
	for _, tt := range tests {
		s := kcpSession(Config{KCP: tt.lim}, nil)
		for i, st := range tt.steps {
			st.feed(s)
			checkHolding(t, tt.name, i, s, tt.want[i])
		}
	}
}

// TestKCPHeldStamps (ulinkrpc.md 2.3, outputs.md "Ordering"): a message
// whose segments the reassembler held arrives with the datagram after
// which it can be delivered: the one that fills the gap before it (issue
// 24: within a direction n follows stream order), or that brought the last
// of its own segments when that came later; at a skip for too much held,
// at Abandon, or at End (a host's End comes with its own newest seq, after
// other connections' later traffic) the latest of its own and its
// predecessors' datagrams. The records' frame:seq after the steps and End
// (frame 9).
func TestKCPHeldStamps(t *testing.T) {
	r := func(id, sn uint32) []kcp.Segment { return kcpRequest(kcpConv, id, sn, 0) }
	frags := kcpRequest(kcpConv, 1, 1, 8) // sn 1 on, sn 0 missing
	if len(frags) < 2 {
		t.Fatalf("kcpRequest(…, 8) = %d segments; want 2 or more", len(frags))
	}
	last := len(frags) - 1
	tests := []struct {
		name  string
		lim   kcp.Config
		steps []kcpStep
		want  string
	}{
		{"at End", kcp.Config{}, []kcpStep{{frame: 2, segs: r(1, 1)}},
			"[2:2]"},
		{"at Abandon", kcp.Config{}, []kcpStep{{frame: 2, segs: r(1, 1)}, {abandon: true}},
			"[2:2]"},
		{"once the gap fills", kcp.Config{}, []kcpStep{{frame: 2, segs: r(1, 1)}, {frame: 3, segs: r(2, 0)}},
			"[3:3 3:3]"},
		{"at a skip for too much held", kcp.Config{MaxSegments: 2},
			[]kcpStep{{frame: 2, segs: r(1, 1)}, {frame: 3, segs: r(2, 2)}, {frame: 4, segs: r(3, 3)}},
			"[2:2 3:3 4:4]"},
		{"into a resynchronising stream", kcp.Config{MaxSegments: 1},
			[]kcpStep{{frame: 2, segs: r(1, 2)}, {frame: 3, segs: r(2, 1)}},
			"[3:3 3:3]"},
		{"by the datagram of its last segment to come", kcp.Config{},
			[]kcpStep{{frame: 2, segs: frags[1:]}, {frame: 3, segs: frags[:1]}, {frame: 4, segs: r(2, uint32(2+last))}},
			"[3:3 4:4]"},
		{"a message left partial at Abandon ends with its next segment", kcp.Config{},
			[]kcpStep{{frame: 2, segs: frags[:last]}, {abandon: true}, {frame: 4, segs: frags[last:]}},
			"[4:4]"},
	}
	for _, tt := range tests {
		var log stampLog
		s := kcpSession(Config{KCP: tt.lim}, log.yield)
		for _, st := range tt.steps {
			st.feed(s)
		}
		log.check(t, tt.name, s, tt.want)
	}
}
