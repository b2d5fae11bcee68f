package rpc

import (
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// TestConvBound: past MaxConvs KCP conversations in a direction, the
// messages of the others get no frame stream (SECURITY.md "Bounds",
// ULinkRPC), with one warning.
func TestConvBound(t *testing.T) {
	s := New(testConn, Config{Transport: KCP, MaxConvs: 2})
	msg := wire(ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 1))
	for conv := uint32(1); conv <= 4; conv++ {
		for _, seg := range kcp.SplitMessage(conv, 0, msg, 0) {
			s.Datagram(dissect.C2S, kcp.EncodeSegment(nil, seg), stamp(int(conv), int(conv)))
		}
	}
	s.End(stamp(9, 100))
	if n := len(s.sides[dissect.C2S].convs); n != 2 || len(s.Records()) != 2 {
		t.Errorf("%d conv streams, %d records; want 2 and 2", n, len(s.Records()))
	}
	if !hasConnFinding(s.Findings(), "more than 2 conversations in c2s", 0) {
		t.Errorf("no conversation bound warning: %v", s.Findings())
	}
}

// TestQueueBound: while a direction resynchronises, the other's decoded
// frames wait unnumbered, at most maxQueued of them; past it they are
// released in the order they came.
func TestQueueBound(t *testing.T) {
	s := New(testConn, Config{MidStream: true})
	// Three client bytes that start no frame: the client direction stays
	// unsynchronised, holding them.
	s.Bytes(dissect.C2S, []byte{0, 0, 0}, stamp(1, 0))
	frame := wire(ulinkrpc.EncodePush(1, 1, nil))
	held := 0
	for i := range maxQueued + 10 {
		s.Bytes(dissect.S2C, frame, stamp(2+i, i))
		held = max(held, len(s.queue))
	}
	if held > maxQueued || held < maxQueued-1 || len(s.Records()) == 0 {
		t.Errorf("held up to %d frames, %d records released; want %d held at most (and reached) and the rest released", held, len(s.Records()), maxQueued-1)
	}
	s.End(stamp(maxQueued+20, maxQueued+20))
	if n := len(s.Records()); n != maxQueued+10 {
		t.Errorf("%d records at the end; want %d", n, maxQueued+10)
	}
}
