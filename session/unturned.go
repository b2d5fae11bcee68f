package session

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/listeners"
	"github.com/usmnscope/usmnscope/unturned/pair"
	"github.com/usmnscope/usmnscope/unturned/track"
)

// Unturned's connections as the host keeps them this round (issue 23):
// their state (framing, handshake, inferences, listener tables, pairing)
// is unturned/track's, which the rest of the host feeds and asks through
// nativeConn (connection.go); this file is the host's side of track.Host,
// where a message's decoding, listener and pair are written into the
// host's record, and the listener tables as of a message, which replay
// the host's records. The next step of issue 23 makes Unturned a hosted
// protocol (decode.Conn) and this file goes.

// The rows of the listener-ID tables are unturned/listeners' (wire.md
// 4.5) and the ping statistics unturned/pair's, named here for the
// readers of Tables (tables.go).
type (
	// Learned says how a table entry was learned (outputs.md "learned").
	Learned = listeners.Learned
	// ServerEntry is one row of the server table.
	ServerEntry = listeners.ServerEntry
	// ClientEntry is one row of the client table.
	ClientEntry = listeners.ClientEntry
	// Ref is an unresolved reference: an invoke naming an ID not (yet) in
	// a table.
	Ref = listeners.Ref
	// PingStats are the statistics of the PingRequests sent in one
	// direction (outputs.md "ping").
	PingStats = pair.PingStats
)

// nativeConnection is a connection the host decodes natively and its
// Unturned state, in one allocation: every chunk reads both.
type nativeConnection struct {
	cn connection
	h  unturnedHost
}

// newNative returns connection idx of conn, one the host decodes natively,
// with its Unturned state; the first makes what they share (Index.un).
func (c *Index) newNative(idx uint32, conn dissect.Conn, rule Rule) *connection {
	k, _ := c.un.(*track.Capture)
	if k == nil {
		k = track.NewCapture(c.profile, &c.limits, c.stream == nil, c.captureFinding, c.intern)
		k.SetNames(c.keepsNames())
		c.un = k
	}
	n := &nativeConnection{}
	cn, h := &n.cn, &n.h
	initConnection(cn, idx, conn, rule)
	h.c, h.cn = c, cn
	k.Init(&h.t, h)
	cn.un, cn.native, cn.feed, cn.number = h, &h.t, &h.t, h.number
	return cn
}

// keepsNames reports whether the records keep what the tables name of a
// message's listener (listenerInfo), or a Stream notes the references its
// tables wait to resolve (noteLate): not for a Stream that hands no
// message out and decodes no payload (tables), which reads nothing of it.
func (c *Index) keepsNames() bool {
	return c.stream == nil || c.stream.Settled != nil || c.schemas != nil
}

// namesChanged tells the Unturned connections made so far whether the
// host keeps names now (SetSchemas).
func (c *Index) namesChanged() {
	if k, ok := c.un.(*track.Capture); ok {
		k.SetNames(c.keepsNames())
	}
}

// unturnedOf is cn's Unturned state; nil for a hosted connection.
func unturnedOf(cn *connection) *track.Conn {
	if cn.un == nil {
		return nil
	}
	return &cn.un.t
}

// unturnedHost is the host as connection cn's Unturned state t asks it
// (track.Host); t lies in it, one allocation with what the host keeps.
type unturnedHost struct {
	c  *Index
	cn *connection
	t  track.Conn
}

var _ track.Host = (*unturnedHost)(nil)

// Message numbers f now, unless it must wait in the queue (order.go).
func (h *unturnedHost) Message(f *decode.FramedMsg) {
	if h.c.arrive(h.cn, f) {
		h.number(f)
	}
}

// number numbers f: the connection says whether it will hold it for an
// inference and takes it once it has its record (a message longer than a
// record says is cut to 0xFFFF bytes, in f). The calls are on the
// connection's type, not through nativeConn, and one that does not wait
// is decoded and committed here (track.Conn.Commit) rather than by
// Numbered calling back through track.Host: this is every message's path.
func (h *unturnedHost) number(f *decode.FramedMsg) {
	if len(f.Msg) > 0xFFFF {
		f.Msg = f.Msg[:0xFFFF]
	}
	c, cn, t := h.c, h.cn, &h.t
	t.Arrive(f)
	waits := t.Pending()
	i := c.record(cn, f, waits)
	if waits {
		t.Numbered(i, f)
		return
	}
	dir := f.Dir
	st := t.State(dir)
	t.Commit(i, dir, st, h.commitDecode(i, dir, st, f.Msg))
	h.Committed(i)
}

// Finding keeps a connection finding; the connection's summary changes
// (it may be another connection than the event's: the framers' budget
// sheds the largest buffers of all).
func (h *unturnedHost) Finding(f dissect.Finding) {
	h.c.touch(h.cn)
	h.c.connFinding(h.cn, f)
}

func (h *unturnedHost) Bytes(i int32) []byte { return h.c.feederBytes(i) }

// Decode decodes message i: a tentative decoding marks it held (not
// settled); the final one, the commit's, is the one a Stream hands out
// (decodeCommit), taken after the tables as of Stream.AsOf are kept
// (streamAsOf: they must not see message i yet).
func (h *unturnedHost) Decode(i int32, d dissect.Dir, st unturned.State, msg []byte, final bool) *unturned.Decoded {
	c := h.c
	if !final {
		c.rec(i).flags |= recHeld
		dd := c.decodeRec(i, d, st, msg)
		c.setDecoded(i, st, dd)
		return dd
	}
	c.rec(i).flags &^= recHeld
	return h.commitDecode(i, d, st, msg)
}

// commitDecode is Decode's final decoding of message i, not held.
func (h *unturnedHost) commitDecode(i int32, d dissect.Dir, st unturned.State, msg []byte) *unturned.Decoded {
	c := h.c
	if c.stream != nil {
		c.streamAsOf(h.cn, int(i)+1)
	}
	dd := c.decodeCommit(i, d, st, msg)
	c.setDecoded(i, st, dd)
	h.cn.committed++
	return dd
}

func (h *unturnedHost) Undecided(i int32)                    { h.c.rec(i).flags |= recIDUndecided }
func (h *unturnedHost) Extra(i int32, fs ...dissect.Finding) { h.c.addExtra(i, fs...) }
func (h *unturnedHost) Asked(i int32)                        { h.c.asked(i) }
func (h *unturnedHost) Link(a, i int32, lat time.Duration)   { h.c.link(h.cn, a, i, lat) }
func (h *unturnedHost) Time(i int32) int64                   { return h.c.timeOf(i) }

// Listener keeps in message i's record what the tables know of its
// listener (called only when keepsNames); a Stream notes a reference its
// tables still wait to resolve (lateBound).
func (h *unturnedHost) Listener(i int32, o *listeners.Op, d *unturned.Decoded, resolved bool) {
	c := h.c
	if c.stream != nil {
		c.noteLate(h.cn)
	}
	c.listenerInfo(&h.t, i, o, d, resolved)
}

// Committed counts message i's worst severity in its connection's and
// hands it out when a Stream may.
func (h *unturnedHost) Committed(i int32) {
	c, cn := h.c, h.cn
	if r := c.rec(i); r.worst > 0 && (!cn.info.HasFinding || dissect.Severity(r.worst-1) > cn.info.Worst) {
		cn.info.Worst, cn.info.HasFinding = dissect.Severity(r.worst-1), true
	}
	if c.stream != nil {
		c.streamed(i)
	}
}

// Summary copies what the handshake says into the connection's summary.
func (h *unturnedHost) Summary(s *track.Summary) {
	ci := &h.cn.info
	ci.USMNClient, ci.USMNServer = s.Client, s.Server
	ci.Widened, ci.WidenedAt, ci.Inferred = s.Widened, s.WidenedAt, s.Inferred
}

// decodeRec decodes record i in state st into c.dec, from msg when the
// caller has its bytes at hand, else from where the record says they are.
func (c *Index) decodeRec(i int32, dir dissect.Dir, st unturned.State, msg []byte) *unturned.Decoded {
	if msg == nil {
		msg = c.feederBytes(i)
	}
	c.dec = unturned.Decoded{Findings: c.dec.Findings[:0]}
	unturned.Decode(c.profile, dir, st, msg, nil, &c.dec)
	return &c.dec
}

// setDecoded records what decoding showed in the index entry.
func (c *Index) setDecoded(i int32, st unturned.State, d *unturned.Decoded) {
	r := c.rec(i)
	r.kind, r.idBits = d.Kind, uint8(st.IDBits)
	r.flags &^= recWidened | recIDKnown | recIDUndecided
	if st.Widened {
		r.flags |= recWidened
	}
	if st.IDKnown {
		r.flags |= recIDKnown
	}
	// worst counts the findings the capture added (an inference, the
	// tables) as well as the decoding's: a held message is decoded again
	// after the inference note was added to it.
	r.worst = 0
	for _, f := range d.Findings {
		r.worst = max(r.worst, uint8(f.Severity)+1)
	}
	if r.flags&recExtra != 0 {
		for _, f := range c.extra[i] {
			r.worst = max(r.worst, uint8(f.Severity)+1)
		}
	}
}

// listenerInfo records in the index what the tables know of the listener a
// USMN message names, as of its decoding (outputs.md "listener",
// listeners.State.Name).
func (c *Index) listenerInfo(t *track.Conn, i int32, o *listeners.Op, d *unturned.Decoded, resolved bool) {
	r := c.rec(i)
	r.flags |= recListener
	if resolved {
		r.flags |= recResolved
	}
	var nm listeners.Named
	t.Name(o, d, &nm)
	if nm.HasCID {
		r.cid, r.flags = nm.CID, r.flags|recCID
	}
	if nm.HasSID {
		r.sid, r.flags = nm.SID, r.flags|recSID
	}
	if nm.HasType {
		r.tv, r.flags = c.typeVerOf(nm.Type, nm.Version)+1, r.flags|recVersion
	}
	switch nm.Resolved {
	case listeners.Resolved:
		r.flags |= recResolved
	case listeners.Unresolved:
		r.flags &^= recResolved
	}
}

// tablesOf is Tables for cn, under the caller's lock; a ULinkRPC
// connection's is its `rpc` table (hosted.go).
func (c *Index) tablesOf(cn *connection, asOf int) *Tables {
	if c.stream != nil {
		return c.streamTables(cn, asOf)
	}
	if cn.proto != nil {
		return c.hostedTables(cn, asOf)
	}
	if asOf <= 0 || asOf > c.nrec {
		asOf = c.nrec
	}
	t := c.tablesAsOf(cn, asOf)
	t.Ping = unturnedOf(cn).Pairs().PingStats(asOf, true)
	return t
}

// nativeTables are a natively decoded connection's tables now, as of
// asOf, with messages of its messages (a Stream keeps no history).
func (c *Index) nativeTables(cn *connection, asOf, messages int) *Tables {
	u := unturnedOf(cn)
	t := tablesFrom(u.Tables().Current(), cn.info.Conn, asOf)
	t.Messages = messages
	t.Ping = u.Pairs().PingStats(0, false)
	return t
}

// tablesAsOf returns the tables of cn after every message ≤ asOf: the live
// tables when every committed message of cn is ≤ asOf, else the nearest
// checkpoint at or before it, cloned, and the USMN messages after it
// decoded again (in the State their records hold) and applied.
func (c *Index) tablesAsOf(cn *connection, asOf int) *Tables {
	// k: the connection's messages numbered ≤ asOf (record index < asOf).
	k := sort.Search(cn.msgs.len(), func(p int) bool { return int(cn.msgs.at(p)) >= asOf })
	var t *Tables
	tables := unturnedOf(cn).Tables()
	if k >= cn.committed {
		t = tablesFrom(tables.Current(), cn.info.Conn, asOf)
	} else {
		from, st := tables.Checkpoint(k)
		var (
			d   unturned.Decoded
			buf []byte
		)
		for p := from; p < k; p++ {
			i := cn.msgs.at(p)
			r := c.rec(i)
			if r.flags&recListener == 0 {
				continue
			}
			msg, err := c.loadInto(i, &buf)
			var dropped *droppedError
			if errors.As(err, &dropped) {
				// Replaying past it would give wrong tables: give those
				// as of the message before it, and say why.
				t = tablesFrom(st, cn.info.Conn, int(i))
				t.Messages = p
				t.Warnings = append(t.Warnings, dissect.Finding{Severity: dissect.Warn, Group: dissect.Malformed, Bit: -1, Text: fmt.Sprintf("tables as of message %d cannot be replayed: %v; shown as of message %d", asOf, err, i)})
				return t
			}
			d = unturned.Decoded{Findings: d.Findings[:0]}
			unturned.Decode(c.profile, r.dir, r.state(), msg, nil, &d)
			var o listeners.Op
			listeners.OpFor(&o, r.dir, int(i)+1, r.state(), &d, c.lookupType)
			if r.flags&recIDUndecided != 0 {
				o = listeners.Op{Dir: r.dir, N: int(i) + 1, IDBits: r.idBits}
			}
			var res listeners.Result
			st.Apply(&o, &c.limits, &res)
		}
		t = tablesFrom(st, cn.info.Conn, asOf)
	}
	t.Messages = k
	return t
}

// listenerOf is the listener type and version of an invoke: as its record
// knew it, or else, for a reference unresolved when it was decoded, as the
// connection's tables know its ID now that replay may have resolved it
// (wire.md 4.5; track.Conn.ListenerOf): the payload is decoded when the
// message is shown. cn nil: as its record knew it.
func listenerOf(l *unturned.Listener, cn *connection) (string, uint32, bool) {
	var t *track.Conn
	if cn != nil {
		t = unturnedOf(cn)
	}
	return t.ListenerOf(l)
}

// tablesFrom is the Tables of conn as of message asOf from the listener
// tables' snapshot.
func tablesFrom(st *listeners.State, conn dissect.Conn, asOf int) *Tables {
	snap := st.Snapshot(asOf)
	return &Tables{
		Conn:            conn,
		AsOf:            asOf,
		Server:          snap.Server,
		Client:          snap.Client,
		MissingOnServer: snap.MissingOnServer,
		MissingOnClient: snap.MissingOnClient,
		Unresolved:      snap.Unresolved,
		Warnings:        snap.Warnings,
	}
}
