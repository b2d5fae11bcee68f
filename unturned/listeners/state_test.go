package listeners

import (
	"reflect"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestReplayStopsAtFirstUnmapped applies operations to a bare table state:
// a definition replays the queue from its head and stops at the first
// reference still unmapped (wire.md 4.5, seed 003), and a replayed
// reference counts in its listener.
func TestReplayStopsAtFirstUnmapped(t *testing.T) {
	lim := unturned.DefaultLimits()
	st := New()
	ops := []Op{
		{Kind: OpServerInvoke, N: 1, SID: 5, Payload: 10},
		{Kind: OpServerInvoke, N: 2, SID: 6, Payload: 20},
		{Kind: OpServerInvoke, N: 3, SID: 5, Payload: 30},
	}
	for i := range ops {
		if res := applied(st, &ops[i], &lim); res.Resolved {
			t.Errorf("apply(invoke srv#%d) resolved with empty tables", ops[i].SID)
		}
	}
	// Defining 6 resolves nothing: the head (srv#5, message 1) is unmapped.
	res := applied(st, &Op{Kind: OpServerDef, N: 4, SID: 6, IDBits: 3, Type: "B", Version: 1}, &lim)
	if len(res.Replayed) != 0 || len(st.queue) != 3 {
		t.Errorf("after defining srv#6: replayed %v, queue %d; want none replayed, 3 queued", res.Replayed, len(st.queue))
	}
	// Defining 5 resolves the whole queue in order.
	res = applied(st, &Op{Kind: OpServerDef, N: 5, SID: 5, IDBits: 3, Type: "A", Version: 1, Payload: 1}, &lim)
	if want := []int{1, 2, 3}; !reflect.DeepEqual(res.Replayed, want) || len(st.queue) != 0 {
		t.Errorf("after defining srv#5: replayed %v, queue %d; want %v, 0", res.Replayed, len(st.queue), want)
	}
	if e := st.server.at(5); e.Invokes != 3 || e.PayloadBits != 41 {
		t.Errorf("srv#5 = %+v; want 3 invokes (1 + 2 replayed), 41 payload bits", e)
	}
	if e := st.server.at(6); e.Invokes != 2 || e.PayloadBits != 20 {
		t.Errorf("srv#6 = %+v; want 2 invokes (1 + 1 replayed), 20 payload bits", e)
	}
}

// TestTellClientListenerIDUpdates: TellClientListenerId creates or updates
// entries in both tables; an existing client entry keeps where it was first
// learned, and a remapping moves the server-ID lookup (wire.md 4.5).
func TestTellClientListenerIDUpdates(t *testing.T) {
	lim := unturned.DefaultLimits()
	st := New()
	applied(st, &Op{Kind: OpClientDef, N: 1, CID: 100, Type: "A", Version: 1, Payload: 8}, &lim)
	applied(st, &Op{Kind: OpTellID, N: 2, CID: 100, SID: 3, IDBits: 2, Type: "A", Version: 1}, &lim)
	if got, want := st.client.at(100), (ClientEntry{ID: 100, Type: "A", Version: 1, ServerID: 3, Mapped: true, Learned: LearnedDefinition, First: 1, Invokes: 1, PayloadBits: 8, touched: 2}); got != want {
		t.Errorf("client 100 = %+v; want %+v", got, want)
	}
	if got, want := st.server.at(3), (ServerEntry{ID: 3, Type: "A", Version: 1, IDBits: 2, Learned: LearnedNegotiate, First: 2, touched: 2}); got != want {
		t.Errorf("server 3 = %+v; want %+v", got, want)
	}
	applied(st, &Op{Kind: OpTellID, N: 3, CID: 100, SID: 1, IDBits: 2, Type: "A", Version: 1}, &lim)
	if _, ok := st.mappedBy.get(3); ok || st.mappedBy.at(1) != 100 {
		t.Errorf("mappedBy = %v; want only 1 → 100 after the remapping", st.mappedBy)
	}
	if res := applied(st, &Op{Kind: OpServerIDInvoke, N: 4, SID: 1, Payload: 5}, &lim); !res.Resolved || st.client.at(100).Invokes != 2 {
		t.Errorf("C2S invoke by srv#1: resolved %v, client 100 invokes %d; want true, 2", res.Resolved, st.client.at(100).Invokes)
	}
}

func TestVersionMismatch(t *testing.T) {
	lim := unturned.DefaultLimits()
	for _, tc := range []struct {
		name string
		ops  []Op
		warn bool
	}{
		{"same version", []Op{{Kind: OpRequestID, N: 1, CID: 1, Type: "A", Version: 2}, {Kind: OpServerDef, N: 2, SID: 0, Type: "A", Version: 2}}, false},
		{"server first", []Op{{Kind: OpServerDef, N: 1, SID: 0, Type: "A", Version: 2}, {Kind: OpClientDef, N: 2, CID: 9, Type: "A", Version: 3}}, true},
		{"client first", []Op{{Kind: OpRequestID, N: 1, CID: 1, Type: "A", Version: 1}, {Kind: OpServerDef, N: 2, SID: 0, Type: "A", Version: 2}}, true},
		{"TellClientListenerId keeps the client's version", []Op{{Kind: OpRequestID, N: 1, CID: 1, Type: "A", Version: 1}, {Kind: OpTellID, N: 2, CID: 1, SID: 0, Type: "A", Version: 2}}, true},
		{"different types", []Op{{Kind: OpRequestID, N: 1, CID: 1, Type: "A", Version: 1}, {Kind: OpServerDef, N: 2, SID: 0, Type: "B", Version: 2}}, false},
	} {
		st := New()
		var fs []dissect.Finding
		for i := range tc.ops {
			fs = append(fs, applied(st, &tc.ops[i], &lim).Findings...)
		}
		snap := st.Snapshot(2)
		if got := len(fs) == 1 && len(snap.Warnings) == 1 && fs[0].Severity == dissect.Warn; got != tc.warn {
			t.Errorf("%s: findings %+v, snapshot warnings %+v; want a warning: %v", tc.name, fs, snap.Warnings, tc.warn)
		}
	}
}

// applied is st.apply for a test: the outcome as a value.
func applied(st *State, o *Op, lim *unturned.Limits) Result {
	var res Result
	st.Apply(o, lim, &res)
	return res
}

func TestOpKindString(t *testing.T) {
	for k, want := range map[OpKind]string{OpNone: "none", OpTellID: "TellClientListenerId", OpRequestID: "RequestServerListenerId", 99: "Unknown(99)"} {
		if got := k.String(); got != want {
			t.Errorf("OpKind(%d).String() = %q; want %q", k, got, want)
		}
	}
}
