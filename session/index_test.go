package session

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/unturned/listeners"
)

var (
	cvConn = dissect.Conn{
		Client: netip.MustParseAddrPort("10.0.0.2:50412"),
		Server: netip.MustParseAddrPort("10.0.0.1:27016"),
	}
	cvT0  = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	cvEnc = unturned.Encoder{}
)

// cvFrame puts the 2-byte big-endian SystemSockets length before each
// message (wire.md 2).
func cvFrame(msgs ...[]byte) []byte {
	var out []byte
	for _, m := range msgs {
		out = binary.BigEndian.AppendUint16(out, uint16(len(m)))
		out = append(out, m...)
	}
	return out
}

// cvFeeder sends messages to a Index one packet each, numbering frames.
type cvFeeder struct {
	c     *Index
	conn  dissect.Conn
	frame int
}

func newCVFeeder() *cvFeeder { return &cvFeeder{c: NewIndex(nil), conn: cvConn} }

func (f *cvFeeder) send(dir dissect.Dir, msgs ...[]byte) {
	f.frame++
	f.c.Data(f.conn, dir, cvFrame(msgs...), cvT0.Add(time.Duration(f.frame)*time.Millisecond), f.frame)
}

// handshake sends GetWorkshopFiles and DownloadWorkshopFiles, with or
// without each side's marker; the server's marker sets idBits.
func (f *cvFeeder) handshake(clientMarker, serverMarker bool, idBits int) {
	f.send(dissect.C2S, cvEnc.GetWorkshopFiles(clientMarker, nil))
	var m *unturned.Marker
	if serverMarker {
		m = &unturned.Marker{Version: 1, IDBits: idBits, HasIDBits: true}
	}
	f.send(dissect.S2C, cvEnc.DownloadWorkshopFiles(unturned.WorkshopInfo{ServerName: "srv", Map: "PEI", MaxPlayers: 8}, m, nil))
}

const (
	cvChat  = "Sample.ChatListener, Sample"
	cvMap   = "Sample.MapListener, Sample"
	cvOther = "Sample.Other, Sample"
	cvLate  = "Sample.Late, Sample"
)

func cvS2C(def bool, sid uint32, idBits int, typ string, version uint32, payload ...byte) []byte {
	return cvEnc.InvokeS2C(true, unturned.Invoke{HasDefinition: def, ServerID: sid, IDBits: idBits, Type: typ, Version: version}, payload)
}

func cvBySID(sid uint32, idBits int, payload ...byte) []byte {
	return cvEnc.InvokeC2S(true, unturned.Invoke{ServerID: sid, IDBits: idBits}, payload)
}

func cvByCID(def bool, cid uint32, typ string, version uint32, payload ...byte) []byte {
	return cvEnc.InvokeC2S(true, unturned.Invoke{HasClientID: true, IsClientID: true, HasDefinition: def, ClientID: cid, Type: typ, Version: version}, payload)
}

func cvNegotiate(dir dissect.Dir, mode unturned.NegotiateMode, cid, sid uint32, idBits int, typ string, version uint32) []byte {
	return cvEnc.Negotiate(dir, true, unturned.Negotiate{Mode: mode, ClientID: cid, ServerID: sid, IDBits: idBits, Type: typ, Version: version})
}

// cvPlain strips what a comparison against written-out expectations should
// not see: the Changed flags (tested on their own) and the warnings.
func cvPlain(t *Tables) Tables {
	out := *t
	out.Server = append([]ServerEntry{}, t.Server...)
	out.Client = append([]ClientEntry{}, t.Client...)
	for i := range out.Server {
		out.Server[i].Changed = false
	}
	for i := range out.Client {
		out.Client[i].Changed = false
	}
	out.Warnings = nil
	return out
}

// TestConversation feeds a USMN conversation message by message and checks
// the listener-ID tables after every message against expectations written
// out from wire.md 4.3–4.5. The payload bit counts are computed by hand from
// the header layouts; see each step's comment.
func TestConversation(t *testing.T) {
	type srv = ServerEntry
	type cli = ClientEntry
	steps := []struct {
		name     string
		dir      dissect.Dir
		msg      []byte
		server   []ServerEntry
		client   []ClientEntry
		missSrv  []uint32
		missCli  []uint32
		queue    []Ref
		resolved bool // for USMN messages: listener.resolved
		warn     string
	}{
		// 1, 2: the handshake; the server's marker sets 2-bit IDs.
		{name: "GetWorkshopFiles+marker", dir: dissect.C2S, msg: cvEnc.GetWorkshopFiles(true, nil)},
		{name: "DownloadWorkshopFiles+marker", dir: dissect.S2C, msg: cvEnc.DownloadWorkshopFiles(unturned.WorkshopInfo{ServerName: "srv"}, &unturned.Marker{Version: 1, IDBits: 2, HasIDBits: true}, nil)},
		// 3: a client entry from negotiation.
		{name: "RequestServerListenerId 4001", dir: dissect.C2S, msg: cvNegotiate(dissect.C2S, unturned.RequestServerListenerID, 4001, 0, 2, cvChat, 1),
			client:   []cli{{ID: 4001, Type: cvChat, Version: 1, Learned: listeners.LearnedNegotiate, First: 3}},
			resolved: true},
		// 4: S→C invoke of unknown server ID 1: enum 6 + def 1 + id 2 = 9
		// bits of header, 8 payload bits, 3 bytes → 24 − 9 = 15 payload bits.
		{name: "S2C invoke srv#1 unknown", dir: dissect.S2C, msg: cvS2C(false, 1, 2, "", 0, 0xAB),
			client: []cli{{ID: 4001, Type: cvChat, Version: 1, Learned: listeners.LearnedNegotiate, First: 3}},
			queue:  []Ref{{N: 4, Dir: dissect.S2C, ID: 1}}},
		// 5: C→S invoke of unknown server ID 0: enum 5 + 1 + 2 = 8, 2 bytes → 8.
		{name: "C2S invoke srv#0 unknown", dir: dissect.C2S, msg: cvBySID(0, 2, 0xCD),
			client: []cli{{ID: 4001, Type: cvChat, Version: 1, Learned: listeners.LearnedNegotiate, First: 3}},
			queue:  []Ref{{N: 4, Dir: dissect.S2C, ID: 1}, {N: 5, Dir: dissect.C2S, ID: 0}}},
		// 6: TellClientListenerId defines server ID 0 in both tables. The
		// queue's head (srv#1) is still unmapped, so replay stops there even
		// though ref 5 could resolve now.
		{name: "TellClientListenerId 4001→0", dir: dissect.S2C, msg: cvNegotiate(dissect.S2C, unturned.TellClientListenerID, 4001, 0, 2, cvChat, 1),
			server:   []srv{{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6}},
			client:   []cli{{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3}},
			queue:    []Ref{{N: 4, Dir: dissect.S2C, ID: 1}, {N: 5, Dir: dissect.C2S, ID: 0}},
			resolved: true},
		// 7: S→C definition of srv#1 with 3-bit IDs: header 6+1+5+3 = 15,
		// string 1+11 → bit 27, align 32, 26 bytes → 240, version → 272;
		// payload 16 → 288 = 36 bytes: 16 payload bits. Replay resolves ref
		// 4 (15 bits on srv#1) and ref 5 (8 bits on cli#4001, mapped to 0).
		{name: "S2C def srv#1", dir: dissect.S2C, msg: cvS2C(true, 1, 3, cvMap, 2, 1, 2),
			server: []srv{
				{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6},
				{ID: 1, Type: cvMap, Version: 2, IDBits: 3, Learned: listeners.LearnedDefinition, First: 7, Invokes: 2, PayloadBits: 16 + 15},
			},
			client:   []cli{{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3, Invokes: 1, PayloadBits: 8}},
			resolved: true},
		// 8: C→S by server ID 0, now 3 bits in force: 5+1+3 = 9, 3 bytes → 15.
		{name: "C2S invoke srv#0 (3-bit ids)", dir: dissect.C2S, msg: cvBySID(0, 3, 0xEE),
			server: []srv{
				{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6},
				{ID: 1, Type: cvMap, Version: 2, IDBits: 3, Learned: listeners.LearnedDefinition, First: 7, Invokes: 2, PayloadBits: 31},
			},
			client:   []cli{{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3, Invokes: 2, PayloadBits: 8 + 15}},
			resolved: true},
		// 9: C→S by server ID 1, which the server defined first: resolved,
		// but no client entry counts it (the server table counts S→C only).
		{name: "C2S invoke srv#1", dir: dissect.C2S, msg: cvBySID(1, 3, 0x11),
			server: []srv{
				{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6},
				{ID: 1, Type: cvMap, Version: 2, IDBits: 3, Learned: listeners.LearnedDefinition, First: 7, Invokes: 2, PayloadBits: 31},
			},
			client:   []cli{{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3, Invokes: 2, PayloadBits: 23}},
			resolved: true},
		// 10: C→S definition by client ID: 5+1+1+32 = 39, string → 51, align
		// 56, 20 bytes → 216, version → 248, payload 8 → 256: 8 bits.
		{name: "C2S def cli#4002", dir: dissect.C2S, msg: cvByCID(true, 4002, cvOther, 5, 0x22),
			server: []srv{
				{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6},
				{ID: 1, Type: cvMap, Version: 2, IDBits: 3, Learned: listeners.LearnedDefinition, First: 7, Invokes: 2, PayloadBits: 31},
			},
			client: []cli{
				{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3, Invokes: 2, PayloadBits: 23},
				{ID: 4002, Type: cvOther, Version: 5, Learned: listeners.LearnedDefinition, First: 10, Invokes: 1, PayloadBits: 8},
			},
			resolved: true},
		{name: "TellClientMissingListener 4002", dir: dissect.S2C, msg: cvNegotiate(dissect.S2C, unturned.TellClientMissingListener, 4002, 0, 3, "", 0),
			server: []srv{
				{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6},
				{ID: 1, Type: cvMap, Version: 2, IDBits: 3, Learned: listeners.LearnedDefinition, First: 7, Invokes: 2, PayloadBits: 31},
			},
			client: []cli{
				{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3, Invokes: 2, PayloadBits: 23},
				{ID: 4002, Type: cvOther, Version: 5, Learned: listeners.LearnedDefinition, First: 10, Invokes: 1, PayloadBits: 8},
			},
			missSrv: []uint32{4002}, resolved: true},
		{name: "TellServerMissingListener 3", dir: dissect.C2S, msg: cvNegotiate(dissect.C2S, unturned.TellServerMissingListener, 0, 3, 3, "", 0),
			server: []srv{
				{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6},
				{ID: 1, Type: cvMap, Version: 2, IDBits: 3, Learned: listeners.LearnedDefinition, First: 7, Invokes: 2, PayloadBits: 31},
			},
			client: []cli{
				{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3, Invokes: 2, PayloadBits: 23},
				{ID: 4002, Type: cvOther, Version: 5, Learned: listeners.LearnedDefinition, First: 10, Invokes: 1, PayloadBits: 8},
			},
			missSrv: []uint32{4002}, missCli: []uint32{3}},
		// 13: C→S by unknown client ID 4003: 5+1+1+32 = 39, +8 → 47, 6 bytes → 9.
		{name: "C2S invoke cli#4003 unknown", dir: dissect.C2S, msg: cvByCID(false, 4003, "", 0, 0x33),
			server: []srv{
				{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6},
				{ID: 1, Type: cvMap, Version: 2, IDBits: 3, Learned: listeners.LearnedDefinition, First: 7, Invokes: 2, PayloadBits: 31},
			},
			client: []cli{
				{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3, Invokes: 2, PayloadBits: 23},
				{ID: 4002, Type: cvOther, Version: 5, Learned: listeners.LearnedDefinition, First: 10, Invokes: 1, PayloadBits: 8},
			},
			missSrv: []uint32{4002}, missCli: []uint32{3},
			queue: []Ref{{N: 13, Dir: dissect.C2S, ID: 4003, Client: true}}},
		// 14: the server defines srv#2 with the type the client has at
		// version 5, at version 6: a version mismatch. 6+1+5+3 = 15, string
		// → 27, align 32, 20 bytes → 192, version → 224 = 28 bytes: 0 bits.
		{name: "S2C def srv#2 version mismatch", dir: dissect.S2C, msg: cvS2C(true, 2, 3, cvOther, 6),
			server: []srv{
				{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6},
				{ID: 1, Type: cvMap, Version: 2, IDBits: 3, Learned: listeners.LearnedDefinition, First: 7, Invokes: 2, PayloadBits: 31},
				{ID: 2, Type: cvOther, Version: 6, IDBits: 3, Learned: listeners.LearnedDefinition, First: 14, Invokes: 1, PayloadBits: 0},
			},
			client: []cli{
				{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3, Invokes: 2, PayloadBits: 23},
				{ID: 4002, Type: cvOther, Version: 5, Learned: listeners.LearnedDefinition, First: 10, Invokes: 1, PayloadBits: 8},
			},
			missSrv: []uint32{4002}, missCli: []uint32{3},
			queue:    []Ref{{N: 13, Dir: dissect.C2S, ID: 4003, Client: true}},
			resolved: true, warn: "server has version 6, client version 5"},
		// 15: the client entry 4003 appears; the queued ref 13 resolves.
		{name: "RequestServerListenerId 4003", dir: dissect.C2S, msg: cvNegotiate(dissect.C2S, unturned.RequestServerListenerID, 4003, 0, 3, cvLate, 1),
			server: []srv{
				{ID: 0, Type: cvChat, Version: 1, IDBits: 2, Learned: listeners.LearnedNegotiate, First: 6},
				{ID: 1, Type: cvMap, Version: 2, IDBits: 3, Learned: listeners.LearnedDefinition, First: 7, Invokes: 2, PayloadBits: 31},
				{ID: 2, Type: cvOther, Version: 6, IDBits: 3, Learned: listeners.LearnedDefinition, First: 14, Invokes: 1, PayloadBits: 0},
			},
			client: []cli{
				{ID: 4001, Type: cvChat, Version: 1, ServerID: 0, Mapped: true, Learned: listeners.LearnedNegotiate, First: 3, Invokes: 2, PayloadBits: 23},
				{ID: 4002, Type: cvOther, Version: 5, Learned: listeners.LearnedDefinition, First: 10, Invokes: 1, PayloadBits: 8},
				{ID: 4003, Type: cvLate, Version: 1, Learned: listeners.LearnedNegotiate, First: 15, Invokes: 1, PayloadBits: 9},
			},
			missSrv: []uint32{4002}, missCli: []uint32{3},
			resolved: true},
	}
	f := newCVFeeder()
	for i, s := range steps {
		n := i + 1
		f.send(s.dir, s.msg)
		if got := f.c.Len(); got != n {
			t.Fatalf("step %d %s: Len() = %d; want %d", n, s.name, got, n)
		}
		m := f.c.Message(n)
		for _, fd := range m.Findings {
			if fd.Severity == dissect.Error {
				t.Errorf("step %d %s: error finding %q", n, s.name, fd.Text)
			}
		}
		tb := f.c.Tables(cvConn, n)
		want := Tables{Conn: cvConn, AsOf: n, Messages: n, Server: s.server, Client: s.client,
			MissingOnServer: s.missSrv, MissingOnClient: s.missCli, Unresolved: s.queue}
		if want.Server == nil {
			want.Server = []ServerEntry{}
		}
		if want.Client == nil {
			want.Client = []ClientEntry{}
		}
		if want.MissingOnServer == nil {
			want.MissingOnServer = []uint32{}
		}
		if want.MissingOnClient == nil {
			want.MissingOnClient = []uint32{}
		}
		if want.Unresolved == nil {
			want.Unresolved = []Ref{}
		}
		if got := cvPlain(tb); !reflect.DeepEqual(got, want) {
			t.Errorf("step %d %s: Tables(%d) =\n%+v\nwant\n%+v", n, s.name, n, got, want)
		}
		if m.Listener != nil && m.Listener.Resolved != s.resolved {
			t.Errorf("step %d %s: listener.resolved = %v; want %v", n, s.name, m.Listener.Resolved, s.resolved)
		}
		if s.warn != "" {
			if len(tb.Warnings) != 1 || !strings.Contains(tb.Warnings[0].Text, s.warn) || tb.Warnings[0].Severity != dissect.Warn {
				t.Errorf("step %d %s: Tables warnings = %+v; want one warning containing %q", n, s.name, tb.Warnings, s.warn)
			}
			if !cvHas(m.Findings, dissect.Warn, dissect.Protocol, s.warn) {
				t.Errorf("step %d %s: message findings = %+v; want a version-mismatch warning", n, s.name, m.Findings)
			}
		}
	}
	// The whole conversation decoded widened after the handshake.
	ci := f.c.Connections()[0]
	if !ci.Widened[dissect.C2S] || !ci.Widened[dissect.S2C] || ci.WidenedAt != [2]int{3, 4} || ci.Inferred {
		t.Errorf("ConnInfo widening = %v at %v inferred %v; want both widened at [3 4], not inferred", ci.Widened, ci.WidenedAt, ci.Inferred)
	}
	if !ci.HasFinding || ci.Worst != dissect.Warn {
		t.Errorf("ConnInfo worst = %v (%v); want the version mismatch's warn", ci.Worst, ci.HasFinding)
	}
	if ci.Messages != len(steps) {
		t.Errorf("ConnInfo.Messages = %d; want %d", ci.Messages, len(steps))
	}
	// Changed marks what message 7 created, updated or counted.
	tb := f.c.Tables(cvConn, 7)
	changed := map[string]bool{}
	for _, e := range tb.Server {
		changed[fmt.Sprintf("srv#%d", e.ID)] = e.Changed
	}
	for _, e := range tb.Client {
		changed[fmt.Sprintf("cli#%d", e.ID)] = e.Changed
	}
	if want := map[string]bool{"srv#0": false, "srv#1": true, "cli#4001": true}; !reflect.DeepEqual(changed, want) {
		t.Errorf("Tables(7) Changed = %v; want %v", changed, want)
	}
}

func cvHas(fs []dissect.Finding, sev dissect.Severity, g dissect.Group, text string) bool {
	for _, f := range fs {
		if f.Severity == sev && f.Group == g && strings.Contains(f.Text, text) {
			return true
		}
	}
	return false
}

// conversationInput encodes (dir, chunk) steps in FuzzConversation's input
// format: per step a control byte (bit 0 the direction, bit 1 a gap instead
// of data), a length byte, then the chunk.
func conversationInput(dirs []dissect.Dir, msgs [][]byte, cut int) []byte {
	var out []byte
	var stream [2][]byte
	for i, m := range msgs {
		stream[dirs[i]] = append(stream[dirs[i]], cvFrame(m)...)
		for _, d := range []dissect.Dir{dissect.C2S, dissect.S2C} {
			for len(stream[d]) > 0 {
				n := min(len(stream[d]), cut)
				out = append(out, byte(d), byte(n))
				out = append(out, stream[d][:n]...)
				stream[d] = stream[d][n:]
			}
		}
	}
	return out
}

// FuzzConversation feeds a sequence of (dir, chunk) steps and gaps taken
// from the fuzz bytes to a Index: it must never panic, Settled must never
// decrease, every message must be retrievable, and the tables must be
// consistent (sorted lists, references before the state they are in, the
// as-of state at the end equal to the live one).
func FuzzConversation(f *testing.F) {
	rng := rand.New(rand.NewSource(1))
	dirs, msgs := genConversation(rng, 40)
	f.Add(conversationInput(dirs, msgs, 200))
	f.Add(conversationInput(dirs[2:], msgs[2:], 7))
	f.Add([]byte{0, 3, 0, 1, 0x40, 1, 2, 0xff, 0xff, 2, 10})
	f.Fuzz(func(t *testing.T, in []byte) {
		c := NewIndexLimits(nil, unturned.Limits{InferWindow: 4, CheckpointEvery: 4, MaxUnresolved: 16, MaxEntries: 16})
		prev := 0
		for frame := 1; len(in) >= 2; frame++ {
			ctl, n := in[0], int(in[1])
			in = in[2:]
			dir := dissect.Dir(ctl & 1)
			if ctl&2 != 0 {
				c.Gap(cvConn, dir, n, cvT0, frame)
				continue
			}
			n = min(n, len(in))
			c.Data(cvConn, dir, in[:n], cvT0.Add(time.Duration(frame)), frame)
			in = in[n:]
			s := c.Settled()
			if s < prev || s > c.Len() {
				t.Fatalf("Settled() = %d after %d, Len %d", s, prev, c.Len())
			}
			prev = s
		}
		c.Finish()
		if c.Settled() != c.Len() {
			t.Fatalf("after Finish Settled() = %d, Len %d", c.Settled(), c.Len())
		}
		for n := 1; n <= c.Len(); n++ {
			m, d := c.Message(n), c.Detail(n)
			if m == nil || d == nil || m.N != n || m.Kind != d.Kind {
				t.Fatalf("Message(%d) = %+v, Detail = %+v", n, m, d)
			}
			if _, err := d.MarshalJSON(); err != nil {
				t.Fatalf("Detail(%d).MarshalJSON: %v", n, err)
			}
		}
		if c.Len() == 0 {
			return
		}
		end := c.Tables(cvConn, 0)
		if asOf := c.Tables(cvConn, c.Len()); !reflect.DeepEqual(end, asOf) {
			t.Fatalf("Tables(conn, Len) = %+v; want the live %+v", asOf, end)
		}
		for _, n := range []int{1, max(1, c.Len()/2), c.Len()} {
			tb := c.Tables(cvConn, n)
			for i := 1; i < len(tb.Server); i++ {
				if tb.Server[i-1].ID >= tb.Server[i].ID {
					t.Fatalf("server table not sorted: %+v", tb.Server)
				}
			}
			for i := 1; i < len(tb.Client); i++ {
				if tb.Client[i-1].ID >= tb.Client[i].ID {
					t.Fatalf("client table not sorted: %+v", tb.Client)
				}
			}
			for _, r := range tb.Unresolved {
				if r.N > n {
					t.Fatalf("Tables(%d) holds a reference from message %d", n, r.N)
				}
			}
			if len(tb.Server) > 16 || len(tb.Client) > 16 || len(tb.Unresolved) > 16 {
				t.Fatalf("Tables(%d) exceed the limits: %d/%d/%d", n, len(tb.Server), len(tb.Client), len(tb.Unresolved))
			}
		}
		if _, err := c.TablesJSON(); err != nil {
			t.Fatalf("TablesJSON: %v", err)
		}
	})
}

// BenchmarkCaptureData feeds a long generated conversation one message per
// Data call: ns/op and allocs/op are per message.
func BenchmarkCaptureData(b *testing.B) {
	rng := rand.New(rand.NewSource(11))
	dirs, msgs := genConversation(rng, 4096)
	frames := make([][]byte, len(msgs))
	for i, m := range msgs {
		frames[i] = cvFrame(m)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var c *Index
	for i := 0; i < b.N; i++ {
		k := i % len(msgs)
		if k == 0 {
			b.StopTimer()
			c = NewIndex(nil)
			b.StartTimer()
		}
		c.Data(cvConn, dirs[k], frames[k], cvT0, i+1)
	}
}

// ExampleCapture feeds a USMN handshake and two invokes, the first naming a
// listener the capture has not seen defined yet, and reads the messages and
// tables back.
func ExampleIndex() {
	var e unturned.Encoder
	conn := dissect.Conn{
		Client: netip.MustParseAddrPort("127.0.0.1:50412"),
		Server: netip.MustParseAddrPort("127.0.0.1:27016"),
	}
	c := NewIndex(nil)
	feed := func(dir dissect.Dir, msg []byte, frame int) {
		c.Data(conn, dir, binary.BigEndian.AppendUint16(nil, uint16(len(msg))), time.Unix(0, 0), frame)
		c.Data(conn, dir, msg, time.Unix(0, 0), frame)
	}
	feed(dissect.C2S, e.GetWorkshopFiles(true, nil), 1)
	feed(dissect.S2C, e.DownloadWorkshopFiles(unturned.WorkshopInfo{ServerName: "srv"}, &unturned.Marker{Version: 1, IDBits: 1}, nil), 2)
	feed(dissect.S2C, e.InvokeS2C(true, unturned.Invoke{ServerID: 1, IDBits: 1}, []byte{0x2a}), 3)
	feed(dissect.S2C, e.InvokeS2C(true, unturned.Invoke{HasDefinition: true, ServerID: 1, IDBits: 1, Type: "Sample.ChatListener, Sample", Version: 1}, nil), 4)
	c.Finish()
	for n := 1; n <= c.Len(); n++ {
		m := c.Message(n)
		fmt.Printf("%d %s %s\n", m.N, m.Dir, m.Summary)
	}
	for _, e := range c.Tables(conn, 3).Unresolved {
		fmt.Printf("as of 3: %s listener %d unresolved since %d\n", e.Dir, e.ID, e.N)
	}
	for _, e := range c.Tables(conn, 0).Server {
		fmt.Printf("srv#%d %s v%d: %d invokes, %d payload bits\n", e.ID, e.Type, e.Version, e.Invokes, e.PayloadBits)
	}
	// Output:
	// 1 c2s GetWorkshopFiles +USMN v1
	// 2 s2c DownloadWorkshopFiles "srv" 0 files +USMN v1 ids 1 bit
	// 3 s2c srv#1 8 payload bits (unresolved)
	// 4 s2c srv#1 Sample.ChatListener, Sample v1 +def 0 payload bits
	// as of 3: s2c listener 1 unresolved since 3
	// srv#1 Sample.ChatListener, Sample v1: 2 invokes, 8 payload bits
}

// TestConcurrentReaders reads messages, tables and connections while the
// feeder goroutine decodes (run with -race to check the locking).
func TestConcurrentReaders(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	dirs, msgs := genConversation(rng, 2000)
	f := newCVFeeder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range msgs {
			f.send(dirs[i], msgs[i])
		}
		f.c.Finish()
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		n := f.c.Len()
		if n == 0 {
			continue
		}
		if m := f.c.Detail(n); m == nil || m.N != n {
			t.Fatalf("Detail(%d) = %+v", n, m)
		}
		if tb := f.c.Tables(cvConn, n); tb == nil || tb.AsOf != n {
			t.Fatalf("Tables(conn, %d) = %+v", n, tb)
		}
		_ = f.c.Connections()
		if s := f.c.Settled(); s > f.c.Len() {
			t.Fatalf("Settled() = %d > Len", s)
		}
	}
	if f.c.Len() != len(msgs) {
		t.Errorf("Len() = %d; want %d", f.c.Len(), len(msgs))
	}
}

// TestTruncatedStream cuts a conversation's byte streams at every length:
// the messages that arrived whole decode exactly as in the full capture, and
// the cut-off partial message becomes a finding at Finish.
func TestTruncatedStream(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	dirs, msgs := genConversation(rng, 12)
	// The S→C messages after the handshake, as one direction's stream.
	var s2c [][]byte
	for i := 2; i < len(msgs); i++ {
		if dirs[i] == dissect.S2C {
			s2c = append(s2c, msgs[i])
		}
	}
	whole := cvFrame(s2c...)
	ref := newCVFeeder()
	ref.handshake(true, true, 3)
	ref.send(dissect.S2C, s2c...)
	ref.c.Finish()
	for cut := 0; cut < len(whole); cut++ {
		c := newCVFeeder()
		c.handshake(true, true, 3)
		c.c.Data(cvConn, dissect.S2C, whole[:cut], cvT0, 99)
		c.c.Finish()
		for n := 3; n <= c.c.Len(); n++ {
			got, want := c.c.Detail(n), ref.c.Detail(n)
			if got.Summary != want.Summary || !reflect.DeepEqual(got.Fields, want.Fields) {
				t.Fatalf("cut %d: Message(%d) = %q; want %q", cut, n, got.Summary, want.Summary)
			}
		}
		partial := false
		for _, fd := range c.c.Connections()[0].Findings {
			partial = partial || strings.Contains(fd.Text, "partial")
		}
		whole := c.c.Len() - 2
		boundary := len(cvFrame(s2c[:whole]...)) == cut
		if partial == boundary {
			t.Fatalf("cut %d: %d whole messages, partial finding %v; want one exactly when the cut is inside a message", cut, whole, partial)
		}
	}
}
