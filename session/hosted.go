package session

import (
	"container/heap"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/usmnscope/usmnscope/decode"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// Connections of registered protocols hosted by the index (ULinkRPC's:
// issue 15, ulinkrpc.md): each one's decode.Conn hands its records to the
// index as its frames are decoded (decode.Config.Yield), and the index
// numbers them with the Unturned messages, by the arrival of each one's
// last byte across the whole capture (outputs.md "Ordering"). A stream
// that holds bytes while it resynchronises is a blocker like an Unturned
// direction (order.go). Every record gets an index record (recHosted) whose
// bytes are the decode.Record itself, kept in Index.hostedRecs, or for a
// record a full index keeps slim (hostedslim.go, decode.Keeper) its bytes
// and the index record, restored when read: Len, Stamp, Head, Message and
// Detail work for every n, and a Message of a hosted record carries it in
// Message.Rec. Pairing (ulinkrpc.md 5) runs as each record is numbered
// (decode.Conn.Numbered), so the asker is always numbered first. A Stream
// that hands no message out (`tables`) hosts light connections
// (decode.Config.Light): the records of one that reuses them
// (decode.Reuser) are read only as far as the tables go, kept only until
// handed out (streamLight) and then reused by the connection. What a
// protocol offers beyond decode.Conn (decode.Labeled, Budgeted, Tallied,
// Keeper, Reuser) is asked for once, at OpenConn.

// HostedConn is a connection of a registered protocol the index hosts
// (OpenConn): what the pipeline feeds its capture events through.
type HostedConn struct {
	c  *Index
	cn *connection
}

// OpenConn makes the index host a new connection cfg.Conn of protocol p
// (decode.Protocol.New makes its state; cfg.Yield and cfg.Light are the
// index's). It is listed among the connections from now on, with
// ConnInfo.Proto set (and ConnInfo.Label and EmptyTables when its
// protocol gives them). Unturned bytes are never fed to it: events for its
// key that reach the index (after the router forgot the flow) make an
// Unturned connection of their own. Lookups by key (Tables, ConnFindings)
// find the Unturned connection of the key first, then its first hosted
// one.
func (c *Index) OpenConn(p *decode.Protocol, cfg decode.Config) *HostedConn {
	c.lock()
	defer c.unlock()
	conn := cfg.Conn
	cn := newConnection(uint32(len(c.conns)), conn, RuleUnknown)
	cn.info.Proto = p.Name
	c.newConnOrigin(cn)
	if c.hostedByConn == nil {
		c.hostedByConn = map[dissect.Conn]uint32{}
	}
	if _, ok := c.hostedByConn[conn]; !ok {
		c.hostedByConn[conn] = cn.idx
	}
	c.conns = append(c.conns, cn)
	c.touch(cn)
	cfg.Yield = func(r decode.Record, at decode.Stamp) { c.arriveHosted(cn, r, at.Seq) }
	// A Stream that hands no message out (tables: Stream.Settled nil)
	// reads nothing of a record but its tables: light sessions decode no
	// more than those (decode.Config.Light; ULinkRPC's: issue 15).
	cfg.Light = c.stream != nil && c.stream.Settled == nil
	cfg.Lazy = c.stream != nil && c.stream.Lazy
	cn.proto = p.New(cfg)
	cn.feed = cn.proto
	if b, ok := cn.proto.(decode.Budgeted); ok {
		cn.budget = true
		if m := b.BudgetMax(); m > 0 && c.hostedWaitMax == 0 {
			c.hostedWaitMax = m
		}
	}
	if l, ok := cn.proto.(decode.Labeled); ok {
		cn.info.Label = l.Label()
	}
	if t, ok := cn.proto.(decode.Tallied); ok {
		cn.tally = t
		cn.info.EmptyTables = t.Empty()
	}
	cn.reuse, _ = cn.proto.(decode.Reuser)
	cn.light = cfg.Light && cn.reuse != nil
	if k, ok := cn.proto.(decode.Keeper); ok {
		cn.keeper = k
		if c.stream == nil {
			// A full index keeps every record for good: compact, decoded
			// again when shown (readable, decode.Keeper.Expand; issue 28).
			k.KeepCompact()
			cn.compact = true
		}
	}
	return &HostedConn{c: c, cn: cn}
}

// lookup finds conn's connection by key: the Unturned one, else the first
// hosted one (OpenConn).
func (c *Index) lookup(conn dissect.Conn) (*connection, bool) {
	i, ok := c.byConn[conn]
	if !ok {
		i, ok = c.hostedByConn[conn]
	}
	if !ok {
		return nil, false
	}
	return c.conns[i], true
}

// TablesOf is Tables of the i-th connection of Connections (from 0): for
// a key that names both an Unturned and a ULinkRPC connection, each its
// own. Nil for no such connection.
func (c *Index) TablesOf(i int, asOf int) *Tables {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if i < 0 || i >= len(c.conns) {
		return nil
	}
	return c.tablesOf(c.conns[i], asOf)
}

// Conn is the connection's state.
func (h *HostedConn) Conn() decode.Conn { return h.cn.proto }

// Feed runs one capture event of the connection, captured at t in frame:
// feed calls the connection's Bytes, Gap, Datagram or End with the stamp
// it is given, which carries the event's arrival sequence.
func (h *HostedConn) Feed(t time.Time, frame int, feed func(decode.Stamp)) {
	h.FeedAt(t, frame, -1, feed)
}

// FeedAt is Feed for an event whose bytes are one run of the capture file
// from offset off (capture.Event.Offset; -1 for none): for a full index
// with the file (SetStore) the stamp says so (decode.Stamp.File), so that
// it may point at a frame's bytes there instead of keeping them.
func (h *HostedConn) FeedAt(t time.Time, frame int, off int64, feed func(decode.Stamp)) {
	c, cn := h.c, h.cn
	c.lock()
	defer c.unlock()
	c.touch(cn)
	c.seen(cn, t)
	cn.lastFrame = max(cn.lastFrame, frame)
	// Only a full index keeps records for good (a Stream's are printed
	// and dropped): only its frames need their file offsets.
	in := off >= 0 && c.store != nil && c.stream == nil
	feed(decode.Stamp{Frame: frame, Time: t, Seq: c.advance(), File: max(off, 0), InFile: in})
	c.hostedEvent(cn)
}

// End ends the connection at the end of the capture, captured last at t in
// frame (its ConnInfo.Last stays that of its own last event).
func (h *HostedConn) End(t time.Time, frame int) {
	c, cn := h.c, h.cn
	c.lock()
	defer c.unlock()
	c.touch(cn)
	cn.proto.End(decode.Stamp{Frame: frame, Time: t, Seq: c.advance()})
	c.hostedEvent(cn)
}

// hostedEvent follows what an event did to a ULinkRPC connection: its new
// findings, whether it blocks numbering, what may be numbered now.
func (c *Index) hostedEvent(cn *connection) {
	c.hostedSync(cn)
	c.release()
}

// hostedSync takes a ULinkRPC connection's new findings and blocking state.
func (c *Index) hostedSync(cn *connection) {
	fs := cn.proto.Findings()
	for _, f := range fs[cn.hostedFindings:] {
		if f.Info {
			// Listed, but not the connection's worst (decode.ConnFinding).
			cn.info.Findings = c.keepFinding(cn.info.Findings, &cn.info.Suppressed, f.Finding, "connection")
			continue
		}
		c.connFinding(cn, f.Finding)
	}
	cn.hostedFindings = len(fs)
	c.block(cn)
}

// arriveHosted numbers a record now, or queues it (order.go arrive).
func (c *Index) arriveHosted(cn *connection, r decode.Record, seq uint64) {
	// Where it was seen is asked now, while the event that completed it
	// is the one being fed (HostedSight).
	sg := c.hostedSight(cn, r)
	if len(c.pending) == 0 && len(c.blockers) == 0 && len(c.holds) == 0 {
		c.messageHosted(cn, r, sg)
		return
	}
	c.pins++
	m := decode.GlanceOf(r)
	c.pendingBytes += m.Size
	heap.Push(&c.pending, pendingMsg{seq: seq, ins: c.pins, cn: cn, rec: r, sight: sg})
}

// messageHosted numbers and records one hosted record: the connection names
// and pairs it, the index keeps it under its number; sg is where it was
// seen (several captures), nil for none.
func (c *Index) messageHosted(cn *connection, r decode.Record, sg *Sight) {
	n := c.nrec + 1
	if c.stream != nil {
		c.streamAsOfHosted(cn, n)
	}
	cn.proto.Numbered(r, n)
	m := decode.GlanceOf(r)
	off, where, placed := c.hostedBytes(cn, r)
	i, rec := c.add(recHosted|where, off, m.Time.UnixNano())
	rec.frame, rec.length, rec.conn, rec.dir = int32(m.Frame), uint16(min(m.Len, 0xFFFF)), cn.idx, m.Dir
	if sg != nil {
		c.multi.sights[i] = sg
	}
	for _, f := range m.Findings {
		rec.worst = max(rec.worst, uint8(f.Severity)+1)
	}
	light := cn.light
	rec.idBits |= placed
	slim := !light && c.slimHosted(cn, i, r, &m)
	if !light && !slim {
		c.keepHosted(cn, i, r, m.Size)
	}
	if c.stream == nil && m.Pair != 0 && m.Pair < n {
		c.pairedHosted(n, m.Pair) // the answer of a pair (hostedslim.go)
	}
	cn.info.Messages++
	cn.info.Bytes[m.Dir&1] += int64(m.Wire)
	cn.committed++
	if rec.worst > 0 && (!cn.info.HasFinding || dissect.Severity(rec.worst-1) > cn.info.Worst) {
		cn.info.Worst, cn.info.HasFinding = dissect.Severity(rec.worst-1), true
	}
	if c.stream == nil {
		cn.msgs.append(i)
		if slim {
			c.slimmed(cn, r) // kept as its index record alone
		}
		return
	}
	if light {
		c.streamLight(cn, r, i, m.Size)
		return
	}
	if cn.proto.Waiting(r) {
		c.pushAsk(hostedAsk{cn, r, n})
	}
	s := c.stream
	if v := len(m.Data) + 2*m.Size; v <= math.MaxInt32 {
		s.sized[i%sizedRing] = sizedRec{i, int32(v)}
	}
	s.pre = preDecoded{i: -1}
	c.streamed(i)
}

// release hands r back to its protocol (decode.Releaser) once the index
// holds it no more: kept slim (its readers get records restored from its
// bytes, never r), or written by a stream's batch (JSONBatch.Reset).
func release(r decode.Record) {
	if rel, ok := r.(decode.Releaser); ok {
		rel.Release()
	}
}

// keepHosted keeps record i, cn's hosted record r of Meta.Size size, until
// it is handed out (a Stream) or for good. A Stream counts the size of a
// budgeted connection's in hostedWait, and keeps it in the index record's sid
// (used otherwise by a slim record alone, which a Stream never keeps) for
// emit to take off again.
func (c *Index) keepHosted(cn *connection, i int32, r decode.Record, size int) {
	if c.stream == nil {
		c.hostedRecs.full()
	}
	c.hostedRecs.put(i, r)
	if cn.budget && c.stream != nil {
		c.hostedWait += size
		c.rec(i).sid = uint32(size)
	}
}

// hostedWaitOver reports whether the records a Stream keeps until they are
// handed out hold more envelope bytes than the capture-wide ULinkRPC
// budget (max_rpc_buffer, decode.Budgeted): an asker then
// stops holding the records after it back (hostedBound), so that records
// waiting to be printed are bounded in bytes as well as in count (issue
// 29: 256 unanswered Requests each inflating to 1 MiB were all held, 300
// MB). The test reads only the capture's bytes: the same on every run.
func (c *Index) hostedWaitOver() bool { return c.hostedWait > c.hostedWaitLimit() }

// hostedWaitLimit is hostedWaitOver's bound: the first budgeted connection's
// (none counts bytes without one).
func (c *Index) hostedWaitLimit() int { return c.hostedWaitMax }

// streamLight hands out record i, a light connection's record r of
// Meta.Size size (OpenConn), when nothing before it waits: a light
// connection's askers never wait for their answers, as nothing prints
// them. Heads gets r itself (streamState.light). r goes back to its
// connection once handed out (decode.Reuser); one that waits behind
// another message (an Unturned one held for an inference) is kept until
// then (emit).
func (c *Index) streamLight(cn *connection, r decode.Record, i int32, size int) {
	s := c.stream
	s.light, s.lightRec = r, i
	s.pre = preDecoded{i: -1}
	c.streamed(i)
	s.light = nil
	if s.next > i {
		cn.reuse.Recycle(r)
		return
	}
	c.keepHosted(cn, i, r, size)
}

// appendConnJSON appends the `tables --json` entry of a hosted connection
// that keeps no tables of its own (not decode.Tallied): the neutral keys, the protocol's own
// (decode.Conn.AppendTablesJSON), the connection findings.
func appendConnJSON(dst []byte, cn *connection, messages int) []byte {
	c := cn.info.Conn
	dst = append(dst, `{"conn":`...)
	dst = termsafe.AppendJSONString(dst, c.String())
	dst = append(dst, `,"client":`...)
	dst = termsafe.AppendJSONString(dst, c.Client.String())
	dst = append(dst, `,"server":`...)
	dst = termsafe.AppendJSONString(dst, c.Server.String())
	dst = append(dst, `,"proto":`...)
	dst = termsafe.AppendJSONString(dst, cn.info.Proto)
	dst = append(dst, `,"messages":`...)
	dst = strconv.AppendInt(dst, int64(messages), 10)
	dst = cn.proto.AppendTablesJSON(dst)
	dst = append(dst, `,"findings":[`...)
	for i, f := range cn.proto.Findings() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = f.Finding.AppendJSON(dst)
	}
	return append(dst, "]}"...)
}

// hostedAsk is an asker a Stream waits on (hostedBound).
type hostedAsk struct {
	cn *connection
	r  decode.Record
	n  int // r's number
}

// pushAsk queues an asker in hostedAsks, which hostedBound takes from
// its front, clearing each slot it takes: the queue lies in one array
// (askArr, whose slots outside the queue are zero), and when it reaches
// the array's end it moves back to its start, or to a new array twice its
// length once it fills three quarters of it, so that it allocates only as
// it grows (a queue slid along its array, up to lateHold messages of
// askers long, reallocated every few askers: a fifth of the bytes `dump
// --json` of ULinkRPC allocated).
func (c *Index) pushAsk(a hostedAsk) {
	q := c.hostedAsks
	if len(q) == cap(q) {
		all := c.askArr[:cap(c.askArr)]
		from := 0 // where q starts in all
		if len(q) > 0 && len(all) > 0 && &all[len(all)-1] == &q[len(q)-1] {
			from = len(all) - len(q)
		}
		if len(all) == 0 || 4*len(q) > 3*len(all) || len(q) > 0 && from == 0 {
			all = make([]hostedAsk, 2*len(q)+16)
			from = -1
		}
		n := copy(all, q)
		if from >= 0 {
			clear(all[max(n, from) : from+n]) // where what moved down lay
		}
		c.askArr = all[:0]
		q = all[:n]
	}
	c.hostedAsks = append(q, a)
}

// hostedBound is the record index before which a Stream may hand messages
// out as far as ULinkRPC pairing goes: a Request or KeepAlivePing still
// unanswered is not final, since both messages of a pair carry `pair`
// (outputs.md "Pairing"). It waits at most lateHold messages, then is
// handed out as it is (its answer then carries the pair alone).
func (c *Index) hostedBound() int32 {
	for len(c.hostedAsks) > 0 {
		a := c.hostedAsks[0]
		if n := a.n; a.cn.proto.Waiting(a.r) && c.nrec-n < lateHold {
			if !c.hostedWaitOver() {
				return int32(n - 1)
			}
			if !a.cn.hostedWaitNoted {
				a.cn.hostedWaitNoted = true
				c.connFinding(a.cn, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Bit: -1,
					Text: fmt.Sprintf("pairing: %s #%d and the records after it were handed out before its answer: the records waiting for it held more than the capture-wide ULinkRPC budget of %d bytes (max_rpc_buffer); its answer carries the pair alone", decode.BriefOf(a.r).Name, n, c.hostedWaitLimit())})
			}
		}
		c.hostedAsks[0] = hostedAsk{}
		c.hostedAsks = c.hostedAsks[1:]
	}
	c.hostedAsks = nil
	return int32(c.nrec)
}

// hostedEnd ends the hosted sessions the pipeline has not ended, at the last
// time and frame each was fed (Finish).
func (c *Index) hostedEnd() {
	for _, cn := range c.conns {
		if cn.proto != nil {
			cn.proto.End(decode.Stamp{Frame: cn.lastFrame, Time: cn.info.Last, Seq: c.advance()})
			c.hostedEvent(cn)
		}
	}
}

// hostedFinish notes each hosted session's pending Requests once every record
// is numbered (Finish, after the last release).
func (c *Index) hostedFinish() {
	for _, cn := range c.conns {
		if cn.proto != nil {
			cn.proto.Finish()
			c.hostedEvent(cn)
		}
	}
}

// Record returns the hosted record numbered n, or nil when n is an
// Unturned message (or, streaming, no longer kept). It is the index's own
// (while the capture is fed, a Response may still set an asker's Pair),
// or for a record kept compact a whole copy (decode.Keeper.Expand).
func (c *Index) Record(n int) decode.Record {
	c.rlock()
	defer c.runlock()
	if n < 1 || n > c.nrec || c.rec(int32(n-1)).flags&recHosted == 0 {
		return nil
	}
	r := c.hostedRecord(int32(n-1), true)
	if cn := c.conns[c.rec(int32(n-1)).conn]; r != nil && cn.compact && cn.keeper.Compacted(r) {
		// Kept compact (a full index): whole, decoded again, a copy.
		r = cn.keeper.Expand(r)
	}
	return r
}

// readable is hosted record r of connection cn as a reader may hold it
// without the lock: r itself once its connection writes it no more (it
// waits for no answer: issue 28, the copy of every record was a quarter of
// the bytes `dump --json` allocated), else a copy (decode.Record.Clone), as
// the feeder may still pair it (or, a light record, reuse it). Nil for nil.
func (c *Index) readable(cn *connection, r decode.Record) decode.Record {
	if r == nil {
		return nil
	}
	if cn.compact && cn.keeper.Compacted(r) {
		return cn.keeper.Expand(r) // a copy, decoded again from its bytes
	}
	if cn.proto != nil && !cn.light && !cn.proto.Waiting(r) {
		return r
	}
	return r.Clone()
}

// buildHosted is build (Message, Detail) for a hosted record: the record in
// Message.Rec, its bytes as Data, its
// pairing, findings and dump line. Message.Rec is the record itself, or a
// copy for an asker the feeder may still pair (Pair) while the caller
// reads it without the lock, or a light record its session reuses (readable); the slices it shares are not
// written again once the record is numbered.
func (c *Index) buildHosted(n int, r *record) *Message {
	m := new(Message)
	if !c.buildHostedInto(n, r, m, false, true) {
		return nil
	}
	return m
}

// buildHostedInto is buildHosted into *out (detailInto: a batch's slot, no
// Message allocated a record); false when the record is not kept. With
// later, the dump line is left to the batch's encoder (recLineLater):
// `dump --json` never prints it. With zero, out is zero already
// (detailInto) and only what is set is written.
func (c *Index) buildHostedInto(n int, r *record, out *Message, later, zero bool) bool {
	var rr decode.Record
	if h := c.emitting(int32(n - 1)); h != nil && h.r != nil && !h.light && !h.open {
		// Being handed out, and no asker its connection still pairs
		// (emit): the record itself, as readable gives it.
		rr = h.r
	} else if rr = c.readable(c.conns[r.conn], c.hostedRecord(int32(n-1), true)); rr == nil {
		return false
	}
	m := decode.GlanceOf(rr)
	if !zero {
		// Cleared, then set: a literal is made whole and then copied.
		*out = Message{}
	}
	out.N, out.Frame, out.Time, out.Conn = n, int(r.frame), time.Unix(0, c.timeOf(int32(n-1))).UTC(), c.conns[r.conn].info.Conn
	out.Dir, out.Data, out.Rec, out.Pair, out.Latency, out.HasLatency = r.dir, m.Data, rr, m.Pair, m.Latency, m.HasLatency
	out.recLineLater, out.recSize = later, m.Size
	if len(m.Findings) > 0 || !zero {
		// A zero slot's Findings are nil already: its cache line is left
		// alone.
		out.Findings = append([]dissect.Finding(nil), m.Findings...)
	}
	if !later {
		out.Summary = rr.Line()
	}
	return true
}

// hostedTables is Tables for a hosted connection of a full index: for one
// that keeps tables (decode.Tallied), its tables at the end, else the connection's records up to asOf
// added up again.
func (c *Index) hostedTables(cn *connection, asOf int) *Tables {
	if asOf <= 0 || asOf > c.nrec {
		asOf = c.nrec
	}
	t := &Tables{Conn: cn.info.Conn, AsOf: asOf}
	if cn.tally == nil {
		k := 0
		for k < cn.msgs.len() && int(cn.msgs.at(k)) < asOf {
			k++
		}
		t.Messages = k
		return t
	}
	if cn.msgs.len() == 0 || int(cn.msgs.at(cn.msgs.len()-1)) < asOf {
		t.ProtoTable, t.Messages = cn.tally.Tables(), cn.proto.Len()
		return t
	}
	tl := cn.tally.Tally()
	k := 0
	for ; k < cn.msgs.len() && int(cn.msgs.at(k)) < asOf; k++ {
		if r := c.hostedRecord(cn.msgs.at(k), false); r != nil {
			tl.Add(r)
		}
	}
	t.ProtoTable, t.Messages = tl.Tables(k), k
	return t
}

// streamAsOfHosted keeps a ULinkRPC connection's table as of Stream.AsOf
// before message n, a later one, is added (streamAsOf), and notes the
// connections of a Cut at n (streamNumber).
func (c *Index) streamAsOfHosted(cn *connection, n int) {
	c.streamNumber(n)
	c.streamAsOf(cn, n)
}

// hostedLive is a hosted connection's table now, as of asOf.
func (c *Index) hostedLive(cn *connection, asOf int) *Tables {
	t := &Tables{Conn: cn.info.Conn, AsOf: asOf, Messages: cn.proto.Len()}
	if cn.tally != nil {
		t.ProtoTable = cn.tally.Tables()
	}
	return t
}

// hostedConnJSON is connection i's entry of `tables --json` when it is a
// hosted one (ULinkRPC's, outputs.md: "transport" and "rpc" instead of the
// listener keys), as of asOf; ok is false for an Unturned connection.
func (c *Index) hostedConnJSON(i int, asOf int) (json.RawMessage, bool) {
	c.rlock()
	defer c.runlock()
	cn := c.conns[i]
	if cn.proto == nil {
		return nil, false
	}
	if cn.tally == nil {
		t := c.tablesOf(cn, asOf)
		if t == nil {
			t = &Tables{Messages: cn.proto.Len()}
		}
		return appendConnJSON(nil, cn, t.Messages), true
	}
	t := c.tablesOf(cn, asOf)
	if t == nil || t.ProtoTable == nil {
		t = &Tables{ProtoTable: cn.tally.Tables()}
	}
	findings := -1
	if t.hostedCut {
		findings = t.hostedFindings
	}
	return cn.tally.AppendTablesJSONOf(nil, t.ProtoTable, findings), true
}

// hostedKept is what emit reads of record i's kept hosted record before
// it hands it out: whether hostedRecs holds one, and for a connection that
// takes its records back (decode.Reuser) the record, the bytes it counts
// in hostedWait (keepHosted), and whether it is light or an asker its connection
// holds open (and so still the index's to touch after).
type hostedKept struct {
	has         bool
	r           decode.Record
	size        int
	light, open bool
}

// keptHosted is hostedKept of record i.
func (c *Index) keptHosted(i int32) hostedKept {
	rr := c.hostedRecs.get(i)
	if rr == nil {
		return hostedKept{}
	}
	k := hostedKept{has: true}
	rec := c.rec(i)
	if cn := c.conns[rec.conn]; cn.reuse != nil {
		k.r, k.light = rr, cn.light
		k.open = !cn.light && cn.proto.Waiting(rr)
		if cn.budget {
			k.size = int(rec.sid)
		}
	}
	return k
}
