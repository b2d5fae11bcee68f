package session

import (
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestRecordSize holds the message index record to 36 bytes, so that the
// index, the connection's message list and the views' own index stay within
// issue 7's budget of 64 bytes per message.
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(record{}); n > 36 {
		t.Errorf("unsafe.Sizeof(record{}) = %d; want ≤ 36", n)
	}
}

// TestReplayStopsAtFirstUnmapped applies operations to a bare table state:
// a definition replays the queue from its head and stops at the first
// reference still unmapped (wire.md 4.5, seed 003), and a replayed
// reference counts in its listener.
func TestReplayStopsAtFirstUnmapped(t *testing.T) {
	lim := unturned.DefaultLimits()
	st := newTableState()
	ops := []op{
		{kind: opServerInvoke, n: 1, sid: 5, payload: 10},
		{kind: opServerInvoke, n: 2, sid: 6, payload: 20},
		{kind: opServerInvoke, n: 3, sid: 5, payload: 30},
	}
	for i := range ops {
		if res := applied(st, &ops[i], &lim); res.resolved {
			t.Errorf("apply(invoke srv#%d) resolved with empty tables", ops[i].sid)
		}
	}
	// Defining 6 resolves nothing: the head (srv#5, message 1) is unmapped.
	res := applied(st, &op{kind: opServerDef, n: 4, sid: 6, idBits: 3, typ: "B", version: 1}, &lim)
	if len(res.replayed) != 0 || len(st.queue) != 3 {
		t.Errorf("after defining srv#6: replayed %v, queue %d; want none replayed, 3 queued", res.replayed, len(st.queue))
	}
	// Defining 5 resolves the whole queue in order.
	res = applied(st, &op{kind: opServerDef, n: 5, sid: 5, idBits: 3, typ: "A", version: 1, payload: 1}, &lim)
	if want := []int{1, 2, 3}; !reflect.DeepEqual(res.replayed, want) || len(st.queue) != 0 {
		t.Errorf("after defining srv#5: replayed %v, queue %d; want %v, 0", res.replayed, len(st.queue), want)
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
	st := newTableState()
	applied(st, &op{kind: opClientDef, n: 1, cid: 100, typ: "A", version: 1, payload: 8}, &lim)
	applied(st, &op{kind: opTellID, n: 2, cid: 100, sid: 3, idBits: 2, typ: "A", version: 1}, &lim)
	if got, want := st.client.at(100), (ClientEntry{ID: 100, Type: "A", Version: 1, ServerID: 3, Mapped: true, Learned: LearnedDefinition, First: 1, Invokes: 1, PayloadBits: 8, touched: 2}); got != want {
		t.Errorf("client 100 = %+v; want %+v", got, want)
	}
	if got, want := st.server.at(3), (ServerEntry{ID: 3, Type: "A", Version: 1, IDBits: 2, Learned: LearnedNegotiate, First: 2, touched: 2}); got != want {
		t.Errorf("server 3 = %+v; want %+v", got, want)
	}
	applied(st, &op{kind: opTellID, n: 3, cid: 100, sid: 1, idBits: 2, typ: "A", version: 1}, &lim)
	if _, ok := st.mappedBy.get(3); ok || st.mappedBy.at(1) != 100 {
		t.Errorf("mappedBy = %v; want only 1 → 100 after the remapping", st.mappedBy)
	}
	if res := applied(st, &op{kind: opServerIDInvoke, n: 4, sid: 1, payload: 5}, &lim); !res.resolved || st.client.at(100).Invokes != 2 {
		t.Errorf("C2S invoke by srv#1: resolved %v, client 100 invokes %d; want true, 2", res.resolved, st.client.at(100).Invokes)
	}
}

func TestVersionMismatch(t *testing.T) {
	lim := unturned.DefaultLimits()
	for _, tc := range []struct {
		name string
		ops  []op
		warn bool
	}{
		{"same version", []op{{kind: opRequestID, n: 1, cid: 1, typ: "A", version: 2}, {kind: opServerDef, n: 2, sid: 0, typ: "A", version: 2}}, false},
		{"server first", []op{{kind: opServerDef, n: 1, sid: 0, typ: "A", version: 2}, {kind: opClientDef, n: 2, cid: 9, typ: "A", version: 3}}, true},
		{"client first", []op{{kind: opRequestID, n: 1, cid: 1, typ: "A", version: 1}, {kind: opServerDef, n: 2, sid: 0, typ: "A", version: 2}}, true},
		{"TellClientListenerId keeps the client's version", []op{{kind: opRequestID, n: 1, cid: 1, typ: "A", version: 1}, {kind: opTellID, n: 2, cid: 1, sid: 0, typ: "A", version: 2}}, true},
		{"different types", []op{{kind: opRequestID, n: 1, cid: 1, typ: "A", version: 1}, {kind: opServerDef, n: 2, sid: 0, typ: "B", version: 2}}, false},
	} {
		st := newTableState()
		var fs []dissect.Finding
		for i := range tc.ops {
			fs = append(fs, applied(st, &tc.ops[i], &lim).findings...)
		}
		snap := st.snapshot(cvConn, 2)
		if got := len(fs) == 1 && len(snap.Warnings) == 1 && fs[0].Severity == dissect.Warn; got != tc.warn {
			t.Errorf("%s: findings %+v, snapshot warnings %+v; want a warning: %v", tc.name, fs, snap.Warnings, tc.warn)
		}
	}
}

// BenchmarkTablesAsOf asks for the tables as of random messages of a
// 100k-message conversation, as the TUI does on every selection move.
func BenchmarkTablesAsOf(b *testing.B) {
	rng := rand.New(rand.NewSource(7))
	dirs, msgs := genConversation(rng, 100_000)
	f := newCVFeeder()
	for i := range msgs {
		f.send(dirs[i], msgs[i])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if f.c.Tables(cvConn, 1+rng.Intn(len(msgs))) == nil {
			b.Fatal("nil tables")
		}
	}
}

// segStore is a Store over byte runs at arbitrary offsets, so that offsets
// far apart need no real file.
type segStore map[int64][]byte

func (s segStore) ReadAt(p []byte, off int64) (int, error) {
	for at, b := range s {
		if off >= at && off < at+int64(len(b)) {
			n := copy(p, b[off-at:])
			if n < len(p) {
				return n, io.EOF
			}
			return n, nil
		}
	}
	return 0, io.EOF
}

// TestRecordDeltas: times and offsets that do not fit a record's 32-bit
// deltas (nanoseconds past 4.29 s, microseconds past 71 minutes, earlier
// than the block's first, file offsets 8 GiB apart) come back exactly, from
// the file as from memory.
func TestRecordDeltas(t *testing.T) {
	t0 := time.Unix(1700000000, 123456789)
	steps := []struct {
		d   time.Duration
		off int64
	}{
		{0, 100},
		{time.Nanosecond, 200},
		{5 * time.Second, 300},                // µs-aligned past 4.29 s
		{5*time.Second + time.Nanosecond, 50}, // ns past 4.29 s; offset before the base
		{-time.Second, 8 << 30},               // before the block's first; 8 GiB on
		{2 * time.Hour, 400},                  // µs past 71 minutes
		{3 * time.Millisecond, 500},
	}
	mem, file := NewIndex(nil), NewIndex(nil)
	store := segStore{}
	file.SetStore(store)
	for i, s := range steps {
		body := []byte{byte(i), 0xA5, byte(i * 3)}
		seg := append([]byte{0, byte(len(body))}, body...)
		store[s.off] = seg
		at := t0.Add(s.d)
		mem.Data(cvConn, dissect.C2S, seg, at, i+1)
		file.DataAt(cvConn, dissect.C2S, seg, at, i+1, s.off)
	}
	mem.Finish()
	file.Finish()
	if f, m := file.Placement(); f != len(steps) || m != 0 {
		t.Fatalf("Placement() = %d, %d; want %d, 0", f, m, len(steps))
	}
	for n := 1; n <= len(steps); n++ {
		want := t0.Add(steps[n-1].d).UTC()
		for name, c := range map[string]*Index{"memory": mem, "file": file} {
			m := c.Message(n)
			if m == nil || !m.Time.Equal(want) {
				t.Errorf("%s: Message(%d).Time = %v; want %v", name, n, m.Time, want)
			}
			if !reflect.DeepEqual(m.Data, []byte{byte(n - 1), 0xA5, byte((n - 1) * 3)}) {
				t.Errorf("%s: Message(%d).Data = % x; want its body", name, n, m.Data)
			}
		}
		if got, want := file.Detail(n), mem.Detail(n); !reflect.DeepEqual(got, want) {
			t.Errorf("Detail(%d) from the store = %+v; want %+v", n, got, want)
		}
	}
}

// TestStoreReadError: when the file no longer holds a message's bytes (cut
// or changed after reading), Message and Detail still answer, with what was
// read and an error finding naming the offset, and the tables as of an
// earlier message are still built.
func TestStoreReadError(t *testing.T) {
	c := NewIndex(nil)
	store := segStore{}
	c.SetStore(store)
	seg := []byte{0, 3, 0x11, 0x22, 0x33, 0, 2, 0x44, 0x55}
	c.DataAt(cvConn, dissect.C2S, seg, cvT0, 1, 1000)
	c.Finish()
	store[1000] = seg[:4] // the second message and the first's last byte are gone
	for _, m := range []*Message{c.Message(1), c.Detail(1), c.Message(2)} {
		if m == nil {
			t.Fatal("nil message")
		}
		found := false
		for _, f := range m.Findings {
			if f.Severity == dissect.Error && strings.Contains(f.Text, "capture file: message bytes at offset") {
				found = true
			}
		}
		if !found {
			t.Errorf("Message(%d).Findings = %+v; want an error naming the file offset", m.N, m.Findings)
		}
	}
	if got := c.Message(1).Data; !reflect.DeepEqual(got, []byte{0x11, 0x22}) {
		t.Errorf("Message(1).Data = % x; want the 2 bytes still there", got)
	}
	if c.Tables(cvConn, 1) == nil {
		t.Error("Tables(conn, 1) = nil")
	}
}

// applied is st.apply for a test: the outcome as a value.
func applied(st *tableState, o *op, lim *unturned.Limits) result {
	var res result
	st.apply(o, lim, &res)
	return res
}
