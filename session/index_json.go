package session

import (
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/payload"
)

// AppendJSONRange appends to dst the outputs.md `dump --json` lines (each
// record followed by a newline) of messages from..to that sel selects (nil
// selects all), in order, and returns the extended buffer. The bytes are
// those of Detail(n).AppendJSON for each message, but the decoding, spans,
// findings and listener of one message are kept in buffers the next one
// reuses, so a long range allocates little more than the summaries
// (issue 7: a million records in seconds). A selector that needs only the
// index record (Selector.HeadOnly) rejects messages before their bytes are
// read. Messages past Len are not there; the read lock is taken per
// message, so a feed is not held up. Several goroutines may encode ranges
// of one Index at once.
func (c *Index) AppendJSONRange(dst []byte, from, to int, sel Selector) []byte {
	var sc detailScratch
	headOnly := sel != nil && sel.HeadOnly()
	for n := max(from, 1); n <= to; n++ {
		if headOnly {
			h, ok := c.Head(n)
			if !ok {
				break
			}
			if !sel.MatchHead(h) {
				continue
			}
		}
		m := &sc.m
		if !c.detailInto(n, &sc, m, false, false) {
			break
		}
		if sel == nil || headOnly || sel.Match(m) {
			dst, _ = m.appendJSON(dst, sc.conn(m.Conn))
			dst = append(dst, '\n')
		}
	}
	return dst
}

// detailScratch is the storage detailInto reuses from message to message.
type detailScratch struct {
	m        Message
	rc       recordContext // the listener fromRecord sets
	spans    netpak.Spans
	d        unturned.Decoded
	data     []byte // bytes read back from the Store
	findings []dissect.Finding
	pay      payload.Scratch         // payload schema decoding (unturned/payload)
	conns    map[dissect.Conn][]byte // each connection's "conn" value, encoded once
	texts    texts                   // the summaries
}

// conn returns c encoded as a JSON string (appendConn), from the cache.
func (sc *detailScratch) conn(c dissect.Conn) []byte {
	if b, ok := sc.conns[c]; ok {
		return b
	}
	if sc.conns == nil {
		sc.conns = make(map[dissect.Conn][]byte)
	}
	b := appendConn(nil, c)
	sc.conns[c] = b
	return b
}

// detailInto is build(n, true) into m, using sc: the same Message, whose
// slices point into sc until the next call with sc; false when there is no
// message n. m is the caller's so that a JSONBatch has it filled in its own
// slot: filled in one place and copied whole to another, a Message stalled
// the store buffer on every record (issue 18). With later, a summary that
// needs only the listener and the message's ListenerLine is left to the
// encoder (Message.lineLater). With zero, m is zero already (a
// JSONBatch's next slot) and is not cleared first: only what is set is
// written.
func (c *Index) detailInto(n int, sc *detailScratch, m *Message, later, zero bool) bool {
	c.rlock()
	defer c.runlock()
	if n < 1 || n > c.nrec {
		return false
	}
	r := c.rec(int32(n - 1))
	if r.flags&recHosted != 0 {
		if !c.buildHostedInto(n, r, m, later, zero) {
			return false
		}
		m.origin, m.Origin = c.originOfRec(c.conns[r.conn], int32(n-1)), c.originNameOfRec(c.conns[r.conn], int32(n-1))
		m.Sight = c.sightOf(int32(n - 1))
		return true
	}
	cn := c.conns[r.conn]
	var (
		data []byte
		err  error
		d    = &sc.d
		// spans holds the fields: sc's, or those of commit's decoding
		// (its entry's of streamState.waiting).
		spans = &sc.spans
		// lazy: the fields are left to the JSONBatch's encoder.
		lazy bool
		st   unturned.State
	)
	if p := c.prepared(int32(n - 1)); p != nil && p.spans != nil {
		// In a Stream's Settled: commit's decoding (stream.go).
		data, d, spans = p.data, p.d, p.spans
	} else if p != nil && later && c.fieldsLater(p) {
		// Commit's decoding, without spans: the encoder decodes the
		// fields from the bytes (JSONBatch.fields), off this goroutine.
		data, d, lazy, st = p.data, p.d, true, p.st
	} else {
		if p != nil {
			// Commit's bytes, decoded without spans: again, for the
			// fields (its bytes may be kept nowhere else).
			data = p.data
		} else {
			data, err = c.loadInto(int32(n-1), &sc.data)
		}
		sc.spans.Reset()
		sc.d = unturned.Decoded{Findings: sc.d.Findings[:0]}
		unturned.Decode(c.profile, r.dir, r.state(), data, &sc.spans, d)
	}

	if !zero {
		// Cleared, then set: a literal is made whole and then copied.
		*m = Message{}
	}
	m.origin, m.Origin, m.Sight = c.originOfRec(cn, int32(n-1)), c.originNameOfRec(cn, int32(n-1)), c.sightOf(int32(n-1))
	m.N, m.Frame, m.Time, m.Conn = n, int(r.frame), time.Unix(0, c.timeOf(int32(n-1))).UTC(), cn.info.Conn
	m.Dir, m.Data, m.Enum, m.Kind = r.dir, data, d.Enum, d.Kind
	if lazy {
		m.fieldsLater, m.state = true, st
	} else if m.Fields = spans.List; m.Fields == nil {
		m.Fields = []netpak.Span{}
	}
	m.setKind(d)
	fs := append(sc.findings[:0], d.Findings...)
	if err != nil {
		fs = append(fs, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: termsafe.Escape(err.Error()), Bit: -1})
	}
	m.Findings = c.fromRecord(m, r, int32(n-1), d, &sc.rc, fs)
	if r.flags&recIDUndecided != 0 {
		sc.findings = m.Findings
		m.Summary = undecidedSummary(m, d)
		return true
	}
	decodePayload(c.schemas, m, d, c.profile, c.lateConn(cn), &sc.pay)
	sc.findings = m.Findings
	if !lazy {
		spans.List = m.Fields
	}
	if line, ok := d.ListenerLine(m.Listener); ok && later && !m.hasPayloadSummary() {
		// Made by the encoder (JSONBatch.AppendJSON).
		m.line, m.lineLater = line, true
		return true
	}
	if lazy && later && !m.hasPayloadSummary() {
		// Made by the encoder from its decoding (JSONBatch.fields).
		m.summaryLater = true
		return true
	}
	m.Summary = payloadSummary(m, sc.texts.of(d.AppendListenerSummary(sc.texts.buf, m.Listener), d.Kind.String()))
	return true
}
