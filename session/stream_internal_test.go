package session

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// feedHeldTraffic feeds c a long capture in which connection B talks all
// along, from its handshake, while connections joined mid-stream come and
// go one after the other: each is held for its widening inference while
// B's messages, committed, wait behind it for their turn (order.go,
// infer.go). Nothing is in a store, so waiting messages keep their bytes
// in the arena.
func feedHeldTraffic(c *Index, joins int) {
	p := c.Profile()
	t0 := time.Unix(1000, 0)
	b := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:40000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	frame := 0
	data := func(conn dissect.Conn, v byte) {
		frame++
		c.DataAt(conn, dissect.C2S, []byte{0, 1, v}, t0.Add(time.Duration(frame)*time.Microsecond), frame, -1)
	}
	data(b, byte(p.DetectionMessage(dissect.C2S)))
	for j := range joins {
		a := dissect.Conn{Client: netip.AddrPortFrom(netip.MustParseAddr("10.0.1.2"), uint16(1000+j)), Server: b.Server}
		for range c.limits.InferWindow + 8 {
			data(a, 5) // PingResponse: not the detection message, so A is held
			data(b, 5)
			data(b, 5)
		}
		c.Close(a, t0, frame)
	}
	c.Finish()
}

// TestStreamReleases checks that a streaming Index hands out messages held
// behind an inference in order and the same as the full Index, and keeps
// only a few record and arena blocks however long the capture is.
func TestStreamReleases(t *testing.T) {
	const joins = 400 // 48,000 messages
	full := NewIndex(unturned.Default())
	feedHeldTraffic(full, joins)
	want := full.AppendJSONRange(nil, 1, full.Len(), nil)

	s := NewIndex(unturned.Default())
	var got []byte
	next, maxRecs, maxArena := 1, 0, 0
	s.SetStream(Stream{Spans: true, Settled: func(n int) error {
		if n != next {
			t.Fatalf("Settled(%d); want %d", n, next)
		}
		next++
		got = s.AppendJSONOne(got, n, nil)
		recs, arena := 0, 0
		for _, b := range s.recs {
			if b.recs != nil {
				recs++
			}
		}
		for _, b := range s.arena {
			if b != nil {
				arena++
			}
		}
		maxRecs, maxArena = max(maxRecs, recs), max(maxArena, arena)
		return nil
	}})
	feedHeldTraffic(s, joins)
	if next-1 != full.Len() || full.Len() != 1+joins*3*(full.limits.InferWindow+8) {
		t.Fatalf("Settled up to %d of %d messages", next-1, full.Len())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("stream dump --json differs from the Index's (%d bytes, want %d)", len(got), len(want))
	}
	if len(full.arena) < 4 {
		t.Fatalf("the full Index has %d arena blocks; want a test that fills several", len(full.arena))
	}
	if maxRecs > 2 || maxArena > 2 || len(s.extra) > 0 || len(s.big) > 0 {
		t.Errorf("stream kept up to %d record blocks and %d arena blocks, %d extra and %d big entries at the end; want at most 2, 2, 0, 0",
			maxRecs, maxArena, len(s.extra), len(s.big))
	}
	for _, cn := range s.conns {
		if cn.msgs.len() > 0 || unturnedOf(cn).Tables().Checkpoints() > 0 {
			t.Fatalf("stream kept %d message indices and %d checkpoints for %s", cn.msgs.len(), unturnedOf(cn).Tables().Checkpoints(), cn.info.Conn)
		}
	}
}

// TestStreamTalliesAskerAcrossBlocks: a Stream with Tallies hands a
// PingRequest out at its commit, before its answer. One that is the last
// record of a block releases the block; its answer, a block later, pairs
// without touching the released record, and the answer's tally carries
// the pair and latency that a full Index gives it.
func TestStreamTalliesAskerAcrossBlocks(t *testing.T) {
	p := unturned.Default()
	kind := func(dir dissect.Dir, k unturned.Kind) byte {
		for v := range uint32(64) {
			if p.Kind(dir, v) == k {
				return byte(v)
			}
		}
		t.Fatalf("no %v enum %s", k, dir)
		return 0
	}
	req, resp := kind(dissect.C2S, unturned.KindServerPingRequest), kind(dissect.S2C, unturned.KindClientPingResponse)
	conn := dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:40000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")}
	t0 := time.Unix(1000, 0)
	feed := func(c *Index) {
		frame := 0
		data := func(dir dissect.Dir, v byte) {
			frame++
			c.DataAt(conn, dir, []byte{0, 1, v}, t0.Add(time.Duration(frame)*time.Millisecond), frame, -1)
		}
		data(dissect.C2S, byte(p.DetectionMessage(dissect.C2S)))
		data(dissect.S2C, byte(p.DetectionMessage(dissect.S2C)))
		for c.Len() < recChunk-2 {
			data(dissect.C2S, req) // asked and answered at once
			data(dissect.S2C, resp)
		}
		data(dissect.S2C, resp) // unasked: to the last record but one
		data(dissect.C2S, req)  // record recChunk-1, the last of block 0
		data(dissect.C2S, 0)
		data(dissect.S2C, resp)
		c.Finish()
	}
	full := NewIndex(p)
	feed(full)
	answer := full.Len()
	wantPair, wantLat, wantHas := full.pairOf(full.rec(int32(answer-1)), int32(answer-1))
	if wantPair != recChunk || !wantHas {
		t.Fatalf("full index: answer %d pairs with %d (latency %v); want %d", answer, wantPair, wantHas, recChunk)
	}

	s := NewIndex(p)
	var got Tally
	s.SetStream(Stream{Tallies: true, Settled: func(n int) error {
		if n == answer && !s.TallyOf(n, &got) {
			t.Fatalf("no tally of %d", n)
		}
		return nil
	}})
	feed(s)
	if s.stream.freedRec < 1 {
		t.Fatalf("block 0 not released (%d released)", s.stream.freedRec)
	}
	if got.Pair != wantPair || got.Latency != wantLat || !got.HasLatency {
		t.Errorf("tally of the answer: pair %d, latency %v, %v; want %d, %v", got.Pair, got.Latency, got.HasLatency, wantPair, wantLat)
	}
}
