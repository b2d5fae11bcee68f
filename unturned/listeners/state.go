package listeners

import (
	"fmt"
	"maps"
	"sort"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/unturned"
)

// pending is an unresolved reference waiting in the queue.
type pending struct {
	Ref
	payload int
}

// State is the mutable listener-ID state of one connection (wire.md 4.5),
// changed only by applying Ops in message order (Apply).
type State struct {
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
func (t *State) countType(side int, typ string, version uint32, delta int) {
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
func (t *State) otherVersion(side int, typ string, version uint32) (uint32, bool) {
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

// New returns empty tables; the version counts are made with
// their first entry.
func New() *State { return &State{} }

// Clone returns an independent copy of t (a checkpoint).
func (t *State) Clone() *State {
	c := &State{
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

// Server returns the server entry of id.
func (t *State) Server(id uint32) (ServerEntry, bool) { return t.server.get(id) }

// Client returns the client entry of id.
func (t *State) Client(id uint32) (ClientEntry, bool) { return t.client.get(id) }

// MappedBy returns the client ID TellClientListenerId mapped to server ID
// sid.
func (t *State) MappedBy(sid uint32) (uint32, bool) { return t.mappedBy.get(sid) }

// Size counts the entries and the queued references: what a copy of t
// costs (a checkpoint).
func (t *State) Size() int { return t.server.len() + t.client.len() + len(t.queue) }

// FirstUnresolved is the number of the oldest reference still waiting for
// its ID; ok false: none (nil: no tables yet).
func (t *State) FirstUnresolved() (n int, ok bool) {
	if t == nil || len(t.queue) == 0 {
		return 0, false
	}
	return t.queue[0].N, true
}

// Result is what applying an Op tells the message it came from.
type Result struct {
	Resolved bool
	Findings []dissect.Finding
	Replayed []int // message numbers of queued references this Op resolved
}

// count adds one invoke of payload bits to the listener ref names and
// reports whether it was found. A C→S reference by server ID counts on the
// client entry mapped to that server ID (wire.md 4.5); when the server
// defined the listener first there is no client entry, and the reference is
// resolved but counted nowhere, since the server table counts S→C invokes
// only (outputs.md "invokes").
func (t *State) count(r Ref, payload, n int) bool {
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
func (t *State) setServer(id uint32, typ string, version uint32, idBits int, how Learned, n int, lim *unturned.Limits) bool {
	e, ok := t.server.get(id)
	if !ok {
		if t.server.len() >= lim.MaxEntries {
			return false
		}
		e = ServerEntry{ID: id, Learned: how, First: n}
	}
	t.retype(0, ok, e.Type, e.Version, typ, version)
	e.Type, e.Version, e.IDBits, e.touched = typ, version, idBits, n
	t.server.set(id, e)
	return true
}

// retype counts an entry of side (0 server, 1 client) under typ and
// version: a new one (had false) once; a known one, defined as (oldTyp,
// oldVer), moved to the new type when either changed. A definition
// repeated unchanged (the common case) leaves the counts as they are.
func (t *State) retype(side int, had bool, oldTyp string, oldVer uint32, typ string, version uint32) {
	switch {
	case !had:
		t.countType(side, typ, version, 1)
	case oldTyp != typ || oldVer != version:
		t.countType(side, oldTyp, oldVer, -1)
		t.countType(side, typ, version, 1)
	}
}

// setClient creates or updates a client entry, mapping it to sid when
// mapped is set.
func (t *State) setClient(id uint32, typ string, version uint32, sid uint32, mapped bool, how Learned, n int, lim *unturned.Limits) bool {
	e, ok := t.client.get(id)
	if !ok {
		if t.client.len() >= lim.MaxEntries {
			return false
		}
		e = ClientEntry{ID: id, Learned: how, First: n}
	}
	t.retype(1, ok, e.Type, e.Version, typ, version)
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
// zero, to its outcome. res is the caller's: a Result returned by value was
// built field by field and copied whole, which stalled the store buffer on
// every USMN message (issue 18).
func (t *State) Apply(o *Op, lim *unturned.Limits, res *Result) {
	stored := true
	switch o.Kind {
	case OpServerDef:
		stored = t.setServer(o.SID, o.Type, o.Version, int(o.IDBits), LearnedDefinition, o.N, lim)
		res.Resolved = t.count(Ref{N: o.N, Dir: dissect.S2C, ID: o.SID}, o.Payload, o.N) || stored
	case OpClientDef:
		stored = t.setClient(o.CID, o.Type, o.Version, 0, false, LearnedDefinition, o.N, lim)
		res.Resolved = t.count(Ref{N: o.N, Dir: dissect.C2S, ID: o.CID, Client: true}, o.Payload, o.N) || stored
	case OpServerInvoke:
		res.Resolved = t.reference(Ref{N: o.N, Dir: dissect.S2C, ID: o.SID}, o.Payload, res, lim)
	case OpClientInvoke:
		res.Resolved = t.reference(Ref{N: o.N, Dir: dissect.C2S, ID: o.CID, Client: true}, o.Payload, res, lim)
	case OpServerIDInvoke:
		res.Resolved = t.reference(Ref{N: o.N, Dir: dissect.C2S, ID: o.SID}, o.Payload, res, lim)
	case OpMissingClient:
		stored = addSet(&t.missSrv, o.CID, lim)
	case OpMissingServer:
		stored = addSet(&t.missCli, o.SID, lim)
	case OpTellID:
		stored = t.setServer(o.SID, o.Type, o.Version, int(o.IDBits), LearnedNegotiate, o.N, lim)
		if e, ok := t.client.get(o.CID); ok {
			// An existing client entry keeps its own type, version and how
			// it was learned; the negotiation adds the mapping (wire.md
			// 4.5). The message's version is the server's, so a difference
			// shows as a version mismatch rather than being overwritten.
			stored = t.setClient(o.CID, e.Type, e.Version, o.SID, true, e.Learned, o.N, lim) && stored
		} else {
			stored = t.setClient(o.CID, o.Type, o.Version, o.SID, true, LearnedNegotiate, o.N, lim) && stored
		}
		res.Resolved = true
	case OpRequestID:
		stored = t.setClient(o.CID, o.Type, o.Version, 0, false, LearnedNegotiate, o.N, lim)
		res.Resolved = true
	}
	if !stored {
		res.Findings = append(res.Findings, t.limitFinding(fmt.Sprintf("listener table holds %d entries; entry dropped", lim.MaxEntries)))
	}
	if o.defines() {
		res.Findings = append(res.Findings, t.mismatch(o)...)
		t.replay(res, o.N)
	}
}

// limitFinding reports a hit limit: a warning the first time on the
// connection, a note on each message that hits it again, so the row shows
// what was dropped without a flood of warnings.
func (t *State) limitFinding(text string) dissect.Finding {
	sev := dissect.Warn
	if t.full {
		sev = dissect.Note
	}
	t.full = true
	return dissect.Finding{Severity: sev, Group: dissect.Protocol, Text: text, Bit: -1}
}

// reference counts an invoke by ID, or queues it when the ID is unknown.
func (t *State) reference(r Ref, payload int, res *Result, lim *unturned.Limits) bool {
	if t.count(r, payload, r.N) {
		return true
	}
	if len(t.queue) >= lim.MaxUnresolved {
		res.Findings = append(res.Findings, t.limitFinding(fmt.Sprintf("unresolved queue holds %d references; reference to %s listener %d dropped", lim.MaxUnresolved, idSide(r), r.ID)))
		return false
	}
	t.queue = append(t.queue, pending{Ref: r, payload: payload})
	res.Findings = append(res.Findings, dissect.Finding{Severity: dissect.Note, Group: dissect.Sequence, Text: fmt.Sprintf("%s listener ID %d not known yet; held until defined", idSide(r), r.ID), Bit: -1})
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
func (t *State) replay(res *Result, n int) {
	i := 0
	for ; i < len(t.queue); i++ {
		q := t.queue[i]
		if !t.count(q.Ref, q.payload, n) {
			break
		}
		res.Replayed = append(res.Replayed, q.N)
	}
	if i > 0 {
		t.queue = append(t.queue[:0], t.queue[i:]...)
	}
}

// mismatch reports a listener type present on both sides with different
// versions (wire.md 4.5; a warning), for the entries o just wrote.
func (t *State) mismatch(o *Op) []dissect.Finding {
	switch o.Kind {
	case OpServerDef, OpTellID:
		if v, ok := t.otherVersion(1, o.Type, o.Version); ok {
			return []dissect.Finding{versionFinding(o.Type, o.Version, v)}
		}
	case OpClientDef, OpRequestID:
		if v, ok := t.otherVersion(0, o.Type, o.Version); ok {
			return []dissect.Finding{versionFinding(o.Type, v, o.Version)}
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

// Snapshot is the tables as of one message, lists sorted by ID.
type Snapshot struct {
	Server          []ServerEntry
	Client          []ClientEntry
	MissingOnServer []uint32 // client IDs the server said it lacks
	MissingOnClient []uint32 // server IDs the client said it lacks
	Unresolved      []Ref
	Warnings        []dissect.Finding // version mismatches
}

// Snapshot returns the state as of message asOf: an entry asOf created,
// updated or counted is Changed.
func (t *State) Snapshot(asOf int) Snapshot {
	out := Snapshot{
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
