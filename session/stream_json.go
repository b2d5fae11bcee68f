package session

import (
	"time"
	"unsafe"

	"github.com/usmnscope/usmnscope/decode"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
)

// JSONBatch holds copies of settled messages, so that their `dump --json`
// records can be encoded on another goroutine while the feeder decodes on
// (issue 18: decoding and encoding overlap on two cores, handing over a
// batch at a time, not a message). Its Messages own their bytes, spans,
// findings and listener; span values and strings are immutable and shared.
type JSONBatch struct {
	msgs      []Message
	data      []byte
	spans     []netpak.Span
	findings  []dissect.Finding
	listeners []unturned.Listener
	ids       []uint32
	strs      []string
	conn      []uint32 // per message: its connection's index in the Index
	// later, per message, is a hosted record AddJSON left to the encoder
	// to make whole (addHosted): its slot holds Rec and the origin, and
	// the rest is made from the record when read (whole).
	later []hostedLater
	// connOf is each hosted connection's Conn by index, for the records
	// left to the encoder: set by the filler when it first adds one of the
	// connection's records, read by the encoder.
	connOf []dissect.Conn
	// conns is each connection's "conn" value, encoded once, by index: the
	// encoding goroutine's alone.
	conns [][]byte
	// rc is what the encoder spells once (recordCache): b's own, or
	// shared with the batches made with it (NewJSONBatches).
	rc    *recordCache
	texts texts  // the summaries the encoder makes (Message.lineLater)
	line  []byte // the summary being encoded (AppendJSON)
	// profile decodes the fields the Index left to the encoder
	// (Message.fieldsLater) into dec and sp, the encoder's.
	profile *unturned.Profile
	dec     unturned.Decoded
	sp      netpak.Spans
	// held counts the bytes the batch's messages hold (Held).
	held int
}

// hostedLater is what a JSONBatch keeps beside a hosted record's slot
// that AddJSON left to the encoder (addHosted): its number, and once the
// encoder made the slot whole, made.
type hostedLater struct {
	n           int32
	later, made bool
}

// NewJSONBatches returns n empty batches whose encoders share what they
// spell once (the keys and names records share, the fields of repeated
// short messages), so that it is spelled once for all, in memory that
// stays in the cache of the core that encodes them: one goroutine
// encodes them all (AppendJSON), one after another. A zero JSONBatch has
// its own.
func NewJSONBatches(n int) []*JSONBatch {
	rc := &recordCache{}
	bs := make([]*JSONBatch, n)
	for i := range bs {
		bs[i] = &JSONBatch{rc: rc}
	}
	return bs
}

// Len returns how many messages b holds.
func (b *JSONBatch) Len() int { return len(b.msgs) }

// Held is about the bytes b's messages hold, and so about those their
// JSON lines take (twice, in hex): each message's bytes, and a ULinkRPC
// record's envelope (up to max_inflate when gzip inflated it) counted
// twice, for its bytes and its fields' values. A stream hands a batch on
// by it too, so that records waiting to be printed are bounded in bytes,
// not only in count (issue 29: 256 gzip frames each inflating to 1 MiB
// made one 512-message batch and its JSON of 2.9 GB).
func (b *JSONBatch) Held() int { return b.held }

// Reset empties b, keeping its storage, once its messages are written:
// each hosted record goes back to its protocol (decode.Releaser), as the
// batch held the only reference (Index.readable). Messages of earlier
// fills keep the arrays they point into: a slice that grew left its old
// array to them, and a reset one is only written after they were encoded.
func (b *JSONBatch) Reset() {
	for i := range b.msgs {
		m := &b.msgs[i]
		// Written, and the batch's alone (readable): its protocol may
		// reuse it.
		release(m.Rec)
		// Cleared here, on the encoder's goroutine (render's JSONStream),
		// for next: of a slot left to the encoder and not made whole,
		// only what addHosted wrote (most of a ULinkRPC record's slot is
		// not touched from one fill to the next).
		if l := &b.later[i]; l.later && !l.made {
			m.Rec, m.origin, m.Origin, m.Sight = nil, nil, nil, nil
		} else {
			*m = Message{}
		}
	}
	b.held = 0
	b.msgs, b.data, b.spans, b.findings = b.msgs[:0], b.data[:0], b.spans[:0], b.findings[:0]
	b.listeners, b.ids, b.strs, b.conn, b.later = b.listeners[:0], b.ids[:0], b.strs[:0], b.conn[:0], b.later[:0]
}

// AddJSON copies message n into b when sel selects it (nil selects all),
// as AppendJSONOne would encode it. For a Stream's Settled.
func (c *Index) AddJSON(b *JSONBatch, n int, sel Selector) {
	var sc *detailScratch
	if s := c.stream; s != nil {
		sc = &s.sc
	} else {
		sc = &detailScratch{}
	}
	if sel != nil && sel.HeadOnly() {
		h, ok := c.Head(n)
		if !ok || !sel.MatchHead(h) {
			return
		}
		sel = nil
	}
	if sel == nil && n >= 1 && n <= c.nrec && c.rec(int32(n-1)).flags&recHosted != 0 {
		c.addHosted(b, n)
		return
	}
	m := b.next()
	b.profile = c.profile
	if !c.detailInto(n, sc, m, true, true) || sel != nil && !sel.Match(m) {
		*m = Message{} // the slots past the last are zero (next)
		b.msgs = b.msgs[:len(b.msgs)-1]
		return
	}
	b.own(m)
	b.held += len(m.Data)
	b.held += 2 * m.recSize
	b.conn = append(b.conn, c.rec(int32(n-1)).conn)
	b.later = append(b.later, hostedLater{})
}

// addHosted is AddJSON of hosted record n, unfiltered: its slot gets the
// record buildHostedInto would give it and its origin, and the encoder
// makes the rest from the record when it is read (whole), which
// `dump --json` never does (the record writes its own JSON). The feeder
// writes a cache line or two of the slot where it wrote most of it
// (issue 28: the feeding goroutine, numbering and pairing, is the one
// `dump --json` of ULinkRPC waits on).
func (c *Index) addHosted(b *JSONBatch, n int) {
	i := int32(n - 1)
	r := c.rec(i)
	var rr decode.Record
	if h := c.emitting(i); h != nil && h.r != nil && !h.light && !h.open {
		// Being handed out, and no asker its connection still pairs
		// (emit): the record itself, as readable gives it.
		rr = h.r
	} else if rr = c.readable(c.conns[r.conn], c.hostedRecord(i, true)); rr == nil {
		return
	}
	m := b.next()
	m.Rec = rr
	cn := c.conns[r.conn]
	if c.multi != nil {
		m.origin, m.Origin, m.Sight = c.originOfRec(cn, i), c.originNameOfRec(cn, i), c.sightOf(i)
	} else {
		m.origin = c.origin
	}
	if k := r.conn; int(k) >= len(b.connOf) || b.connOf[k] == (dissect.Conn{}) {
		for int(k) >= len(b.connOf) {
			b.connOf = append(b.connOf, dissect.Conn{})
		}
		// Once a connection: its Conn never changes.
		b.connOf[k] = cn.info.Conn
	}
	if sz := c.stream.sized[i%sizedRing]; sz.i == i {
		b.held += int(sz.bytes) // the sizes messageHosted read of the record
	} else {
		g := decode.GlanceOf(rr)
		b.held += len(g.Data) + 2*g.Size
	}
	b.conn = append(b.conn, r.conn)
	b.later = append(b.later, hostedLater{n: i + 1, later: true})
}

// whole makes slot i, a hosted record addHosted left to the encoder,
// what buildHostedInto makes of it (with later: its dump line left too),
// from its record: that record is not written once handed out (an asker
// still paired is a copy: Index.readable).
func (b *JSONBatch) whole(i int) {
	l := &b.later[i]
	if !l.later || l.made {
		return
	}
	l.made = true
	m := &b.msgs[i]
	g := decode.GlanceOf(m.Rec)
	m.N, m.Frame, m.Time, m.Conn = int(l.n), int(int32(g.Frame)), time.Unix(0, g.Time.UnixNano()).UTC(), b.connOf[b.conn[i]]
	m.Dir, m.Data, m.Pair, m.Latency, m.HasLatency = g.Dir, g.Data, g.Pair, g.Latency, g.HasLatency
	m.recLineLater, m.recSize = true, g.Size
	if len(g.Findings) > 0 {
		m.Findings = append([]dissect.Finding(nil), g.Findings...)
	}
}

// next returns a new last message slot for detailInto to fill, zero: the
// slots past the last are zero (Reset and AddJSON clear those they give
// back), so that the feeder writes only the fields it sets, most of a
// hosted record's 488-byte Message left alone (issue 28: clearing it was
// about 7 write misses a record on the feeder's core).
func (b *JSONBatch) next() *Message {
	if len(b.msgs) < cap(b.msgs) {
		b.msgs = b.msgs[:len(b.msgs)+1]
	} else {
		b.msgs = append(b.msgs, Message{})
	}
	return &b.msgs[len(b.msgs)-1]
}

// own points the slices of cp, filled by detailInto, at copies of their
// contents in b: they pointed into the decoder's scratch.
func (b *JSONBatch) own(cp *Message) {
	if cp.Rec != nil {
		// Already a copy (buildHosted): a Response that pairs an asker
		// handed out (Index.hostedBound) while the batch is encoded on
		// another goroutine writes the index's record, not this one.
		return
	}
	d0 := len(b.data)
	b.data = append(b.data, cp.Data...)
	cp.Data = b.data[d0:len(b.data):len(b.data)]
	if !cp.fieldsLater {
		s0 := len(b.spans)
		b.spans = append(b.spans, cp.Fields...)
		cp.Fields = b.spans[s0:len(b.spans):len(b.spans)]
		b.ownBytes(cp.Fields)
	}
	if cp.Payload != nil {
		// The payload's fields live in the decoder's scratch.
		p0 := len(b.spans)
		b.spans = append(b.spans, cp.Payload...)
		cp.Payload = b.spans[p0:len(b.spans):len(b.spans)]
		b.ownBytes(cp.Payload)
	}
	f0 := len(b.findings)
	b.findings = append(b.findings, cp.Findings...)
	cp.Findings = b.findings[f0:len(b.findings):len(b.findings)]
	if l := cp.Listener; l != nil {
		// Filled in place, not copied whole (Message and detailInto).
		b.listeners = append(b.listeners, unturned.Listener{})
		cl := &b.listeners[len(b.listeners)-1]
		cl.Resolved = l.Resolved
		cl.ClientID = b.id(l.ClientID)
		cl.ServerID = b.id(l.ServerID)
		cl.Version = b.id(l.Version)
		if l.Type != nil {
			b.strs = append(b.strs, *l.Type)
			cl.Type = &b.strs[len(b.strs)-1]
		}
		cp.Listener = cl
	}
}

// ownBytes copies the byte-block values of spans (a payload schema's
// bytes fields alias the message's bytes, which are the caller's only
// during Settled) into b.
func (b *JSONBatch) ownBytes(spans []netpak.Span) {
	for i := range spans {
		if v, ok := spans[i].Value.([]byte); ok && len(v) > 0 {
			d0 := len(b.data)
			b.data = append(b.data, v...)
			spans[i].Value = b.data[d0:len(b.data):len(b.data)]
		}
	}
}

// id copies *p into b, or gives nil for nil.
func (b *JSONBatch) id(p *uint32) *uint32 {
	if p == nil {
		return nil
	}
	b.ids = append(b.ids, *p)
	return &b.ids[len(b.ids)-1]
}

// AppendJSON appends the `dump --json` line of every message in b, in
// order, to dst.
func (b *JSONBatch) AppendJSON(dst []byte) []byte {
	if b.rc == nil {
		b.rc = &recordCache{}
	}
	for i := range b.msgs {
		m := &b.msgs[i]
		if m.Rec != nil {
			// Its own JSON: neither its "conn" value nor what addHosted
			// left to make is read.
			dst = append(m.Rec.AppendJSON(dst, m.recOrigin()), '\n')
			continue
		}
		k := b.conn[i]
		for int(k) >= len(b.conns) {
			b.conns = append(b.conns, nil)
		}
		conn := b.conns[k]
		if conn == nil {
			conn = appendConn(nil, m.Conn)
			b.conns[k] = conn
		}
		// A short message's fields and summary, which the Index left to
		// the encoder, are those of the same bytes before
		// (recordCache.fieldsOf).
		var memo *fieldsMemo
		if m.fieldsLater {
			memo = b.rc.fieldsOf(b.profile, m)
		}
		hit := memo != nil && memo.ok && (!m.summaryLater || memo.sumOK)
		if m.fieldsLater && !hit {
			// Decoded into b.sp, valid until the next: the message's
			// fields stay to be decoded for whoever reads it again.
			m.Fields = b.fields(m)
		}
		dst = m.appendJSONStart(dst, conn, b.rc)
		if memo != nil && memo.kindOK && memo.enum == m.Enum && memo.kind == m.Kind {
			dst = append(dst, memo.head...)
		} else {
			at := len(dst)
			dst = m.appendJSONKind(dst, b.rc)
			if memo != nil {
				memo.head, memo.kindOK, memo.enum, memo.kind = append(memo.head[:0], dst[at:]...), true, m.Enum, m.Kind
			}
		}
		switch {
		case m.summaryLater && hit:
			dst = append(dst, memo.sum...)
		case m.summaryLater || m.lineLater:
			// The summary is written where the record takes it and
			// escaped there only when it needs to be, not made a string
			// through the texts set (its map lookup was a fifth of this
			// encoding, issue 28) nor copied; Message makes the string.
			at := len(dst)
			dst = b.appendSummary(dst, m)
			if m.summaryLater && memo != nil {
				memo.sum, memo.sumOK = append(memo.sum[:0], dst[at:]...), true
			}
		case m.Summary != "":
			dst = append(dst, `,"summary":`...)
			dst = termsafe.AppendJSONString(dst, m.Summary)
		}
		if hit {
			dst = append(dst, memo.text...)
		} else {
			at := len(dst)
			dst, _ = m.appendFields(dst, b.rc)
			if memo != nil {
				memo.text, memo.ok = append(memo.text[:0], dst[at:]...), true
			}
		}
		dst = m.appendJSONTail(dst, b.rc)
		if m.fieldsLater {
			m.Fields = nil
		}
		dst = append(dst, '\n')
	}
	return dst
}

// appendSummary appends the "summary" key of m, which the Index left to
// the encoder (summaryLater, from the decoding fields just made, or
// lineLater): as appendJSONTime does for the same Summary.
func (b *JSONBatch) appendSummary(dst []byte, m *Message) []byte {
	start := len(dst)
	dst = append(dst, `,"summary":"`...)
	at := len(dst)
	plain := false
	if m.summaryLater {
		dst = b.dec.AppendListenerSummary(dst, m.Listener)
	} else {
		// Plain when its listener type is (ListenerLine.AppendTyped).
		esc := ""
		plain = true
		if l := m.Listener; l.Type != nil {
			esc, plain = b.rc.listenerType(*l.Type)
		}
		dst = m.line.AppendTyped(dst, m.Listener, esc)
	}
	switch {
	case len(dst) == at:
		return dst[:start]
	case plain || termsafe.JSONPlain(dst[at:]):
		return append(dst, '"')
	}
	b.line = append(b.line[:0], dst[at:]...)
	return termsafe.AppendJSONString(dst[:at-1], unsafe.String(unsafe.SliceData(b.line), len(b.line)))
}

// fields decodes the fields of m, which the Index left to the encoder
// (Message.fieldsLater), from its bytes in the state commit decoded it
// in, into b.dec: the same spans commit's decoding with spans would have
// given. They are b.sp's until the next call.
func (b *JSONBatch) fields(m *Message) []netpak.Span {
	b.decode(m, &b.sp)
	if b.sp.List == nil {
		return []netpak.Span{}
	}
	return b.sp.List
}

// Message returns the i-th message of b (0 ≤ i < Len) with its summary
// and fields made, as AppendJSON encodes it: for an exporter that writes
// the records in another form (usmnscope export's Parquet rows). The
// message is b's until Reset, and is read on the goroutine that encodes b.
func (b *JSONBatch) Message(i int) *Message {
	b.whole(i)
	m := &b.msgs[i]
	if !m.fieldsLater {
		return b.Brief(i)
	}
	// Kept in b.spans, which b's filler no longer appends to.
	s0 := len(b.spans)
	b.spans = append(b.spans, b.fields(m)...)
	m.Fields = b.spans[s0:len(b.spans):len(b.spans)]
	m.fieldsLater = false
	b.summary(m)
	return b.Brief(i)
}

// Brief is Message without the fields an Index left to the encoder
// (Message.fieldsLater): their Fields may be nil. For plain dump's lines,
// which print none.
func (b *JSONBatch) Brief(i int) *Message {
	b.whole(i)
	m := &b.msgs[i]
	if m.summaryLater {
		// Decoded without spans: the line needs no fields.
		b.decode(m, nil)
		b.summary(m)
	}
	if m.Rec != nil && m.recLineLater {
		m.Summary, m.recLineLater = m.Rec.Line(), false
	}
	if m.Rec == nil && m.lineLater {
		m.Summary = b.texts.of(m.line.Append(b.texts.buf, m.Listener), "")
		m.lineLater = false
	}
	return m
}

// decode decodes m's bytes into b.dec, with spans into sp when not nil,
// in the state commit decoded them in (Message.fieldsLater).
func (b *JSONBatch) decode(m *Message, sp *netpak.Spans) {
	if sp != nil {
		sp.Reset()
	}
	b.dec = unturned.Decoded{Findings: b.dec.Findings[:0]}
	unturned.Decode(b.profile, m.Dir, m.state, m.Data, sp, &b.dec)
}

// summary makes m's Summary, which the Index left to the encoder
// (Message.summaryLater), from b.dec, m's decoding.
func (b *JSONBatch) summary(m *Message) {
	if m.summaryLater {
		m.Summary = b.texts.of(b.dec.AppendListenerSummary(b.texts.buf, m.Listener), b.dec.Kind.String())
		m.summaryLater = false
	}
}

// spansAtCommit says whether commit decodes a message with its spans for
// Settled: with Stream.Spans, and for a Lazy stream when payload schemas
// decode the payloads at once (decodePayload extends the fields). A Lazy
// stream without them leaves the fields to whoever encodes the message
// (fieldsLater): the feeder's goroutine decodes each message once, without
// spans, as `tables` does (issue 28).
func (c *Index) spansAtCommit() bool {
	s := c.stream
	return s.Spans || s.Lazy && c.schemas != nil
}

// fieldsLater says whether detailInto, filling a JSONBatch, may leave the
// fields of a message commit decoded without spans (p) to the batch's
// encoder (Message.fieldsLater), which decodes them from the bytes again.
func (c *Index) fieldsLater(p *preDecoded) bool {
	s := c.stream
	return p.spans == nil && s.Lazy && !s.Spans && c.schemas == nil
}

// sizedRing is how many hosted records' sizes a Stream keeps (sized):
// as many as a record waits behind an asker at most (lateHold).
const sizedRing = lateHold

// sizedRec is a hosted record's index and the bytes a JSONBatch counts
// of it.
type sizedRec struct {
	i     int32
	bytes int32
}

// AppendJSONOne appends message n's `dump --json` line (AppendJSONRange)
// when sel selects it (nil selects all). From a Stream's Settled it reuses
// the commit's decoding and the stream's buffers; otherwise it is
// AppendJSONRange(dst, n, n, sel).
func (c *Index) AppendJSONOne(dst []byte, n int, sel Selector) []byte {
	s := c.stream
	if s == nil {
		return c.AppendJSONRange(dst, n, n, sel)
	}
	sc := &s.sc
	if sel != nil && sel.HeadOnly() {
		h, ok := c.Head(n)
		if !ok || !sel.MatchHead(h) {
			return dst
		}
		sel = nil
	}
	m := &sc.m
	if !c.detailInto(n, sc, m, false, false) {
		return dst
	}
	if sel == nil || sel.Match(m) {
		dst, _ = m.appendJSON(dst, sc.conn(m.Conn))
		dst = append(dst, '\n')
	}
	return dst
}
