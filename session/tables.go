package session

import (
	"fmt"
	"github.com/usmnscope/usmnscope/decode"
	"maps"
	"sort"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/pair"
)

// Learned says how a table entry was learned (outputs.md "learned").
type Learned uint8

const (
	LearnedDefinition Learned = iota // from an invoke header's definition
	LearnedNegotiate                 // from TellClientListenerId or RequestServerListenerId
	LearnedInferred                  // guessed, e.g. an ID used before its definition was captured
)

var learnedNames = [...]string{LearnedDefinition: "definition", LearnedNegotiate: "negotiate", LearnedInferred: "inferred"}

func (l Learned) String() string { return enum.Name(learnedNames[:], l) }

// ServerEntry is one row of the server table (wire.md 4.5).
type ServerEntry struct {
	ID          uint32
	Type        string
	Version     uint32
	IDBits      int
	Learned     Learned
	First       int // message number where it was learned
	Invokes     int // S→C invokes
	PayloadBits int
	Changed     bool // created or updated by the message the tables are as of

	touched int // last message that created, updated or counted it
}

// ClientEntry is one row of the client table (wire.md 4.5).
type ClientEntry struct {
	ID          uint32
	Type        string
	Version     uint32
	ServerID    uint32
	Mapped      bool // ServerID is known (TellClientListenerId)
	Learned     Learned
	First       int
	Invokes     int // C→S invokes, including those addressed by the mapped server ID
	PayloadBits int
	Changed     bool

	touched int
}

// Ref is an unresolved reference: an invoke naming an ID not (yet) in a
// table (wire.md 4.5).
type Ref struct {
	N      int
	Dir    dissect.Dir
	ID     uint32
	Client bool // ID is a Clientside_Listener_ID (C→S with Has_Client_ID), else a server ID
}

// Tables is the listener-ID state of one connection as of one message.
// Lists are sorted by ID.
type Tables struct {
	Conn            dissect.Conn
	AsOf            int // message number the state is as of
	Messages        int // messages of the connection up to AsOf
	Server          []ServerEntry
	Client          []ClientEntry
	MissingOnServer []uint32 // client IDs the server said it lacks
	MissingOnClient []uint32 // server IDs the client said it lacks
	Unresolved      []Ref
	Warnings        []dissect.Finding // version mismatches and other table-level findings

	// ProtoTable is a hosted connection's protocol tables as of AsOf
	// (decode.Tallied: ULinkRPC's, the `rpc` object of tables --json);
	// the listener keys are then empty.
	ProtoTable decode.Tables
	// With hostedCut, hostedFindings is how many of the hosted connection's
	// findings were said before the connection's first message after AsOf
	// (a Stream's Cut: Index.keepAsOf); without, all were.
	hostedCut      bool
	hostedFindings int

	// Ping is, per direction, the PingRequests sent in it up to AsOf
	// and the PingResponses that answered them (outputs.md "ping").
	Ping [2]pair.PingStats
}

// opKind is what a USMN message does to the tables (wire.md 4.5). The
// connection turns each decoded USMN message into one op; the tables only
// ever change by applying ops in message order, so a state as of message n
// is a checkpoint plus a replay of the ops after it.
type opKind uint8

const (
	opNone           opKind = iota
	opServerDef             // S→C invoke with definition
	opServerInvoke          // S→C invoke by server ID
	opClientDef             // C→S invoke with Has_Client_ID and definition
	opClientInvoke          // C→S invoke by client ID
	opServerIDInvoke        // C→S invoke by Serverside_Listener_ID
	opMissingClient         // S→C TellClientMissingListener
	opTellID                // S→C TellClientListenerId
	opMissingServer         // C→S TellServerMissingListener
	opRequestID             // C→S RequestServerListenerId
)

// op is one table operation, taken from one message.
type op struct {
	kind    opKind
	dir     dissect.Dir
	idBits  uint8 // server ID bit count: the definition's, or the one in force
	n       int
	cid     uint32
	sid     uint32
	version uint32
	payload int
	typ     string
}

// defines reports whether the op creates or updates a table entry, which is
// when the unresolved queue is replayed (wire.md 4.5).
func (o *op) defines() bool {
	switch o.kind {
	case opServerDef, opClientDef, opTellID, opRequestID:
		return true
	}
	return false
}

// pending is an unresolved reference waiting in the queue.
type pending struct {
	Ref
	payload int
}

// tableState is the mutable listener-ID state of one connection.
type tableState struct {
	server   idTable[ServerEntry]
	client   idTable[ClientEntry]
	mappedBy idTable[uint32] // server ID → client ID mapped to it by TellClientListenerId
	missSrv  idTable[struct{}]
	missCli  idTable[struct{}]
	queue    []pending
	full     bool // the queue or a table hit its limit (reported once)

	// versions counts entries per type and version on each side ([0] the
	// server table, [1] the client table), so that a version mismatch is
	// found without scanning a table.
	versions [2]map[string]map[uint32]int
}

// countType adjusts the count of side's entries of type typ at version by
// delta.
func (t *tableState) countType(side int, typ string, version uint32, delta int) {
	vs := t.versions[side][typ]
	if vs == nil {
		if t.versions[side] == nil {
			t.versions[side] = map[string]map[uint32]int{}
		}
		vs = map[uint32]int{}
		t.versions[side][typ] = vs
	}
	vs[version] += delta
	if vs[version] <= 0 {
		delete(vs, version)
	}
	if len(vs) == 0 {
		delete(t.versions[side], typ)
	}
}

// otherVersion returns a version other than version that side has an
// entry of type typ at, and whether there is one. With two versions of a
// type the answer is the other one; with more it is any of them, as
// scanning them all would make every definition cost as much as the table.
func (t *tableState) otherVersion(side int, typ string, version uint32) (uint32, bool) {
	vs := t.versions[side][typ]
	if _, same := vs[version]; len(vs) == 0 || len(vs) == 1 && same {
		// The common case, one version a type: a lookup, not an iterator
		// (whose start was 2% of `tables --json`, issue 18).
		return 0, false
	}
	for v := range vs {
		if v != version {
			return v, true
		}
	}
	return 0, false
}

// newTableState returns empty tables; the version counts are made with
// their first entry.
func newTableState() *tableState { return &tableState{} }

func (t *tableState) clone() *tableState {
	c := &tableState{
		server:   t.server.clone(),
		client:   t.client.clone(),
		mappedBy: t.mappedBy.clone(),
		missSrv:  t.missSrv.clone(),
		missCli:  t.missCli.clone(),
		queue:    append([]pending(nil), t.queue...),
		full:     t.full,
	}
	for side := range c.versions {
		if t.versions[side] == nil {
			continue
		}
		c.versions[side] = make(map[string]map[uint32]int, len(t.versions[side]))
		for typ, vs := range t.versions[side] {
			c.versions[side][typ] = maps.Clone(vs)
		}
	}
	return c
}

// result is what applying an op tells the message it came from.
type result struct {
	resolved bool
	findings []dissect.Finding
	replayed []int // message numbers of queued references this op resolved
}

// count adds one invoke of payload bits to the listener ref names and
// reports whether it was found. A C→S reference by server ID counts on the
// client entry mapped to that server ID (wire.md 4.5); when the server
// defined the listener first there is no client entry, and the reference is
// resolved but counted nowhere, since the server table counts S→C invokes
// only (outputs.md "invokes").
func (t *tableState) count(r Ref, payload, n int) bool {
	switch {
	case r.Dir == dissect.S2C:
		e := t.server.ptr(r.ID)
		if e != nil {
			e.Invokes++
			e.PayloadBits += payload
			e.touched = n
		}
		return e != nil
	case r.Client:
		e := t.client.ptr(r.ID)
		if e != nil {
			e.Invokes++
			e.PayloadBits += payload
			e.touched = n
		}
		return e != nil
	default:
		if cid := t.mappedBy.ptr(r.ID); cid != nil {
			if e := t.client.ptr(*cid); e != nil {
				e.Invokes++
				e.PayloadBits += payload
				e.touched = n
				return true
			}
		}
		return t.server.ptr(r.ID) != nil
	}
}

// setServer creates or updates a server entry; an update keeps where and
// when the entry was first learned and its counts.
func (t *tableState) setServer(id uint32, typ string, version uint32, idBits int, how Learned, n int, lim *unturned.Limits) bool {
	e, ok := t.server.get(id)
	if !ok {
		if t.server.len() >= lim.MaxEntries {
			return false
		}
		e = ServerEntry{ID: id, Learned: how, First: n}
		t.countType(0, typ, version, 1)
	} else if e.Type != typ || e.Version != version {
		// A definition repeated unchanged (the common case) leaves the
		// counts as they are.
		t.countType(0, e.Type, e.Version, -1)
		t.countType(0, typ, version, 1)
	}
	e.Type, e.Version, e.IDBits, e.touched = typ, version, idBits, n
	t.server.set(id, e)
	return true
}

// setClient creates or updates a client entry, mapping it to sid when
// mapped is set.
func (t *tableState) setClient(id uint32, typ string, version uint32, sid uint32, mapped bool, how Learned, n int, lim *unturned.Limits) bool {
	e, ok := t.client.get(id)
	if !ok {
		if t.client.len() >= lim.MaxEntries {
			return false
		}
		e = ClientEntry{ID: id, Learned: how, First: n}
		t.countType(1, typ, version, 1)
	} else if e.Type != typ || e.Version != version {
		t.countType(1, e.Type, e.Version, -1)
		t.countType(1, typ, version, 1)
	}
	e.Type, e.Version, e.touched = typ, version, n
	if mapped {
		if e.Mapped && e.ServerID != sid && t.mappedBy.at(e.ServerID) == id {
			t.mappedBy.del(e.ServerID)
		}
		e.ServerID, e.Mapped = sid, true
		t.mappedBy.set(sid, id)
	}
	t.client.set(id, e)
	return true
}

// apply performs o on the tables (wire.md 4.5) and sets res, which starts
// zero, to its outcome. res is the caller's: a result returned by value was
// built field by field and copied whole, which stalled the store buffer on
// every USMN message (issue 18).
func (t *tableState) apply(o *op, lim *unturned.Limits, res *result) {
	stored := true
	switch o.kind {
	case opServerDef:
		stored = t.setServer(o.sid, o.typ, o.version, int(o.idBits), LearnedDefinition, o.n, lim)
		res.resolved = t.count(Ref{N: o.n, Dir: dissect.S2C, ID: o.sid}, o.payload, o.n) || stored
	case opClientDef:
		stored = t.setClient(o.cid, o.typ, o.version, 0, false, LearnedDefinition, o.n, lim)
		res.resolved = t.count(Ref{N: o.n, Dir: dissect.C2S, ID: o.cid, Client: true}, o.payload, o.n) || stored
	case opServerInvoke:
		res.resolved = t.reference(Ref{N: o.n, Dir: dissect.S2C, ID: o.sid}, o.payload, res, lim)
	case opClientInvoke:
		res.resolved = t.reference(Ref{N: o.n, Dir: dissect.C2S, ID: o.cid, Client: true}, o.payload, res, lim)
	case opServerIDInvoke:
		res.resolved = t.reference(Ref{N: o.n, Dir: dissect.C2S, ID: o.sid}, o.payload, res, lim)
	case opMissingClient:
		stored = addSet(&t.missSrv, o.cid, lim)
	case opMissingServer:
		stored = addSet(&t.missCli, o.sid, lim)
	case opTellID:
		stored = t.setServer(o.sid, o.typ, o.version, int(o.idBits), LearnedNegotiate, o.n, lim)
		if e, ok := t.client.get(o.cid); ok {
			// An existing client entry keeps its own type, version and how
			// it was learned; the negotiation adds the mapping (wire.md
			// 4.5). The message's version is the server's, so a difference
			// shows as a version mismatch rather than being overwritten.
			stored = t.setClient(o.cid, e.Type, e.Version, o.sid, true, e.Learned, o.n, lim) && stored
		} else {
			stored = t.setClient(o.cid, o.typ, o.version, o.sid, true, LearnedNegotiate, o.n, lim) && stored
		}
		res.resolved = true
	case opRequestID:
		stored = t.setClient(o.cid, o.typ, o.version, 0, false, LearnedNegotiate, o.n, lim)
		res.resolved = true
	}
	if !stored {
		res.findings = append(res.findings, t.limitFinding(fmt.Sprintf("listener table holds %d entries; entry dropped", lim.MaxEntries)))
	}
	if o.defines() {
		res.findings = append(res.findings, t.mismatch(o)...)
		t.replay(res, o.n)
	}
}

// limitFinding reports a hit limit: a warning the first time on the
// connection, a note on each message that hits it again, so the row shows
// what was dropped without a flood of warnings.
func (t *tableState) limitFinding(text string) dissect.Finding {
	sev := dissect.Warn
	if t.full {
		sev = dissect.Note
	}
	t.full = true
	return dissect.Finding{Severity: sev, Group: dissect.Protocol, Text: text, Bit: -1}
}

// reference counts an invoke by ID, or queues it when the ID is unknown.
func (t *tableState) reference(r Ref, payload int, res *result, lim *unturned.Limits) bool {
	if t.count(r, payload, r.N) {
		return true
	}
	if len(t.queue) >= lim.MaxUnresolved {
		res.findings = append(res.findings, t.limitFinding(fmt.Sprintf("unresolved queue holds %d references; reference to %s listener %d dropped", lim.MaxUnresolved, idSide(r), r.ID)))
		return false
	}
	t.queue = append(t.queue, pending{Ref: r, payload: payload})
	res.findings = append(res.findings, dissect.Finding{Severity: dissect.Note, Group: dissect.Sequence, Text: fmt.Sprintf("%s listener ID %d not known yet; held until defined", idSide(r), r.ID), Bit: -1})
	return false
}

func idSide(r Ref) string {
	if r.Client {
		return "client"
	}
	return "server"
}

// replay resolves queued references in order and stops at the first one
// still unmapped, even if later ones could resolve (wire.md 4.5, Unreal's
// delayed RPCs of seed 003).
func (t *tableState) replay(res *result, n int) {
	i := 0
	for ; i < len(t.queue); i++ {
		q := t.queue[i]
		if !t.count(q.Ref, q.payload, n) {
			break
		}
		res.replayed = append(res.replayed, q.N)
	}
	if i > 0 {
		t.queue = append(t.queue[:0], t.queue[i:]...)
	}
}

// mismatch reports a listener type present on both sides with different
// versions (wire.md 4.5; a warning), for the entries o just wrote.
func (t *tableState) mismatch(o *op) []dissect.Finding {
	switch o.kind {
	case opServerDef, opTellID:
		if v, ok := t.otherVersion(1, o.typ, o.version); ok {
			return []dissect.Finding{versionFinding(o.typ, o.version, v)}
		}
	case opClientDef, opRequestID:
		if v, ok := t.otherVersion(0, o.typ, o.version); ok {
			return []dissect.Finding{versionFinding(o.typ, v, o.version)}
		}
	}
	return nil
}

func versionFinding(typ string, server, client uint32) dissect.Finding {
	return dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Text: fmt.Sprintf("listener %s: server has version %d, client version %d", termsafe.Escape(typ), server, client), Bit: -1}
}

func addSet(m *idTable[struct{}], id uint32, lim *unturned.Limits) bool {
	if m.ptr(id) != nil {
		return true
	}
	if m.len() >= lim.MaxEntries {
		return false
	}
	m.set(id, struct{}{})
	return true
}

// snapshot returns the state as a Tables value as of message asOf.
func (t *tableState) snapshot(conn dissect.Conn, asOf int) *Tables {
	out := &Tables{
		Conn:            conn,
		AsOf:            asOf,
		Server:          make([]ServerEntry, 0, t.server.len()),
		Client:          make([]ClientEntry, 0, t.client.len()),
		MissingOnServer: t.missSrv.ids(),
		MissingOnClient: t.missCli.ids(),
		Unresolved:      make([]Ref, 0, len(t.queue)),
	}
	t.server.each(func(_ uint32, p *ServerEntry) {
		e := *p
		e.Changed = e.touched == asOf && asOf > 0
		e.touched = 0
		out.Server = append(out.Server, e)
	})
	t.client.each(func(_ uint32, p *ClientEntry) {
		e := *p
		e.Changed = e.touched == asOf && asOf > 0
		e.touched = 0
		out.Client = append(out.Client, e)
	})
	sort.Slice(out.Server, func(i, j int) bool { return out.Server[i].ID < out.Server[j].ID })
	sort.Slice(out.Client, func(i, j int) bool { return out.Client[i].ID < out.Client[j].ID })
	for _, q := range t.queue {
		out.Unresolved = append(out.Unresolved, q.Ref)
	}
	// Version mismatches: a type on both sides with different versions.
	clientVersion := make(map[string]uint32, len(out.Client))
	for _, e := range out.Client {
		if _, ok := clientVersion[e.Type]; !ok {
			clientVersion[e.Type] = e.Version
		}
	}
	for _, e := range out.Server {
		if v, ok := clientVersion[e.Type]; ok && v != e.Version {
			out.Warnings = append(out.Warnings, versionFinding(e.Type, e.Version, v))
		}
	}
	return out
}
