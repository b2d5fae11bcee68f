package session

import (
	"errors"
	"fmt"
	"sort"
	"unsafe"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/listeners"
	"github.com/usmnscope/usmnscope/unturned/pair"
)

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

func (c *Index) addExtra(i int32, fs ...dissect.Finding) {
	if len(fs) == 0 {
		return
	}
	c.extra[i] = append(c.extra[i], fs...)
	r := c.rec(i)
	r.flags |= recExtra
	for _, f := range fs {
		if uint8(f.Severity)+1 > r.worst {
			r.worst = uint8(f.Severity) + 1
		}
	}
}

// intern returns the capture's one copy of a type name.
func (c *Index) intern(b []byte) string {
	if i, ok := c.typeIdx[string(b)]; ok {
		return c.types[i]
	}
	s := string(b)
	c.typeIdx[s] = uint32(len(c.types))
	c.types = append(c.types, s)
	return s
}

// typeVer is a listener type (an index into Index.types) and version.
type typeVer struct{ typ, version uint32 }

// tvSeen is a type and version and its index in Index.typeVers.
type tvSeen struct {
	typ     string
	version uint32
	k       uint32
}

// typeVerOf returns the index in c.typeVers of typ (an interned name) and
// version, adding the pair when it is new. A message's type is nearly
// always one seen a moment ago, with the same interned string: the cache,
// keyed by where that string's bytes are (names such as Load.Listener0 to
// Load.Listener7 differ only inside), answers it with a pointer-equal
// compare, not two map lookups (issue 26). A miss only costs the lookups.
func (c *Index) typeVerOf(typ string, version uint32) uint32 {
	h := uint32(uintptr(unsafe.Pointer(unsafe.StringData(typ)))>>3) + version*13
	e := &c.tvRecent[(h^h>>6)&63]
	if e.typ == typ && e.version == version && e.typ != "" {
		return e.k
	}
	tv := typeVer{typ: c.typeIdx[typ], version: version}
	k, ok := c.tvIdx[tv]
	if !ok {
		k = uint32(len(c.typeVers))
		c.tvIdx[tv] = k
		c.typeVers = append(c.typeVers, tv)
	}
	*e = tvSeen{typ: typ, version: version, k: k}
	return k
}

// listenerType returns the listener type and version r records, if any.
func (c *Index) listenerType(r *record) (typ string, version uint32, ok bool) {
	if r.tv == 0 {
		return "", 0, false
	}
	tv := c.typeVers[r.tv-1]
	return c.types[tv.typ], tv.version, true
}

// lookupType is intern for readers: every type name a committed message
// carries was interned when it was committed, so a replay finds it.
func (c *Index) lookupType(b []byte) string {
	if i, ok := c.typeIdx[string(b)]; ok {
		return c.types[i]
	}
	return string(b)
}

// commit decodes message i (from msg, or from where its record says its
// bytes are when msg is nil) in the connection's state, applies it to the
// handshake state and the tables, and records the result.
func (c *Index) commit(cn *connection, i int32, msg []byte) {
	r := c.rec(i)
	dir := r.dir
	n := int(i) + 1
	if c.stream != nil {
		c.streamAsOf(cn, n)
	}
	st := cn.state(dir)
	d := c.decodeCommit(i, dir, st, msg)
	c.setDecoded(i, st, d)
	pos := cn.committed
	cn.committed++
	if d.Enum.Widened && cn.info.WidenedAt[dir] == 0 {
		cn.info.WidenedAt[dir] = n
	}
	undecided := cn.idPending(dir, d)
	if undecided {
		c.rec(i).flags |= recIDUndecided
	}
	c.overrides(cn, i, dir, d)
	if d.Kind == unturned.KindInvokeMessageListener || d.Kind == unturned.KindNegotiateListenerDetails {
		var o listeners.Op
		listeners.OpFor(&o, dir, n, st, d, c.intern)
		if undecided {
			// Its server ID is not known: the tables do not take it.
			o = listeners.Op{Dir: dir, N: n, IDBits: uint8(st.IDBits)}
		}
		var res listeners.Result
		if c.stream == nil {
			cn.tables.ApplyAt(&o, &c.limits, pos, &res)
		} else {
			// No checkpoints: a stream keeps no history.
			cn.tables.Apply(&o, &c.limits, &res)
			c.noteLate(cn)
		}
		if c.stream == nil || c.stream.Settled != nil || c.schemas != nil {
			c.listenerInfo(cn, i, &o, d, res.Resolved)
		}
		c.addExtra(i, res.Findings...)
	}
	if r.worst > 0 && (!cn.info.HasFinding || dissect.Severity(r.worst-1) > cn.info.Worst) {
		cn.info.Worst, cn.info.HasFinding = dissect.Severity(r.worst-1), true
	}
	switch step := cn.pairing(c.stream == nil).Message(i+1, dir, d, func() int64 { return c.timeOf(i) }); step.Role {
	case pair.Asker:
		c.asked(i)
	case pair.Answer:
		c.link(cn, step.Asker, i, step.Latency)
	}
	cn.learn(dir, d)
	if c.stream != nil {
		c.streamed(i)
	}
}

// listenerInfo records in the index what the tables know of the listener a
// USMN message names, as of its decoding (outputs.md "listener",
// listeners.State.Name).
func (c *Index) listenerInfo(cn *connection, i int32, o *listeners.Op, d *unturned.Decoded, resolved bool) {
	r := c.rec(i)
	r.flags |= recListener
	if resolved {
		r.flags |= recResolved
	}
	var nm listeners.Named
	cn.tables.Current().Name(o, d, &nm)
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

// Tables returns the listener-ID tables of conn as of message asOf (the
// state after that message of the capture was applied); asOf ≤ 0 means the
// end of what was read. Messages held for an inference are not in the
// tables until it settles. It returns nil for an unknown connection.
func (c *Index) Tables(conn dissect.Conn, asOf int) *Tables {
	c.mu.RLock()
	defer c.mu.RUnlock()
	cn, ok := c.lookup(conn)
	if !ok {
		return nil
	}
	return c.tablesOf(cn, asOf)
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
	t.Ping = cn.pairs.PingStats(asOf, true)
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
	if k >= cn.committed {
		t = tablesFrom(cn.tables.Current(), cn.info.Conn, asOf)
	} else {
		from, st := cn.tables.Checkpoint(k)
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
// (wire.md 4.5): the payload is decoded when the message is shown.
func listenerOf(l *unturned.Listener, cn *connection) (string, uint32, bool) {
	if l == nil {
		return "", 0, false
	}
	if l.Type != nil && l.Version != nil {
		return *l.Type, *l.Version, true
	}
	if cn == nil {
		return "", 0, false
	}
	t := cn.tables.Current()
	if l.ServerID != nil {
		if e, ok := t.Server(*l.ServerID); ok {
			return e.Type, e.Version, true
		}
	}
	if l.ClientID != nil {
		if e, ok := t.Client(*l.ClientID); ok {
			return e.Type, e.Version, true
		}
	}
	return "", 0, false
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
