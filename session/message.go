package session

import (
	"errors"
	"strconv"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/payload"
)

// Message is one decoded SystemSockets message.
type Message struct {
	N     int       // message number in the capture, from 1
	Frame int       // capture frame that completed the message, from 1
	Time  time.Time // capture time of that frame
	Conn  dissect.Conn
	Dir   dissect.Dir
	Data  []byte // the message bytes, without the 2-byte frame header

	Enum     unturned.Enum
	Kind     unturned.Kind          // outputs.md "msg" is Kind.String()
	Fields   []netpak.Span          // in wire order; nil when spans were not asked for
	Mode     unturned.NegotiateMode // NegotiateListenerDetails only (see ModeName)
	Listener *unturned.Listener     // for the two USMN messages

	PayloadBit  int // first bit of a USMN invoke payload
	PayloadBits int // its length, trailing pad bits included
	Summary     string
	Findings    []dissect.Finding

	// With a payload schema (schema.md, Index.SetSchemas): the payload's
	// fields with their bit spans (also at the end of Fields when spans
	// were asked for), and the names outputs.md gives as payload_message
	// and payload_method. Payload is nil when no schema applies.
	Payload        []netpak.Span
	PayloadMessage string
	PayloadMethod  string
	payloadTitle   string // the row summary's `Chat.Say`

	// With lineLater, Summary is left empty for whoever encodes the
	// message to make from line and Listener (Index.detailInto).
	line      unturned.ListenerLine
	lineLater bool
	// With fieldsLater, Fields is left for whoever encodes the message to
	// decode from Data in state (JSONBatch.fields, issue 28): the Index
	// decoded it without spans.
	fieldsLater bool
	state       unturned.State
	// summaryLater, with fieldsLater, leaves Summary for the encoder to
	// make from its decoding (the summary lineLater does not cover).
	summaryLater bool

	// Pairing (outputs.md "Pairing"): the partner's number, 0 for none;
	// Latency is set on the answering message of a pair only.
	Pair       int
	Latency    time.Duration
	HasLatency bool

	// recLineLater is lineLater for a hosted record (Rec): Summary is
	// Rec.Line(), made by whoever encodes the message (JSONBatch.Message).
	recLineLater bool
	// recSize is Rec's Meta.Size, the bytes it holds beside Data (a
	// ULinkRPC record's envelope), which a JSONBatch counts.
	recSize int
	// (Beside Pair and Rec, so that a hosted record's slot of a JSONBatch
	// is written in few cache lines: JSONBatch.next.)

	// Rec is the record when the message is a hosted protocol's
	// (ULinkRPC's too: outputs.md "ULinkRPC records"): decode.Record, the
	// neutral record; the Unturned fields above are then zero.
	Rec decode.Record

	// Origin, with several captures read as one, is the host and capture
	// the record came from (its "host" and "capture"); nil for one.
	Origin *Origin

	// Sight, for a connection several captures have, is where each saw
	// the message (docs/json.md "Several captures"); nil otherwise.
	Sight *Sight

	// origin is its Index's SetOrigin: the record's "host" and
	// "capture" keys, encoded.
	origin []byte
}

// Worst returns the highest severity among the message's findings and
// whether there is any.
func (m *Message) Worst() (dissect.Severity, bool) {
	var w dissect.Severity
	any := false
	for _, f := range m.Findings {
		if !any || f.Severity > w {
			w, any = f.Severity, true
		}
	}
	return w, any
}

// Message returns message n (from 1) without its field spans, or nil.
func (c *Index) Message(n int) *Message {
	c.rlock()
	defer c.runlock()
	return c.withOrigin(c.build(n, false))
}

// Stamp returns message n's connection and capture time from its index
// record alone, without decoding it again: for per-message indexes such as
// the TUI's, which need nothing else. ok is false when there is no n.
func (c *Index) Stamp(n int) (conn dissect.Conn, t time.Time, ok bool) {
	c.rlock()
	defer c.runlock()
	if n < 1 || n > c.nrec {
		return dissect.Conn{}, time.Time{}, false
	}
	r := c.rec(int32(n - 1))
	_, ns := c.where(int32(n - 1))
	return c.conns[r.conn].info.Conn, time.Unix(0, ns).UTC(), true
}

// Detail returns message n decoded again with its field spans, or nil.
func (c *Index) Detail(n int) *Message {
	c.rlock()
	defer c.runlock()
	return c.withOrigin(c.build(n, true))
}

// withOrigin sets m's origin (SetOrigin), when there is an m.
func (c *Index) withOrigin(m *Message) *Message {
	if m != nil {
		m.origin = c.origin
		if c.multi != nil && m.N >= 1 && m.N <= c.nrec {
			i := int32(m.N - 1)
			cn := c.conns[c.rec(i).conn]
			m.origin, m.Origin = c.originOfRec(cn, i), c.originNameOfRec(cn, i)
			m.Sight = c.sightOf(i)
		}
	}
	return m
}

// build decodes message n again from its stored bytes and State. Readers
// share the read lock, so it decodes into its own Decoded.
func (c *Index) build(n int, withSpans bool) *Message {
	if n < 1 || n > c.nrec {
		return nil
	}
	r := c.rec(int32(n - 1))
	if r.flags&recHosted != 0 {
		return c.buildHosted(n, r)
	}
	cn := c.conns[r.conn]
	st := r.state()
	var spans *netpak.Spans
	if withSpans {
		spans = &netpak.Spans{}
	}
	var d unturned.Decoded
	// In a Stream's Settled, commit's decoding (stream.go).
	p := c.prepared(int32(n - 1))
	var (
		data  []byte
		err   error
		owned bool // data is the Message's own: read from the file
	)
	switch {
	case p != nil && (!withSpans || p.spans != nil):
		data = p.data
	case p != nil:
		// Decoded without spans: its bytes (copied below, as the Message
		// may outlive Settled; they may be kept nowhere else) decoded
		// again for the fields.
		data, p = p.data, nil
	default:
		// Not in Settled: read again.
		p = nil
		data, err = c.load(int32(n-1), nil)
		owned = r.flags&recFile != 0
	}
	var dropped *droppedError
	if p == nil && !owned {
		data = append([]byte(nil), data...)
	}
	var m *Message
	if p != nil {
		d = *p.d
		if withSpans {
			spans = p.spans
		}
		m = newMessage(&d, r.dir, data, spans)
	} else if errors.As(err, &dropped) {
		// Nothing to decode again: what the index record kept is shown,
		// with the one finding that says why the rest is missing.
		d.Kind = r.kind
		m = newMessage(&d, r.dir, []byte{}, spans)
		m.Findings = append(m.Findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: err.Error(), Bit: -1})
	} else {
		unturned.Decode(c.profile, r.dir, st, data, spans, &d)
		m = newMessage(&d, r.dir, data, spans)
		if err != nil {
			m.Findings = append(m.Findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: termsafe.Escape(err.Error()), Bit: -1})
		}
	}
	_, t := c.where(int32(n - 1))
	m.N, m.Frame, m.Time, m.Conn = n, int(r.frame), time.Unix(0, t).UTC(), cn.info.Conn
	var rc recordContext
	m.Findings = c.fromRecord(m, r, int32(n-1), &d, &rc, m.Findings)
	switch {
	case dropped != nil:
		m.Summary = "(bytes no longer in memory)"
	case r.flags&recIDUndecided != 0:
		m.Summary = undecidedSummary(m, &d)
	default:
		decodePayload(c.schemas, m, &d, c.profile, c.lateConn(cn), nil)
		m.Summary = payloadSummary(m, summarize(m, &d))
	}
	return m
}

// newMessage builds a Message from a decoding, without capture context.
func newMessage(d *unturned.Decoded, dir dissect.Dir, data []byte, spans *netpak.Spans) *Message {
	m := &Message{Dir: dir, Data: data, Enum: d.Enum, Kind: d.Kind}
	if spans != nil {
		m.Fields = spans.List
		if m.Fields == nil {
			m.Fields = []netpak.Span{}
		}
	}
	m.setKind(d)
	m.Findings = append([]dissect.Finding(nil), d.Findings...)
	return m
}

// setKind copies what only some kinds carry: the negotiate mode's name and
// an invoke's payload range.
func (m *Message) setKind(d *unturned.Decoded) {
	if d.Kind == unturned.KindNegotiateListenerDetails {
		m.Mode = d.Negotiate.Mode
	}
	if d.Kind == unturned.KindInvokeMessageListener {
		m.PayloadBit, m.PayloadBits = d.PayloadBit, d.PayloadBits
	}
}

// summarize is the one-line summary: the decoder's, and for the two USMN
// messages the listener as the tables knew it, as in
// `srv#2 Sample.ChatListener v1 +def 88 payload bits`.
func summarize(m *Message, d *unturned.Decoded) string {
	var buf [160]byte
	return string(d.AppendListenerSummary(buf[:0], m.Listener))
}

// maxTexts bounds a texts set.
const maxTexts = 4096

// texts makes each distinct text a string once: a capture's summaries
// repeat (one listener, one payload size), and a string per message was a
// tenth of the feeding side of `dump --json` (issue 18). The set is emptied
// when it reaches maxTexts, so hostile input costs no more than a string
// per message. buf is a buffer to build the next text in.
type texts struct {
	buf []byte
	set map[string]string
}

// of returns b as a string, and keeps b's array as buf: known when b spells
// it (a message kind's name, which is the whole summary of a ping, half
// the messages of a game's traffic), else the set's one copy.
func (t *texts) of(b []byte, known string) string {
	t.buf = b[:0]
	if string(b) == known {
		return known
	}
	if s, ok := t.set[string(b)]; ok {
		return s
	}
	if t.set == nil || len(t.set) >= maxTexts {
		t.set = make(map[string]string)
	}
	s := string(b)
	t.set[s] = s
	return s
}

// undecidedSummary is the summary of a message whose server ID was read in
// a count not known yet: `srv#?` and what does not depend on the count.
func undecidedSummary(m *Message, d *unturned.Decoded) string {
	var b []byte
	if d.Kind == unturned.KindNegotiateListenerDetails {
		b = append(b, d.Negotiate.Mode.String()...)
		b = append(b, ' ')
		if d.Negotiate.Mode == unturned.TellClientListenerID {
			b = append(b, "cli#"...)
			b = strconv.AppendUint(b, uint64(d.Negotiate.ClientID), 10)
			b = append(b, ' ')
		}
	}
	b = append(b, "srv#? (ID bit count undecided)"...)
	return string(b)
}

// DecodeOne decodes one message on its own, with its field spans, in the
// given state: for `usmnscope bits` (outputs.md). Listener holds what the
// message itself says; Resolved is false, as there are no tables.
func DecodeOne(p *unturned.Profile, dir dissect.Dir, widened bool, idBits int, data []byte) *Message {
	return DecodeOneWith(p, nil, dir, widened, idBits, data)
}

// Paste is how `bits` decodes a message pasted as bytes, with no capture
// around it: under Profile (nil: the default) with the schemas Set, in
// direction Dir, with IDBits of listener ID in force. A caller that
// shows the message (render) holds it without knowing the profile.
type Paste struct {
	Profile *unturned.Profile
	Set     *schema.Set
	Dir     dissect.Dir
	IDBits  int
}

// One decodes data as p says, its enum read widened or not (wire.md 4.2;
// DecodeOneWith).
func (p Paste) One(data []byte, widened bool) *Message {
	return DecodeOneWith(p.Profile, p.Set, p.Dir, widened, p.IDBits, data)
}

// DecodeOneWith is DecodeOne decoding the payload with the schemas set
// (schema.md): an invoke that carries its listener's definition, or a
// vanilla InvokeMethod whose index has a schema.
func DecodeOneWith(p *unturned.Profile, set *schema.Set, dir dissect.Dir, widened bool, idBits int, data []byte) *Message {
	if p == nil {
		p = unturned.Default()
	}
	var d unturned.Decoded
	spans := &netpak.Spans{}
	st := unturned.State{Widened: widened, IDBits: idBits, IDKnown: true}
	unturned.Decode(p, dir, st, data, spans, &d)
	m := newMessage(&d, dir, data, spans)
	switch d.Kind {
	case unturned.KindInvokeMessageListener:
		l := &unturned.Listener{}
		iv := d.Invoke
		if iv.IsClientID {
			l.ClientID = &iv.ClientID
		} else {
			l.ServerID = &iv.ServerID
		}
		if iv.HasDefinition {
			typ := iv.TypeName()
			l.Type, l.Version = &typ, &iv.Version
		}
		m.Listener = l
	case unturned.KindNegotiateListenerDetails:
		l := &unturned.Listener{}
		ng := d.Negotiate
		switch ng.Mode {
		case unturned.TellClientMissingListener:
			l.ClientID = &ng.ClientID
		case unturned.TellClientListenerID, unturned.RequestServerListenerID:
			typ := ng.TypeName()
			l.ClientID, l.Type, l.Version = &ng.ClientID, &typ, &ng.Version
			if ng.Mode == unturned.TellClientListenerID {
				l.ServerID = &ng.ServerID
			}
		case unturned.TellServerMissingListener:
			l.ServerID = &ng.ServerID
		}
		m.Listener = l
	}
	decodePayload(set, m, &d, p, nil, nil)
	m.Summary = payloadSummary(m, d.Summary())
	return m
}

// Head is what the index record holds of a message: enough to list it and
// to filter it by number, connection, direction, kind and severity without
// reading or decoding its bytes (filter.Filter.HeadOnly).
type Head struct {
	N          int
	Conn       dissect.Conn
	Dir        dissect.Dir
	Kind       unturned.Kind // outputs.md "msg" is Kind.String()
	Worst      dissect.Severity
	HasFinding bool
	// Rec is the record of a hosted protocol's message (ULinkRPC's too;
	// Kind is then zero): the index keeps it whole, so a filter on its
	// fields needs no decoding.
	Rec decode.Record
	// Hosted is set for a hosted protocol's message, also when the Head
	// comes without its record (Index.Heads).
	Hosted bool
}

// Head returns m's Head, as Index.Head gives it for the same message.
func (m *Message) Head() Head {
	w, ok := m.Worst()
	return Head{N: m.N, Conn: m.Conn, Dir: m.Dir, Kind: m.Kind, Worst: w, HasFinding: ok, Rec: m.Rec}
}

// Head returns message n's Head from its index record alone: no bytes are
// read and nothing is decoded. Its worst severity counts the findings the
// message gets when shown (its decoding's, the tables', the inference note
// of a held message and the error of bytes dropped from memory), all of
// which the record keeps; only a failing read of the capture file, which
// Detail reports as an error, is not foreseen.
func (c *Index) Head(n int) (Head, bool) {
	c.rlock()
	defer c.runlock()
	var h Head
	ok := c.head(n, &h)
	return h, ok
}

// FilterHead is Head as a filter that reads only Heads needs it
// (filter.Filter.HeadOnly): a hosted message's record, when its host keeps
// it slim, is restored compact (decode.Keeper Restore without whole), with
// its name and its protocol's own keys but not its payload's fields, which
// such a filter does not read. A ULinkRPC frame's payload is then not
// decoded again: a display filter on method over a million frames decoded
// every payload (issue 28).
func (c *Index) FilterHead(n int) (Head, bool) {
	c.rlock()
	defer c.runlock()
	var h Head
	ok := c.briefHead(n, &h)
	return h, ok
}

// head fills *h with Head(n), the lock held. It fills in place: the Head,
// with its 56-byte Conn, copied from frame to frame was a twentieth of
// `tables --json`, which tallies every message's (issue 18).
func (c *Index) head(n int, h *Head) bool { return c.headOf(n, h, true) }

// headOf is head; without records, a hosted message's Head has no
// record, only Hosted (Heads: a record kept slim would be decoded again).
func (c *Index) headOf(n int, h *Head, records bool) bool {
	if n < 1 || n > c.nrec {
		return false
	}
	r := c.rec(int32(n - 1))
	h.N, h.Conn, h.Dir, h.Kind, h.Worst, h.HasFinding, h.Rec = n, c.conns[r.conn].info.Conn, r.dir, r.kind, 0, false, nil
	h.Hosted = r.flags&recHosted != 0
	if h.Hosted && records {
		if rr := c.hostedRecord(int32(n-1), true); rr != nil {
			h.Rec = c.readable(c.conns[r.conn], rr) // as buildHosted: the feeder may still set Pair
		}
	}
	h.Worst, h.HasFinding = c.worstOf(n, r)
	return true
}

// briefHead is headOf with records for FilterHead: a slim hosted record
// is restored brief (decode.Place.Brief), a copy of its own that needs no
// readable; one the index holds is as headOf gives it.
func (c *Index) briefHead(n int, h *Head) bool {
	if n < 1 || n > c.nrec {
		return false
	}
	i := int32(n - 1)
	if r := c.rec(i); r.flags&recHosted == 0 || c.hostedRecs.get(i) != nil {
		return c.headOf(n, h, true)
	}
	if !c.headOf(n, h, false) {
		return false
	}
	h.Rec = c.restoreHosted(i, false, true)
	return true
}

// worstOf is the worst severity of message n, whose record is r, as its
// Head gives it (headOf), and whether it has a finding at all.
func (c *Index) worstOf(n int, r *record) (dissect.Severity, bool) {
	worst := r.worst
	if r.flags&recHosted != 0 {
		return severity(worst)
	}
	if r.flags&recHeld != 0 {
		worst = max(worst, uint8(dissect.Note)+1)
	}
	if c.dropped(int32(n - 1)) {
		worst = max(worst, uint8(dissect.Error)+1)
	}
	if c.schemas != nil && payload.Kind(r.kind) {
		// A payload schema adds findings (schema.md section 3) that only
		// decoding the payload finds: the record cannot foresee them.
		if m := c.build(n, false); m != nil {
			if w, ok := m.Worst(); ok {
				worst = max(worst, uint8(w)+1)
			}
		}
	}
	return severity(worst)
}

// severity is a record's worst (a severity + 1, 0 for none) as a
// Severity and whether there is one.
func severity(worst uint8) (dissect.Severity, bool) {
	if worst == 0 {
		return 0, false
	}
	return dissect.Severity(worst - 1), true
}

// Selector picks messages: a display filter (filter.Filter). When HeadOnly
// is true MatchHead decides from the index record alone, and messages it
// rejects are never read or decoded.
type Selector interface {
	HeadOnly() bool
	MatchHead(h Head) bool
	Match(m *Message) bool
}

// Name is outputs.md's "msg": the message kind's name, or the ULinkRPC
// frame type's.
func (m *Message) Name() string {
	if m.Rec != nil {
		return decode.BriefOf(m.Rec).Name
	}
	return m.Kind.String()
}

// Invokes reports whether m invokes a listener (USMN's
// InvokeMessageListener, wire.md 4.4): its payload is the PayloadBits
// from PayloadBit. With Listens and Known it lets a reader of the host's
// messages (render, stats) ask what it needs without naming Unturned's
// kinds.
func (m *Message) Invokes() bool { return invokes(m.Kind) }

// Listens reports whether m is one of USMN's two listener messages (an
// invoke, or NegotiateListenerDetails): Listener describes its listener.
func (m *Message) Listens() bool { return invokes(m.Kind) || negotiates(m.Kind) }

// invokes and negotiates are the kind rules of Invokes, Listens and Role.
func invokes(k unturned.Kind) bool    { return k == unturned.KindInvokeMessageListener }
func negotiates(k unturned.Kind) bool { return k == unturned.KindNegotiateListenerDetails }

// Known reports whether m is a message of a known kind.
func (m *Message) Known() bool { return m.Kind != unturned.KindUnknown }

// ModeName is the NegotiateListenerDetails mode's name (outputs.md "mode"),
// or "" for any other message.
func (m *Message) ModeName() string {
	if m.Kind != unturned.KindNegotiateListenerDetails {
		return ""
	}
	return m.Mode.String()
}

// recordContext holds what fromRecord gives a Message: its listener and
// the values the listener's pointers point at, so that a caller that
// reuses a Message (detailInto) reuses them too.
type recordContext struct {
	l   unturned.Listener
	ids [3]uint32 // client ID, server ID, version
	typ string
}

// fromRecord sets what the index record knows of message i beyond its
// bytes: the listener as the tables resolved it, the note of a message
// held for an inference, the undecided server ID, and the findings the
// capture added. It appends the findings to fs and returns it. Message and
// Detail (build) and dump's records (detailInto) both take it from here.
func (c *Index) fromRecord(m *Message, r *record, i int32, d *unturned.Decoded, rc *recordContext, fs []dissect.Finding) []dissect.Finding {
	if r.flags&recListener != 0 {
		rc.l = unturned.Listener{Resolved: r.flags&recResolved != 0}
		if r.flags&recCID != 0 {
			rc.ids[0] = r.cid
			rc.l.ClientID = &rc.ids[0]
		}
		if r.flags&recSID != 0 {
			rc.ids[1] = r.sid
			rc.l.ServerID = &rc.ids[1]
		}
		if typ, version, ok := c.listenerType(r); ok {
			rc.typ, rc.ids[2] = typ, version
			rc.l.Type, rc.l.Version = &rc.typ, &rc.ids[2]
		}
		m.Listener = &rc.l
	}
	if r.flags&recHeld != 0 {
		fs = append(fs, dissect.Finding{Severity: dissect.Note, Group: dissect.Inference, Text: "enum width not settled yet: decoded tentatively while the handshake is being inferred", Bit: -1})
	}
	if r.flags&recIDUndecided != 0 {
		if m.Listener == nil {
			// Held, not yet in the tables: only what the message says
			// without its server ID.
			rc.l = unturned.Listener{}
			if d.Kind == unturned.KindNegotiateListenerDetails && d.Negotiate.Mode == unturned.TellClientListenerID {
				rc.ids[0] = d.Negotiate.ClientID
				rc.l.ClientID = &rc.ids[0]
			}
			m.Listener = &rc.l
		}
		fs = append(fs, dissect.Finding{Severity: dissect.Note, Group: dissect.Inference, Bit: -1,
			Text: "Serverside_ID_Bit_Count not known (marker and definitions not captured): the server ID is undecided"})
	}
	if r.flags&recExtra != 0 {
		fs = append(fs, c.extra[i]...)
	}
	m.Pair, m.Latency, m.HasLatency = c.pairOf(r, i)
	return fs
}

// Record is m's hosted record (decode.Record): Rec; nil for an Unturned
// message.
func (m *Message) Record() decode.Record { return m.Rec }

// Record is h's hosted record as Message.Record says.
func (h *Head) Record() decode.Record { return h.Rec }

// decodePayload decodes m's payload with the schemas, when one applies
// (unturned/payload), after the header fields: the schema's fields go to
// m.Payload and, when spans were asked for, replace the undecoded
// "payload" (USMN invoke) or "parameters" (vanilla InvokeMethod) span at
// the end of m.Fields. Its findings (schema.md section 3) and a version
// note are appended to m.Findings. cn nil: no late resolution
// (SetLateSchemas). Called with the read lock held.
func decodePayload(set *schema.Set, m *Message, d *unturned.Decoded, p *unturned.Profile, cn *connection, sc *payload.Scratch) {
	if set == nil || len(m.Data) == 0 {
		return
	}
	var l payload.Listener
	if d.Kind == unturned.KindInvokeMessageListener {
		l.Type, l.Version, l.Known = listenerOf(m.Listener, cn)
	}
	res, notes, ok := payload.Decode(set, m.Data, m.Dir, d, p, l, sc)
	m.Findings = append(m.Findings, notes...)
	if !ok {
		return
	}
	m.PayloadMessage, m.PayloadMethod = res.Message, res.Method
	m.Payload = res.Fields
	if m.Payload == nil {
		m.Payload = []netpak.Span{}
	}
	m.Findings = append(m.Findings, res.Findings...)
	if m.Fields != nil {
		if k := len(m.Fields) - 1; k >= 0 && m.Fields[k].Name == res.Raw && m.Fields[k].Value == nil {
			m.Fields = m.Fields[:k]
		}
		m.Fields = append(m.Fields, res.Fields...)
	}
	m.payloadTitle = res.Title
}

// hasPayloadSummary reports whether payloadSummary changes m's summary:
// whether a schema named or decoded its payload.
func (m *Message) hasPayloadSummary() bool { return m.payloadTitle != "" || m.Payload != nil }

// payloadSummary prefixes a summary with the payload's name and its first
// values (payload.Summary).
func payloadSummary(m *Message, summary string) string {
	if !m.hasPayloadSummary() {
		return summary
	}
	return payload.Summary(m.payloadTitle, m.Payload, summary)
}

// Mark is what a profile score reads of a message (unturned/feed's Score):
// its Head without the connection, direction and record.
type Mark struct {
	N          int
	Kind       unturned.Kind
	Worst      dissect.Severity
	HasFinding bool
	Hosted     bool
}

// Marks is Heads giving Marks: the TUI scores a million messages before
// it says loaded, and a Mark reads no connection (issue 28: the Heads'
// were 25 ms at the end of a million-message load).
func (c *Index) Marks(dst []Mark, from int) []Mark {
	c.rlock()
	defer c.runlock()
	for n := max(from, 1); n <= c.nrec && len(dst) < cap(dst); n++ {
		r := c.rec(int32(n - 1))
		w, ok := c.worstOf(n, r)
		dst = append(dst, Mark{N: n, Kind: r.kind, Worst: w, HasFinding: ok, Hosted: r.flags&recHosted != 0})
	}
	return dst
}
