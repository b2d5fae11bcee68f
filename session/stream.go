package session

import (
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
)

// Stream turns an Index into a streaming decoder (issue 18) for the
// outputs that need no history: `dump`, `dump --json`, `tables --json`
// without --at and `tables --at N`. Each message is handed to Settled once
// it is final, in number order, and then forgotten: its index record, its
// findings and any bytes the Index copied are released, no per-connection
// message list or as-of checkpoint is kept, and the Index takes no lock
// (it must then have one goroutine: Settled runs on the feeder's, between
// events). What stays is per connection (tables, framers, inference
// windows) and the arrival-order queue (order.go), so memory is bounded by
// connections and buffers, not by messages.
//
// A message that is final when it is committed (the common case: nothing
// is held for an inference before it) is decoded once, with its spans when
// Spans is set, and Message, Detail and AppendJSONOne called from Settled
// give that decoding from the bytes the capture handed in, without reading
// or decoding them again. A message that has to wait (held for an
// inference, or after one that is) keeps its bytes as the Index always
// does and is decoded again when it is handed out.
//
// With payload schemas and late resolution on (SetSchemas, SetLateSchemas),
// a reference still waiting for its listener ID is not final, as Settled
// has it: it and every later message wait until the ID is defined, at
// most lateHold messages, so that its payload is handed out decoded with
// the listener's schema (issue 14 point 2). Every message then keeps its
// bytes until it is handed out (nothing can be handed out at its commit
// before its decoding says whether it waits), and Finish hands out what
// is still waiting.
//
// A message that asks (a PingRequest, a RequestServerListenerId: pairs.go)
// is not final either while an answer may still pair with it: it and
// every later message wait until it is answered, or until pair.Hold (4096)
// messages later nothing can answer it any more (then it is handed out
// without a pair; the full Index pairs by the same rule, so both agree).
// Its bytes are kept for that wait even when it was to be handed out at
// its commit. Without Settled nothing waits.
type Stream struct {
	// Settled, when not nil, is called with each message number, in
	// order, once the message is final. During the call Message(n),
	// Detail(n), Head(n) and AppendJSONOne(dst, n, sel) are valid for that
	// n; a Message's Data and Fields are valid only until it returns. An
	// error stops the calls (StreamErr returns it); decoding goes on.
	Settled func(n int) error
	// Heads, when not nil, is called with each message's Head (as
	// Index.Heads gives it: a hosted message's without its record) as it
	// is handed out, before Settled: a tally that needs no decoding (the
	// CLI's profile hint) costs no listener bookkeeping for an output
	// that prints nothing per message (tables). During the call
	// Message(n) is valid as in Settled, and *h only during the call.
	// Without Settled, a hosted message's h.Rec is its light record
	// (decode.Config.Light: for ULinkRPC its type, pairing and stamps, no
	// fields).
	Heads func(h *Head)
	// Quiet, when not nil, is called when the input went quiet (Index.Quiet,
	// internal/pipeline.FeedIdle), once what was final is handed out: the
	// consumer flushes its output.
	Quiet func()
	// Spans decodes each message with its field spans at commit, for
	// Detail and AppendJSONOne (dump -V, dump --json).
	Spans bool
	// Tallies says that Settled reads each message through TallyOf and
	// Head, and Detail or Message only now and then (`usmnscope stats`,
	// issue 26): commit then decodes as for a Stream that hands nothing
	// out, with no copy of the bytes and no decoding kept for later, and
	// a message that waits is read again from its kept bytes when handed
	// out. It holds no Unturned asker until its answer (a tally of the
	// asker needs nothing of it; the answer's carries the pair): an
	// asker's Message and Detail then have no pair. It needs Spans off.
	Tallies bool
	// Lazy says that Settled writes a hosted record mostly as JSON or as
	// its dump line (`dump --json`, plain `dump`: AppendJSONOne,
	// JSONBatch): its protocol may leave its fields and payload to be
	// decoded when the record is read, on the encoding goroutine
	// (decode.Config.Lazy, issue 28). The worst severity the index keeps
	// for a message (Head, a connection's Worst) then lacks what only
	// that later decoding finds (a payload's findings). Without Spans and
	// payload schemas, an Unturned message is decoded at commit without
	// its spans, and its fields and most summaries are left to the
	// JSONBatch's encoder, which decodes its bytes again (AddJSON).
	Lazy bool
	// AsOf > 0 keeps each connection's tables as of message AsOf, so that
	// Tables(conn, AsOf) answers `tables --at AsOf` after the end.
	AsOf int
	// Cut, with AsOf > 0, cuts the capture at message AsOf (issue 18:
	// `tables --at N` reads only the beginning): once AsOf is final
	// (handed out, in order) nothing later is handed out, Cut reports
	// true so that the feeder stops reading, and the Index answers as of
	// AsOf: Len is AsOf, Connections lists the connections seen when
	// AsOf was numbered, each as it was before its first later message
	// was numbered (messages, markers, widening, findings), and Tables
	// gives the tables and ping statistics as of AsOf. The feeder does
	// not call Finish after a cut: the end-of-capture findings (partial
	// messages, requests still pending at the end) are not made, as the
	// capture did not end there.
	Cut bool
}

// streamState is an Index's Stream and what streaming keeps.
type streamState struct {
	Stream
	next     int32 // record index of the next message to hand out
	err      error
	pre      preDecoded
	head     Head // Heads's, filled in place
	sc       detailScratch
	asOf     map[uint32]*Tables // per connection index: tables as of AsOf, taken before its first later message
	freedRec int                // record blocks before this one are released
	freeRecs [][]record         // released record blocks, for reuse
	// arenaLast is, per arena block, the last record index whose bytes it
	// holds: a block whose messages were all handed out is released.
	arenaLast []int32
	// late are the connections whose tables may queue an unresolved
	// reference, with payload schemas and late resolution on (lateBound);
	// inLate says which connection indices are in it.
	late   []*connection
	inLate map[uint32]bool
	// waiting keeps commit's decodings of the messages not handed out yet
	// (those behind an asker or a late resolution, and an asker): record
	// i, less than waitRing after next, in slot i mod waitRing.
	waiting [waitRing]*waitDecoded
	// spare is where the next message to hand out is decoded at its
	// commit: it goes at once unless it asks, so one entry, warm in the
	// cache, serves nearly every message (a slot of waiting a message
	// came round to only every waitRing messages; issue 26). One that
	// does not go at once takes its slot of waiting (settle).
	spare *waitDecoded
	// A Cut: cut is set once AsOf is handed out; cutConns is how many
	// connections there were when AsOf was numbered; info is each
	// connection's summary kept with its tables (keepAsOf).
	cut      bool
	cutConns int
	info     map[uint32]*ConnInfo
	// light is the light hosted record of index lightRec while it is
	// numbered (streamLight): Heads gets it as the Head's Rec.
	light    decode.Record
	lightRec int32
	// kept is emit's hostedKept of record keptAt (emitKept, emitkept.go).
	kept   hostedKept
	keptAt int32
	// sized is what a JSONBatch counts of each hosted record (its Data
	// and twice its Size: JSONBatch.Held), which messageHosted read of it
	// as it numbered it, for addHosted: record i's in slot i mod
	// sizedRing, while no later record took the slot.
	sized [sizedRing]sizedRec
}

// waitDecoded is commit's decoding of a message until it is handed out,
// with its own copy of the bytes and its own spans, whether it goes at
// once or waits: a message decoded again when handed out broke "each
// message decoded once" for a quarter of the messages of `dump --json`
// once pairs made askers wait (issue 18).
type waitDecoded struct {
	i     int32
	used  bool
	data  []byte
	st    unturned.State
	d     unturned.Decoded
	spans netpak.Spans
}

// waitRing is how far from the next message to hand out a message may be
// to keep its decoding; one further is decoded again when handed out. In
// the million-message scale capture none waits more than 16 behind: an
// asker's answer comes a few messages later.
const waitRing = 64

// waitEntry returns the cleared entry for record i, or nil when i is too
// far behind.
func (s *streamState) waitEntry(i int32) *waitDecoded {
	if i-s.next >= waitRing {
		return nil
	}
	slot := &s.waiting[i%waitRing]
	if i == s.next {
		slot = &s.spare
	}
	if *slot == nil {
		*slot = new(waitDecoded)
	}
	w := *slot
	if w.used {
		return nil // its message was not handed out: Settled failed
	}
	w.i, w.used = i, true
	return w
}

// waited returns the entry of record i, or nil.
func (s *streamState) waited(i int32) *waitDecoded {
	if w := s.spare; w != nil && w.used && w.i == i {
		return w
	}
	if w := s.waiting[i%waitRing]; w != nil && w.used && w.i == i {
		return w
	}
	return nil
}

// settle moves the spare entry, when its message was not handed out at
// its commit, to the message's slot of waiting, and that slot's free
// entry becomes the spare. After a cut (nothing is handed out any more)
// the slot may still be taken: the decoding is then dropped.
func (s *streamState) settle() {
	w := s.spare
	if w == nil || !w.used {
		return
	}
	slot := &s.waiting[w.i%waitRing]
	if *slot != nil && (*slot).used {
		w.used = false
		return
	}
	*slot, s.spare = w, *slot
}

// preDecoded is the decoding of record i that commit has just made, with
// the bytes it was decoded from (the caller's, valid during the commit).
type preDecoded struct {
	ok    bool
	i     int32
	data  []byte
	st    unturned.State // the state it was decoded in
	d     *unturned.Decoded
	spans *netpak.Spans // nil when decoded without spans
}

// SetStream makes c a streaming decoder (see Stream). Call it before the
// first event; an Index in stream mode keeps no history, so Tables
// answers only the end of the capture and Stream.AsOf, and Message and
// Detail only the message being handed to Settled.
func (c *Index) SetStream(s Stream) {
	c.stream = &streamState{Stream: s, asOf: map[uint32]*Tables{}, info: map[uint32]*ConnInfo{}}
	for k := range c.stream.sized {
		c.stream.sized[k].i = -1
	}
}

// StreamErr returns the first error Stream.Settled returned.
func (c *Index) StreamErr() error {
	if c.stream == nil {
		return nil
	}
	return c.stream.err
}

// lock and unlock take the write lock unless c streams (a streaming Index
// has no concurrent reader) or the feeder holds it for a batch.
func (c *Index) lock() {
	if c.stream == nil && !c.batched {
		c.mu.Lock()
	}
}

func (c *Index) unlock() {
	if c.stream == nil && !c.batched {
		c.mu.Unlock()
	}
}

// Batch takes the write lock of a full Index, which a reader may share
// (the TUI's), for the feeder calls up to EndBatch, which then take none
// of their own: a lock and unlock per event was 6% of the TUI's load
// (issue 18). Within a batch the feeder must call nothing that reads c
// and must not wait, for traffic or for the reader: readers wait for the
// batch. A streaming Index has no reader; Batch is then a no-op.
func (c *Index) Batch() {
	if c.stream == nil && !c.batched {
		c.mu.Lock()
		c.batched = true
	}
}

// EndBatch ends a Batch, if one is held.
func (c *Index) EndBatch() {
	if c.batched {
		c.batched = false
		c.mu.Unlock()
	}
}

// Streams reports whether c is a streaming Index (SetStream).
func (c *Index) Streams() bool { return c.stream != nil }

// rlock and runlock take the read lock unless c streams (Settled runs on
// the feeder's goroutine, between events).
func (c *Index) rlock() {
	if c.stream == nil {
		c.mu.RLock()
	}
}

func (c *Index) runlock() {
	if c.stream == nil {
		c.mu.RUnlock()
	}
}

// streamNow reports whether the message about to be numbered will be
// handed out as soon as it is committed, so that its bytes need no copy;
// waits says the connection will hold it for an inference (unturned.go's number).
func (c *Index) streamNow(waits bool) bool {
	s := c.stream
	// A ULinkRPC asker waiting for its answer (hostedBound) has a record
	// index below c.nrec, so s.next is below it too.
	return s != nil && !waits && int32(c.nrec) == s.next && !c.lateOn()
}

// lateOn reports whether a reference unresolved at its commit is held
// until its ID is defined (payload schemas with late resolution, as
// Settled holds it): its bytes are then kept, as any message's may wait.
func (c *Index) lateOn() bool {
	return c.schemas != nil && !c.noLate
}

// noteLate notes that cn's tables hold an unresolved reference (lateBound).
func (c *Index) noteLate(cn *connection) {
	s := c.stream
	if !c.lateOn() || s.inLate[cn.idx] {
		return
	}
	if _, waiting := cn.native.FirstUnresolved(); !waiting {
		return
	}
	if s.inLate == nil {
		s.inLate = map[uint32]bool{}
	}
	s.inLate[cn.idx] = true
	s.late = append(s.late, cn)
}

// lateBound is the record index before which messages may be handed out
// as far as late resolution goes: with payload schemas, a reference still
// waiting for its listener ID is not final (Settled, issue 14 point 2); it
// waits at most lateHold messages, then is handed out as it is.
func (c *Index) lateBound() int32 {
	s := c.stream
	b := int32(c.nrec)
	k := 0
	for _, cn := range s.late {
		first, ok := cn.native.FirstUnresolved()
		if !ok {
			delete(s.inLate, cn.idx)
			continue
		}
		s.late[k] = cn
		k++
		if c.nrec-first < lateHold && int32(first-1) < b {
			b = int32(first - 1)
		}
	}
	clear(s.late[k:])
	s.late = s.late[:k]
	return b
}

// decodeCommit decodes record i for commit, in state st, from msg or from
// where its record says its bytes are; a streaming Index keeps the result
// for Settled (with spans when Stream.Spans).
func (c *Index) decodeCommit(i int32, dir dissect.Dir, st unturned.State, msg []byte) *unturned.Decoded {
	s := c.stream
	if s == nil {
		return c.decodeRec(i, dir, st, msg)
	}
	if msg == nil {
		msg = c.feederBytes(i)
	}
	// A message that Settled is handed is decoded once, into its entry of
	// s.waiting, with its own copy of the bytes and its spans when
	// Stream.Spans, whether it goes at its commit (every one before it
	// went) or waits (behind an asker, or an asker itself), and handed
	// out from there. One more than waitRing behind the next to go is
	// decoded without spans now and again when handed out.
	if s.Settled != nil && !s.Tallies {
		if w := s.waitEntry(i); w != nil {
			return c.decodeWaiting(w, i, dir, st, msg)
		}
	}
	c.dec = unturned.Decoded{Findings: c.dec.Findings[:0]}
	unturned.Decode(c.profile, dir, st, msg, nil, &c.dec)
	// Field by field, not a literal copied whole (issue 18: the copy
	// stalled the store buffer on every message).
	s.pre.ok, s.pre.i, s.pre.data, s.pre.st, s.pre.d, s.pre.spans = false, i, msg, st, &c.dec, nil
	return &c.dec
}

// decodeWaiting is decodeCommit for a message that will wait to be handed
// out: decoded once, from its own copy of the bytes, into entry w.
func (c *Index) decodeWaiting(w *waitDecoded, i int32, dir dissect.Dir, st unturned.State, msg []byte) *unturned.Decoded {
	s := c.stream
	w.data, w.st = append(w.data[:0], msg...), st
	w.d = unturned.Decoded{Findings: w.d.Findings[:0]}
	w.spans.Reset()
	var spans *netpak.Spans
	if c.spansAtCommit() {
		spans = &w.spans
	}
	unturned.Decode(c.profile, dir, st, w.data, spans, &w.d)
	s.pre.ok, s.pre.i, s.pre.data, s.pre.st, s.pre.d, s.pre.spans = false, i, w.data, st, &w.d, spans
	return &w.d
}

// streamAsOf keeps cn's tables as of Stream.AsOf before message n, a later
// one, changes them: commits of one connection go in order, so they are
// then exactly the tables after its messages up to AsOf.
func (c *Index) streamAsOf(cn *connection, n int) {
	s := c.stream
	if s.AsOf > 0 && n > s.AsOf && s.asOf[cn.idx] == nil {
		c.keepAsOf(cn)
	}
}

// keepAsOf keeps cn's tables now as those as of Stream.AsOf, and for a
// Cut its summary too, with the messages counted as of AsOf: before its
// first message after AsOf is committed its widening is decided and its
// markers are those of its messages up to AsOf.
func (c *Index) keepAsOf(cn *connection) {
	s := c.stream
	var t *Tables
	if cn.proto != nil {
		t = c.hostedLive(cn, s.AsOf)
		t.hostedCut, t.hostedFindings = s.Cut, len(cn.proto.Findings())
	} else {
		t = c.nativeTables(cn, s.AsOf, cn.committed)
	}
	s.asOf[cn.idx] = t
	if !s.Cut {
		return
	}
	ci := cn.info
	ci.Messages = t.Messages
	ci.Findings = append([]dissect.Finding(nil), cn.info.Findings...)
	s.info[cn.idx] = &ci
}

// streamNumber is called before message n is numbered on cn: for a Cut,
// when n is AsOf, it notes how many connections were seen by then.
func (c *Index) streamNumber(n int) {
	if s := c.stream; s.Cut && n == s.AsOf {
		s.cutConns = len(c.conns)
	}
}

// cutHere makes the cut once message Stream.AsOf is handed out: every
// connection seen when it was numbered keeps its summary and tables as
// they are, unless kept already (a connection with later messages).
// Nothing after is handed out.
func (c *Index) cutHere() {
	s := c.stream
	s.cut = true
	for _, cn := range c.conns[:s.cutConns] {
		if s.asOf[cn.idx] == nil {
			c.keepAsOf(cn)
		}
	}
}

// Cut reports whether a Stream with Cut was cut at message AsOf: the
// feeder may stop reading (internal/pipeline.FeedRPC does).
func (c *Index) Cut() bool {
	return c.stream != nil && c.stream.cut
}

// cutConnections is Connections after a Cut (stream.go).
func (c *Index) cutConnections() []ConnInfo {
	s := c.stream
	out := make([]ConnInfo, s.cutConns)
	for i, cn := range c.conns[:s.cutConns] {
		out[i] = *s.info[cn.idx]
		out[i].Findings = append([]dissect.Finding(nil), out[i].Findings...)
	}
	return out
}

// streamed hands out record i, just committed, when every message before
// it was, and then every committed message after it.
func (c *Index) streamed(i int32) {
	s := c.stream
	bound := int32(c.nrec)
	if len(s.late) > 0 {
		bound = c.lateBound()
	}
	if len(c.hostedAsks) > 0 {
		bound = min(bound, c.hostedBound())
	}
	for !s.cut && s.next < bound && c.rec(s.next).flags&recHeld == 0 && !c.awaiting(s.next) {
		if s.next == i && s.pre.i == i && s.pre.d != nil {
			s.pre.ok = true // commit's decoding of i, just made
		}
		c.emit(s.next)
		s.pre.ok = false
		s.next++
	}
	s.pre = preDecoded{}
	s.settle()
	c.release18()
}

// streamEnd hands out what is left at Finish: the messages held back for
// a late resolution or a pair (none is held for an inference any more,
// and no asker can be answered).
func (c *Index) streamEnd() {
	s := c.stream
	s.pre = preDecoded{}
	for !s.cut && int(s.next) < c.nrec && c.rec(s.next).flags&recHeld == 0 {
		c.emit(s.next)
		s.next++
	}
	c.release18()
}

// emit hands record i to Heads and Settled and forgets what only it
// needed.
//
// A message that waited (an asker, or one behind it) is handed out from
// its entry of s.waiting, which is then the prepared decoding for Heads as
// for Settled: one that was to go at its commit (streamNow) has no bytes
// anywhere else, its record pointing at no arena block (issue 24: with
// every other message in the capture file, the arena had none, and the
// head's dropped check indexed it).
func (c *Index) emit(i int32) {
	s := c.stream
	var saved preDecoded
	w := s.waited(i)
	swapped := w != nil && (!s.pre.ok || s.pre.i != i)
	if swapped {
		saved = s.pre
		// Field by field, as decodeCommit sets it.
		s.pre.ok, s.pre.i, s.pre.data, s.pre.st, s.pre.d, s.pre.spans = true, i, w.data, w.st, &w.d, nil
		if c.spansAtCommit() {
			s.pre.spans = &w.spans
		}
	}
	// A hosted record is read before it is handed out, never after: the
	// batch that writes it may hand it back to its protocol (Release) at
	// once, for another frame.
	kept := c.emitKept(i)
	// Without its hosted record, as Index.Heads gives it: the tally
	// reads none, and a record still open would be copied for it.
	if s.Heads != nil && c.headOf(int(i)+1, &s.head, false) {
		if s.light != nil && s.lightRec == i {
			s.head.Rec = s.light
		}
		s.Heads(&s.head)
	}
	if s.Settled != nil && s.err == nil {
		s.err = s.Settled(int(i) + 1)
	}
	// The decoding of the message committed last stays the prepared one
	// for its own turn.
	if swapped {
		s.pre = saved
	}
	if w != nil {
		w.used = false
	}
	if s.Cut && int(i)+1 == s.AsOf {
		c.cutHere()
	}
	if c.multi != nil {
		delete(c.multi.sights, i) // handed out: a stream keeps nothing of it
	}
	r := c.rec(i)
	if r.flags&(recExtra|recBig|recHosted|recPaired) == 0 {
		return // the common case: nothing kept beside the record
	}
	if r.flags&recExtra != 0 {
		delete(c.extra, i)
	}
	if r.flags&recBig != 0 {
		delete(c.big, i)
	}
	c.unlink(r, i)
	if kept.has {
		c.hostedRecs.del(i)
	}
	if kept.r != nil {
		c.hostedWait -= kept.size
		switch cs := c.conns[r.conn].reuse; {
		case kept.light:
			cs.Recycle(kept.r) // a light record (streamLight): the connection's own
		case kept.open:
			cs.Shed(kept.r) // an asker open in its connection: a copy went out
		}
	}
}

// release18 releases the record blocks and arena blocks whose messages
// were all handed out.
func (c *Index) release18() {
	s := c.stream
	for s.freedRec < int(s.next)/recChunk {
		b := &c.recs[s.freedRec]
		if cap(b.recs) == recChunk {
			s.freeRecs = append(s.freeRecs, b.recs[:0])
		}
		b.recs = nil
		s.freedRec++
	}
	for c.arenaFirst < len(c.arena)-1 && c.arenaFirst < len(s.arenaLast) && s.arenaLast[c.arenaFirst] < s.next {
		c.arenaHeld -= int64(cap(c.arena[c.arenaFirst]))
		c.arena[c.arenaFirst] = nil
		c.arenaFirst++
	}
}

// newRecs returns an empty record block of capacity size, a released one
// when streaming.
func (c *Index) newRecs(size int) []record {
	if s := c.stream; s != nil && size == recChunk && len(s.freeRecs) > 0 {
		b := s.freeRecs[len(s.freeRecs)-1]
		s.freeRecs = s.freeRecs[:len(s.freeRecs)-1]
		return b
	}
	return make([]record, 0, size)
}

// kept notes that arena block k now holds the bytes of the record about to
// be added.
func (c *Index) kept(k int) {
	s := c.stream
	if s == nil {
		return
	}
	for len(s.arenaLast) <= k {
		s.arenaLast = append(s.arenaLast, -1)
	}
	s.arenaLast[k] = int32(c.nrec)
}

// prepared returns commit's decoding of record i while Settled runs for
// it, or nil.
func (c *Index) prepared(i int32) *preDecoded {
	if s := c.stream; s != nil && s.pre.ok && s.pre.i == i {
		return &s.pre
	}
	return nil
}

// streamTables is Tables for a streaming Index: the live tables at the end
// (asOf ≤ 0 or past the last message), or those kept for Stream.AsOf.
func (c *Index) streamTables(cn *connection, asOf int) *Tables {
	if asOf <= 0 || asOf > c.nrec {
		asOf = c.nrec
	}
	s := c.stream
	if asOf == s.AsOf {
		if t := s.asOf[cn.idx]; t != nil {
			cp := *t
			return &cp
		}
	} else if asOf != c.nrec {
		return nil // not kept: a streaming Index has no history
	}
	if cn.proto != nil {
		return c.hostedLive(cn, asOf)
	}
	return c.nativeTables(cn, asOf, cn.info.Messages)
}

// MayCut reports whether the Index streams with a Cut, so that its feeder
// may stop before the end of the input.
func (c *Index) MayCut() bool { return c.stream != nil && c.stream.Cut }
