package session

import (
	"math"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// A full index keeps a ULinkRPC record as Unturned messages are kept
// (issue 28: a compact rpc.Record a frame held the TUI at about 1 KB a
// frame): the envelope bytes of a plain frame in the arena, and, for a
// record rpc.Session.Slim says is given again by them, nothing but its
// index record, whose unused fields hold the rest (rpcSlim). Such a
// record is restored (rpc.Session.Restore) when it is read: Message,
// Detail, Head, Tables as of a message. Records that are not slim (a
// transformed frame, one with findings, an asker still open) stay in
// Index.rpcRecs, their envelope aliasing the arena.

// Bits of a ULinkRPC index record's idBits (unused otherwise: its
// connection has no Unturned state).
const (
	// rpcPlaced: the envelope bytes are at the record's offset, length
	// bytes long: in the capture file with recFile, else in the arena.
	rpcPlaced uint8 = 1 << iota
	// rpcSlim: the record is not in rpcRecs; cid is its pair, sid and
	// tv the low and high halves of its stream offset.
	rpcSlim
	// rpcAnswer: a slim Response, which takes its asker's ids.
	rpcAnswer
)

// rpcBytes places the envelope of r, a hosted record just numbered, when
// a full index keeps it (no arena bound: Limits.MaxArena would drop bytes
// a slim record is restored from): a plain frame's by its offset in the
// capture file when it lies in one run of it (rpc.Record.FileOffset) and
// the index has the file (SetStore), else copied into the arena, r's
// envelope then pointing at the copy. It returns the file or arena
// offset and the record flag recFile for the file; where false, with 0,
// for a record kept otherwise.
func (c *Index) rpcBytes(r decode.Record) (off int64, flags recFlags, where bool) {
	rr, ok := r.(*rpc.Record)
	if !ok || c.noSlim || c.stream != nil || c.limits.MaxArena > 0 || rr.Light() || !rr.Compacted() ||
		rr.Envelope == nil || len(rr.Envelope) > 0xFFFF {
		return 0, 0, false
	}
	if f, ok := rr.FileOffset(); ok && c.store != nil && rr.Transform == nil && len(rr.Envelope) == rr.Len {
		return f, recFile, true
	}
	off = c.keep(rr.Envelope)
	b := c.arena[off/arenaChunk]
	o := int(off % arenaChunk)
	rr.Envelope = b[o : o+len(rr.Envelope) : o+len(rr.Envelope)]
	return off, 0, true
}

// slimRPC keeps record i, hosted record r of cn, as its index record alone
// when Restore gives it again (rpc.Session.Slim, and its time, frame and
// pairing as the index record gives them), and reports whether it did. An
// asker still waiting for its answer is not final: its answer slims it.
func (c *Index) slimRPC(cn *connection, i int32, r decode.Record) bool {
	rr, ok := r.(*rpc.Record)
	rec := c.rec(i)
	if !ok || rec.idBits&rpcPlaced == 0 || cn.rpc == nil || int(rec.length) != len(rr.Envelope) ||
		cn.proto.Waiting(r) || !cn.rpc.Slim(rr) {
		return false
	}
	n, t := int(i)+1, c.timeOf(i)
	if rr.N != n || int(rec.frame) != rr.Frame || !rr.Time.Equal(time.Unix(0, t)) || rr.Pair < 0 || rr.Pair > math.MaxUint32 {
		return false
	}
	switch {
	case rr.Pair != 0 && rr.Pair < n:
		if !rr.HasLatency || rr.Latency != time.Duration(t-c.timeOf(int32(rr.Pair-1))) {
			return false
		}
	case rr.HasLatency || rr.Latency != 0:
		return false
	}
	rec.cid, rec.sid, rec.tv = uint32(rr.Pair), uint32(rr.Offset), uint32(uint64(rr.Offset)>>32)
	rec.idBits |= rpcSlim
	if rr.Type == ulinkrpc.Response {
		rec.idBits |= rpcAnswer
	}
	return true
}

// rpcRecord is hosted record i as kept: from rpcRecs, or restored from
// its index record and arena bytes (a slim one), whole or, without whole,
// compact as rpcRecs would hold it; nil for none.
func (c *Index) rpcRecord(i int32, whole bool) decode.Record {
	if r := c.rpcRecs[i]; r != nil {
		return r
	}
	rec := c.rec(i)
	if rec.flags&recRPC == 0 || rec.idBits&rpcSlim == 0 {
		return nil
	}
	cn := c.conns[rec.conn]
	if cn.rpc == nil {
		return nil
	}
	// Bytes that cannot be read back (a capture file cut short under the
	// open TUI) are restored as far as they go, with the error as a
	// finding, as an Unturned message shows what its record kept.
	env, err := c.load(i, nil)
	t := c.timeOf(i)
	p := rpc.Place{N: int(i) + 1, Frame: int(rec.frame), Time: time.Unix(0, t).UTC(), Dir: rec.dir,
		Offset: int64(uint64(rec.tv)<<32 | uint64(rec.sid)), Pair: int(rec.cid), NoFindings: rec.worst == 0 && err == nil}
	if p.Pair != 0 && p.Pair < p.N {
		p.HasLatency, p.Latency = true, time.Duration(t-c.timeOf(int32(p.Pair-1)))
		if rec.idBits&rpcAnswer != 0 {
			if a, ok := c.rpcRecord(int32(p.Pair-1), false).(*rpc.Record); ok {
				p.Asker = &a.RPC
			}
		}
	}
	r := cn.rpc.Restore(env, p, whole || err != nil)
	if err != nil {
		r.Findings = append(r.Findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed,
			Text: termsafe.Escape(err.Error()), Bit: -1})
	}
	return r
}
