package session

import (
	"math"
	"time"

	"github.com/usmnscope/usmnscope/decode"
)

// A full index keeps a hosted record whose connection is a decode.Keeper
// (ULinkRPC's) as Unturned messages are kept (issue 28: a compact
// rpc.Record a frame held the TUI at about 1 KB a frame): the bytes it is
// restored from (a ULinkRPC plain frame's envelope) in the arena, and, for
// a record Keeper.Slim says is given again by them, nothing but its index
// record, whose unused fields hold the rest (hostedSlim). Such a record is
// restored (Keeper.Restore) when it is read: Message, Detail, Head, Tables
// as of a message. Records that are not slim (a transformed frame, one
// with findings) stay in Index.hostedRecs, their bytes aliasing the arena.

// Bits of a hosted index record's idBits (unused otherwise: its
// connection has no Unturned state).
const (
	// hostedPlaced: the record's bytes (Keeper.Keep) are at the record's
	// offset, length bytes long: in the capture file with recFile, else in the arena.
	hostedPlaced uint8 = 1 << iota
	// hostedSlim: the record is not in hostedRecs; cid is its pair, sid and
	// tv the low and high halves of its stream offset.
	hostedSlim
	// hostedAnswer: a slim answer (a Response), which takes its asker's ids.
	hostedAnswer
	// hostedMasked: the bytes in the capture file are masked, the key 8
	// bytes before them (decode.Stamp.Masked; Index.load unmasks them).
	hostedMasked
)

// hostedBytes places the bytes of r, cn's hosted record just numbered, when
// a full index keeps it (no arena bound: Limits.MaxArena would drop bytes
// a slim record is restored from) and cn gives them (decode.Keeper.Keep):
// by their offset in the capture file when they lie in one run of it and
// the index has the file (SetStore), else copied into the arena, r's
// bytes then pointing at the copy (Keeper.Rebase). It returns the file or
// arena offset, the record flag recFile for the file, and the record's
// idBits hostedPlaced (with hostedMasked for masked bytes in the file);
// 0, 0, 0 for a record kept otherwise.
func (c *Index) hostedBytes(cn *connection, r decode.Record) (off int64, flags recFlags, bits uint8) {
	if !cn.compact || c.noSlim || c.stream != nil || c.limits.MaxArena > 0 {
		return 0, 0, 0
	}
	env, f, inFile, masked, ok := cn.keeper.Keep(r)
	if !ok {
		return 0, 0, 0
	}
	if inFile && c.store != nil && (!masked || f >= 8) {
		if masked {
			return f, recFile, hostedPlaced | hostedMasked
		}
		return f, recFile, hostedPlaced
	}
	off = c.keep(env)
	b := c.arena[off/arenaChunk]
	o := int(off % arenaChunk)
	cn.keeper.Rebase(r, b[o:o+len(env):o+len(env)])
	return off, 0, hostedPlaced
}

// slimHosted keeps record i, hosted record r of cn (its Brief m), as its
// index record alone when Restore gives it again (decode.Keeper.Slim, and
// its time, frame and pairing as the index record gives them), and
// reports whether it did. An asker still waiting for its answer is kept
// slim with no pair: its answer gives it one (pairedHosted), which is all
// that changes of it.
func (c *Index) slimHosted(cn *connection, i int32, r decode.Record, m *decode.Glance) bool {
	rec := c.rec(i)
	if rec.idBits&hostedPlaced == 0 || !cn.compact || int(rec.length) != len(m.Data) {
		return false
	}
	off, answer, ok := cn.keeper.Slim(r)
	if !ok {
		return false
	}
	n, t := int(i)+1, c.timeOf(i)
	if m.N != n || int(rec.frame) != m.Frame || !m.Time.Equal(time.Unix(0, t)) || m.Pair < 0 || m.Pair > math.MaxUint32 {
		return false
	}
	switch {
	case m.Pair != 0 && m.Pair < n:
		if !m.HasLatency || m.Latency != time.Duration(t-c.timeOf(int32(m.Pair-1))) {
			return false
		}
	case m.HasLatency || m.Latency != 0:
		return false
	}
	rec.cid, rec.sid, rec.tv = uint32(m.Pair), uint32(off), uint32(uint64(off)>>32)
	rec.idBits |= hostedSlim
	if answer {
		rec.idBits |= hostedAnswer
	}
	return true
}

// pairedHosted follows a full index's answer n to asker pair (numbered
// first): a slim asker takes its pair (the index record's cid), a kept
// one is final now and kept slim when it may be.
func (c *Index) pairedHosted(n, pair int) {
	i := int32(pair - 1)
	rec := c.rec(i)
	if rec.flags&recHosted == 0 {
		return
	}
	if rec.idBits&hostedSlim != 0 {
		rec.cid = uint32(n)
		return
	}
	a := c.hostedRecs.get(i)
	if a == nil {
		return
	}
	if g := decode.GlanceOf(a); c.slimHosted(c.conns[rec.conn], i, a, &g) {
		c.hostedRecs.del(i)
		c.slimmed(c.conns[rec.conn], a)
	}
}

// slimmed hands r, kept slim, back to its connection (decode.Reuser: to
// the session that reuses it for its next frame, instead of a pool shared
// by every goroutine), else to its protocol (release).
func (c *Index) slimmed(cn *connection, r decode.Record) {
	if cn.reuse != nil {
		cn.reuse.Recycle(r)
		return
	}
	release(r)
}

// hostedRecord is hosted record i as kept: from hostedRecs, or restored from
// its index record and arena bytes (a slim one), whole or, without whole,
// compact as hostedRecs would hold it; nil for none.
func (c *Index) hostedRecord(i int32, whole bool) decode.Record {
	return c.restoreHosted(i, whole, false)
}

// restoreHosted is hostedRecord; with brief, a slim record is restored for
// a reader of its name and protocol keys only (decode.Place.Brief).
func (c *Index) restoreHosted(i int32, whole, brief bool) decode.Record {
	if r := c.hostedRecs.get(i); r != nil {
		return r
	}
	rec := c.rec(i)
	if rec.flags&recHosted == 0 || rec.idBits&hostedSlim == 0 {
		return nil
	}
	cn := c.conns[rec.conn]
	if !cn.compact {
		return nil
	}
	// Bytes that cannot be read back (a capture file cut short under the
	// open TUI) are restored as far as they go, with the error as a
	// finding, as an Unturned message shows what its record kept.
	env, err := c.load(i, nil)
	t := c.timeOf(i)
	p := decode.Place{N: int(i) + 1, Frame: int(rec.frame), Time: time.Unix(0, t).UTC(), Dir: rec.dir,
		Offset: int64(uint64(rec.tv)<<32 | uint64(rec.sid)), Pair: int(rec.cid), NoFindings: rec.worst == 0 && err == nil, Err: err,
		Brief: brief}
	if p.Pair != 0 && p.Pair < p.N {
		p.HasLatency, p.Latency = true, time.Duration(t-c.timeOf(int32(p.Pair-1)))
		if rec.idBits&hostedAnswer != 0 {
			p.Asker = c.hostedRecord(int32(p.Pair-1), false)
		}
	}
	return cn.keeper.Restore(env, p, whole)
}
