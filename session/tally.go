package session

import (
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// Tally is what a tally over every message (`usmnscope stats`, issue 26)
// needs of the message a Stream is handing out, read from its index
// record and the decoding its commit made, without building a Message:
// no summary, no findings, no copy. Spans and RPC are valid only during
// the Settled call.
type Tally struct {
	N     int
	Time  time.Time
	Conn  dissect.Conn
	Dir   dissect.Dir
	Kind  unturned.Kind
	Len   int           // the message's bytes, without the frame header
	Spans []netpak.Span // the field spans, in wire order
	// Listener is set for the two USMN messages; Type is "" while the
	// listener is unresolved.
	Listener bool
	Type     string
	// Pairing (outputs.md "Pairing"), as Message has it.
	Pair       int
	Latency    time.Duration
	HasLatency bool
	// RPC is the record of a ULinkRPC message (the Unturned fields above
	// are then zero but N, Time, Conn and Dir).
	RPC *rpc.Record
	// Rec is the record of a hosted protocol's message (ULinkRPC's too).
	Rec decode.Record
}

// TallyOf fills b with message n, which a Stream with Spans is handing to
// Settled, and reports true; false when the Tally cannot say all a
// Message would (no decoding with spans kept, or a payload schema to
// decode: Message and Detail then).
func (c *Index) TallyOf(n int, b *Tally) bool {
	if n < 1 || n > c.nrec || c.stream == nil {
		return false
	}
	i := int32(n - 1)
	r := c.rec(i)
	*b = Tally{N: n, Time: time.Unix(0, c.timeOf(i)).UTC(), Conn: c.conns[r.conn].info.Conn, Dir: r.dir}
	if r.flags&recRPC != 0 {
		rr := c.rpcRecs[i]
		if rr == nil {
			return false
		}
		m := rr.Meta()
		b.RPC, _ = rr.(*rpc.Record)
		b.Rec = rr
		b.Pair, b.Latency, b.HasLatency = m.Pair, m.Latency, m.HasLatency
		return true
	}
	p := c.prepared(i)
	if p == nil || p.spans == nil || c.schemas != nil && payloadKind(r.kind) {
		return false
	}
	b.Kind, b.Len, b.Spans = r.kind, len(p.data), p.spans.List
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
