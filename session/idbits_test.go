package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestIDBitsFixtures: in each capture cut after the marker (fixtures
// usmn-idbits-N), the remaining traffic decides Serverside_ID_Bit_Count N
// (wire.md 4.6): an inference finding names it, the TellClientListenerId
// shows the true server ID, no message is left with an error or an
// undecided ID, and the tables hold the server ID.
func TestIDBitsFixtures(t *testing.T) {
	for _, tc := range []struct {
		bits int
		sid  uint32
	}{{0, 0}, {1, 1}, {3, 5}, {5, 19}} {
		path := fmt.Sprintf("../fixtures/captures/usmn-idbits-%d.pcapng", tc.bits)
		c := ReadFixture(t, path, false)
		ci := c.Connections()[0]
		want := fmt.Sprintf("Serverside_ID_Bit_Count inferred %d ", tc.bits)
		if !cvHas(ci.Findings, dissect.Note, dissect.Inference, want) {
			t.Errorf("%s: findings %+v; want %q", path, ci.Findings, want)
		}
		found := false
		for n := 1; n <= c.Len(); n++ {
			m := c.Message(n)
			if sev, ok := m.Worst(); ok && sev == dissect.Error {
				t.Errorf("%s: message %d %s has an error: %+v", path, n, m.Summary, m.Findings)
			}
			if strings.Contains(m.Summary, "srv#?") {
				t.Errorf("%s: message %d still undecided: %s", path, n, m.Summary)
			}
			if m.Kind == unturned.KindNegotiateListenerDetails && m.Mode == unturned.TellClientListenerID {
				found = true
				if m.Listener == nil || m.Listener.ServerID == nil || *m.Listener.ServerID != tc.sid {
					t.Errorf("%s: message %d listener %+v; want server_id %d", path, n, m.Listener, tc.sid)
				}
			}
		}
		if tc.bits > 0 && !found {
			t.Errorf("%s: no TellClientListenerId", path)
		}
		if tb := c.Tables(ci.Conn, 0); tc.bits > 0 && !hasServerID(tb, tc.sid) {
			t.Errorf("%s: tables %+v; want server ID %d", path, tb.Server, tc.sid)
		}
	}
}

func hasServerID(t *Tables, sid uint32) bool {
	for _, e := range t.Server {
		if e.ID == sid {
			return true
		}
	}
	return false
}

// idFeeder is a connection joined mid-stream, after the server's marker:
// widened enums, 3-bit server IDs, nothing that says so.
func idFeeder() *cvFeeder {
	return &cvFeeder{c: NewIndexLimits(nil, unturned.Limits{InferWindow: 4}), conn: cvConn}
}

// widen sends enough invokes of server ID 5 each way for the widening to
// be inferred (InferWindow 4).
func (f *cvFeeder) widen() {
	for i := 0; i < 4; i++ {
		f.send(dissect.S2C, cvS2C(false, 5, 3, "", 0, 0x0a))
		f.send(dissect.C2S, cvBySID(5, 3, 0x0b))
	}
}

// TestIDBitsUndecided: until a deciding message arrives, server IDs are
// shown as undecided (not as 0-bit IDs) and nothing is committed; once a
// TellClientListenerId decides the count, every held message is read again
// with it and the references resolve in order (wire.md 4.5, 4.6).
func TestIDBitsUndecided(t *testing.T) {
	f := idFeeder()
	f.widen() // 1..8: invokes of server ID 5 each way
	for _, n := range []int{1, 2} {
		m := f.c.Message(n)
		if !strings.Contains(m.Summary, "srv#?") || m.Listener == nil || m.Listener.ServerID != nil {
			t.Errorf("before deciding: Message(%d) = %q listener %+v; want srv#? and no server_id", n, m.Summary, m.Listener)
		}
	}
	if s := f.c.Settled(); s != 0 {
		t.Errorf("before deciding: Settled() = %d; want 0", s)
	}
	// 9: TellClientListenerId cli#7001 → srv#5, in 3 bits.
	f.send(dissect.S2C, cvNegotiate(dissect.S2C, unturned.TellClientListenerID, 7001, 5, 3, cvChat, 1))
	if s := f.c.Settled(); s != 9 {
		t.Fatalf("after the deciding message: Settled() = %d; want 9", s)
	}
	for _, n := range []int{1, 2, 9} {
		m := f.c.Message(n)
		if m.Listener == nil || m.Listener.ServerID == nil || *m.Listener.ServerID != 5 || strings.Contains(m.Summary, "srv#?") {
			t.Errorf("after deciding: Message(%d) = %q listener %+v; want server_id 5", n, m.Summary, m.Listener)
		}
		if sev, ok := m.Worst(); ok && sev == dissect.Error {
			t.Errorf("after deciding: Message(%d) has an error: %+v", n, m.Findings)
		}
	}
	ci := f.c.Connections()[0]
	if !cvHas(ci.Findings, dissect.Note, dissect.Inference, "Serverside_ID_Bit_Count inferred 3 (marker and definitions not captured) from deciding messages 9") {
		t.Errorf("findings %+v; want the inference of 3 from message 5", ci.Findings)
	}
	tb := f.c.Tables(cvConn, 0)
	for _, e := range tb.Server {
		if e.ID == 5 && e.Invokes == 0 {
			t.Errorf("server entry 5 %+v; want the replayed S→C invoke counted", e)
		}
	}
	if !hasServerID(tb, 5) {
		t.Errorf("tables %+v; want server ID 5", tb.Server)
	}
}

// TestIDBitsOverride: a definition seen after the inference gives the count
// from the wire; when it differs, a finding says that it overrides.
func TestIDBitsOverride(t *testing.T) {
	f := idFeeder()
	f.widen()
	f.send(dissect.S2C, cvNegotiate(dissect.S2C, unturned.TellClientListenerID, 7001, 5, 3, cvChat, 1)) // 9
	f.send(dissect.C2S, cvEnc.Ping(dissect.C2S, true, false))
	f.send(dissect.S2C, cvS2C(true, 9, 4, cvMap, 1, 0x01)) // 11: a definition with 4-bit IDs
	f.send(dissect.S2C, cvS2C(true, 10, 4, cvOther, 1))    // 12: the same count: nothing more to say
	f.c.Finish()
	ci := f.c.Connections()[0]
	n := 0
	for _, x := range ci.Findings {
		if strings.Contains(x.Text, "overrides the inferred") {
			n++
			if !strings.Contains(x.Text, "Serverside_ID_Bit_Count 4 from the definition in message 11 overrides the inferred 3") {
				t.Errorf("finding %q; want the override by message 11", x.Text)
			}
		}
	}
	if n != 1 {
		t.Errorf("findings %+v; want one override", ci.Findings)
	}
}

// TestInferIDBits: the pure entry point on single messages.
func TestInferIDBits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		msgs    []unturned.IDMessage
		force   bool
		decided bool
		bits    int
	}{
		// Alone it leaves 3..9 (more bits fit the last byte as zero pad):
		// undecided until forced, then the smallest.
		{"TellServerMissingListener 5 in 3 bits", []unturned.IDMessage{{Dir: dissect.C2S, Widened: true, Data: cvNegotiate(dissect.C2S, unturned.TellServerMissingListener, 0, 5, 3, "", 0)}}, false, false, 0},
		{"TellServerMissingListener 5 in 3 bits, forced", []unturned.IDMessage{{Dir: dissect.C2S, Widened: true, Data: cvNegotiate(dissect.C2S, unturned.TellServerMissingListener, 0, 5, 3, "", 0)}}, true, true, 3},
		{"TellClientListenerId 19 in 5 bits", []unturned.IDMessage{{Dir: dissect.S2C, Widened: true, Data: cvNegotiate(dissect.S2C, unturned.TellClientListenerID, 1, 19, 5, cvChat, 2)}}, false, true, 5},
		{"invokes only: undecided", []unturned.IDMessage{{Dir: dissect.C2S, Widened: true, Data: cvBySID(5, 3, 0x01)}}, false, false, 0},
		{"invokes only, forced: the smallest that fits", []unturned.IDMessage{{Dir: dissect.C2S, Widened: true, Data: cvBySID(5, 3, 0x01)}}, true, true, 0},
		{"nothing with a server ID", []unturned.IDMessage{{Dir: dissect.C2S, Widened: true, Data: cvEnc.Ping(dissect.C2S, true, false)}}, true, false, 0},
	} {
		v := unturned.InferIDBits(nil, tc.msgs, tc.force)
		if v.Decided != tc.decided || v.Decided && v.Bits != tc.bits {
			t.Errorf("%s: InferIDBits = %+v; want decided %v bits %d", tc.name, v, tc.decided, tc.bits)
		}
		if v.Decided && (v.Confidence <= 0 || v.Confidence > 1) {
			t.Errorf("%s: confidence %v outside (0, 1]", tc.name, v.Confidence)
		}
	}
}
