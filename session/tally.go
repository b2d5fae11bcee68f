package session

import (
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/payload"
)

// Tally is what a tally over every message (`usmnscope stats`, issue 26)
// needs of the message a Stream is handing out, read from its index
// record and the decoding its commit made, without building a Message:
// no summary, no findings, no copy. Data and RPC are valid only during
// the Settled call; a copy of Data made then serves Spans later.
//
// It is kept small (Conn a pointer, Time its nanoseconds): Settled fills
// one for each of millions of messages.
type Tally struct {
	N    int
	Time int64         // Unix nanoseconds
	Conn *dissect.Conn // the connection's, which never changes: read only
	// Data is the message's bytes, without the frame header: Spans
	// decodes them again, in the context its commit decoded them in, for
	// the field spans.
	Data []byte
	// Type is the listener's type, "" while it is unresolved (Listener).
	Type string
	// Pairing (outputs.md "Pairing"), as Message has it.
	Pair    int
	Latency time.Duration
	// Rec is the record of a hosted protocol's message (ULinkRPC's too;
	// the Unturned fields are then zero but N, Time, Conn and Dir).
	Rec decode.Record

	Dir        dissect.Dir
	Kind       unturned.Kind
	Listener   bool // one of the two USMN messages
	HasLatency bool

	// The commit's context (unturned.State, packed) and profile.
	widened, idKnown bool
	idBits           uint8
	profile          *unturned.Profile
}

// Spans decodes t's message again as its commit did, into sp with d as
// the decoder's scratch, and returns its field spans in wire order, names
// and bits only (netpak.Spans.Bare): the fields Detail has, without their
// values. It reads nothing but t, so it may run on another goroutine than
// the Index's (stats' counting one) once Data is a copy: the decoding's
// cost leaves the goroutine that decodes the capture (issue 26).
func (t *Tally) Spans(sp *netpak.Spans, d *unturned.Decoded) []netpak.Span {
	sp.Reset()
	sp.Bare = true
	*d = unturned.Decoded{Findings: d.Findings[:0]}
	st := unturned.State{Widened: t.widened, IDBits: int(t.idBits), IDKnown: t.idKnown}
	unturned.Decode(t.profile, t.Dir, st, t.Data, sp, d)
	return sp.List
}

// SpanScratch is what SpansIn decodes into, reused from one message to
// the next by a reader that names no Unturned type (stats).
type SpanScratch struct {
	spans netpak.Spans
	dec   unturned.Decoded
}

// SpansIn is Spans with s as the scratch.
func (t *Tally) SpansIn(s *SpanScratch) []netpak.Span { return t.Spans(&s.spans, &s.dec) }

// Role is what a reader of the host's own messages asks of one (stats:
// which spans are header, which answers close a pair) without naming
// Unturned's kinds: the kind's name (outputs.md "msg") and whether it is
// an invoke of a listener, a NegotiateListenerDetails or a PingResponse.
type Role struct {
	Kind                             string
	Invokes, Negotiates, AnswersPing bool
}

// Role is m's (an Unturned message's; a hosted record's is its Meta).
func (m *Message) Role() Role { return roleOf(m.Kind) }

// Role is t's, as Message.Role.
func (t *Tally) Role() Role { return roleOf(t.Kind) }

func roleOf(k unturned.Kind) Role {
	return Role{Kind: k.String(), Invokes: invokes(k), Negotiates: negotiates(k),
		AnswersPing: k == unturned.KindServerPingResponse || k == unturned.KindClientPingResponse}
}

// TallyOf fills b with message n, which a Stream is handing to Settled,
// and reports true; false when the Tally cannot say all a Message would
// (its bytes lost, or a payload schema to decode: Message and Detail
// then).
func (c *Index) TallyOf(n int, b *Tally) bool {
	if n < 1 || n > c.nrec || c.stream == nil {
		return false
	}
	i := int32(n - 1)
	r := c.rec(i)
	*b = Tally{N: n, Time: c.timeOf(i), Conn: c.conns[r.conn].key, Dir: r.dir}
	if r.flags&recHosted != 0 {
		rr := c.hostedRecs.get(i)
		if rr == nil {
			return false
		}
		m := decode.GlanceOf(rr)
		b.Rec = rr
		b.Pair, b.Latency, b.HasLatency = m.Pair, m.Latency, m.HasLatency
		return true
	}
	if c.schemas != nil && payload.Kind(r.kind) {
		return false
	}
	var data []byte
	if p := c.prepared(i); p != nil {
		data = p.data
	} else {
		// Waited (Stream.Tallies): its kept bytes.
		var err error
		if data, err = c.loadInto(i, &c.tallyBuf); err != nil {
			return false
		}
	}
	b.Kind, b.Data, b.profile = r.kind, data, c.profile
	st := r.state()
	b.widened, b.idKnown, b.idBits = st.Widened, st.IDKnown, uint8(st.IDBits)
	if r.flags&recListener != 0 {
		b.Listener = true
		if typ, _, ok := c.listenerType(r); ok {
			b.Type = typ
		}
	} else if r.kind == unturned.KindInvokeMessageListener || r.kind == unturned.KindNegotiateListenerDetails {
		b.Listener = true // held, not yet in the tables: unresolved
	}
	b.Pair, b.Latency, b.HasLatency = c.pairOf(r, i)
	return true
}
