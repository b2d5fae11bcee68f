package session

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestWidening checks wire.md 4.2: both markers seen ⇒ both directions are
// widened after their detection message; one marker or none ⇒ nothing is.
func TestWidening(t *testing.T) {
	for _, tc := range []struct {
		name           string
		client, server bool
		widened        bool
	}{
		{"both markers", true, true, true},
		{"client marker only", true, false, false},
		{"server marker only", false, true, false},
		{"no marker", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCVFeeder()
			f.handshake(tc.client, tc.server, 2)
			f.send(dissect.C2S, cvEnc.Ping(dissect.C2S, tc.widened, false))
			f.send(dissect.S2C, cvEnc.Kicked(tc.widened, "bye"))
			f.send(dissect.S2C, cvEnc.Verify(tc.widened))
			f.c.Finish()
			want := []struct {
				name string
				bits int
			}{
				{"GetWorkshopFiles", 4}, {"DownloadWorkshopFiles", 5}, // detection messages: always vanilla
				{"PingRequest", 4}, {"Kicked", 5}, {"Verify", 5},
			}
			for i, w := range want {
				m := f.c.Message(i + 1)
				bits := w.bits
				if tc.widened && i >= 2 {
					bits++ // extra_bits = 1
				}
				if m.Name() != w.name || m.Enum.Bits != bits || m.Enum.Widened != (tc.widened && i >= 2) {
					t.Errorf("Message(%d) = %s enum %+v; want %s in %d bits", i+1, m.Name(), m.Enum, w.name, bits)
				}
				if sev, ok := m.Worst(); ok && sev == dissect.Error {
					t.Errorf("Message(%d) %s has an error: %+v", i+1, m.Name(), m.Findings)
				}
			}
			ci := f.c.Connections()[0]
			if ci.USMNClient != tc.client || ci.USMNServer != tc.server || ci.Widened != [2]bool{tc.widened, tc.widened} || ci.Inferred {
				t.Errorf("ConnInfo usmn %v/%v widened %v inferred %v; want %v/%v %v false", ci.USMNClient, ci.USMNServer, ci.Widened, ci.Inferred, tc.client, tc.server, tc.widened)
			}
			if f.c.Settled() != f.c.Len() {
				t.Errorf("Settled() = %d; want %d", f.c.Settled(), f.c.Len())
			}
		})
	}
}

// TestOneMarkerReadsVanilla: with only the client's marker, a message the
// peer wrote widened is not read widened (nobody widens, wire.md 4.2).
func TestOneMarkerReadsVanilla(t *testing.T) {
	f := newCVFeeder()
	f.handshake(true, false, 0)
	f.send(dissect.S2C, cvS2C(true, 0, 2, cvChat, 1))
	m := f.c.Message(3)
	if m.Enum.Bits != 5 || m.Name() == "InvokeMessageListener" {
		t.Errorf("Message(3) = %s in %d bits; want a vanilla 5-bit reading", m.Name(), m.Enum.Bits)
	}
}

// TestIDBitsInForce checks wire.md 4.3: the count in force comes first from
// the server's marker, then from each S→C definition, and every other
// server ID is read with it.
func TestIDBitsInForce(t *testing.T) {
	f := newCVFeeder()
	f.handshake(true, true, 2)
	f.send(dissect.S2C, cvS2C(false, 3, 2, "", 0))          // 3: 2-bit ID from the marker
	f.send(dissect.S2C, cvS2C(true, 9, 4, cvChat, 1, 0xFF)) // 4: definition with 4-bit IDs
	f.send(dissect.C2S, cvBySID(9, 4, 0x01))                // 5: read with 4 bits
	f.send(dissect.S2C, cvS2C(true, 1, 1, cvMap, 1))        // 6: the count drops to 1
	f.send(dissect.S2C, cvS2C(false, 1, 1, "", 0, 0x80))    // 7: read with 1 bit
	f.send(dissect.C2S, cvNegotiate(dissect.C2S, unturned.TellServerMissingListener, 0, 1, 1, "", 0))
	for _, tc := range []struct {
		n    int
		sid  uint32
		bits int
	}{{3, 3, 2}, {4, 9, 4}, {5, 9, 4}, {6, 1, 1}, {7, 1, 1}, {8, 1, 1}} {
		m := f.c.Detail(tc.n)
		if m.Listener == nil || m.Listener.ServerID == nil || *m.Listener.ServerID != tc.sid {
			t.Errorf("Detail(%d).Listener = %+v; want server_id %d", tc.n, m.Listener, tc.sid)
			continue
		}
		found := false
		for _, s := range m.Fields {
			if s.Name == "Listener_ID" || s.Name == "Serverside_Listener_ID" {
				found = true
				if s.Bits != tc.bits {
					t.Errorf("Detail(%d) %s: %d bits; want %d", tc.n, s.Name, s.Bits, tc.bits)
				}
			}
		}
		if !found {
			t.Errorf("Detail(%d): no server ID field in %+v", tc.n, m.Fields)
		}
	}
}

// midStream builds a conversation joined after the handshake: widened USMN
// traffic in both directions with 2-bit server IDs.
func midStream(f *cvFeeder, rounds int) {
	f.send(dissect.S2C, cvS2C(true, 0, 2, cvChat, 1, 0x10))
	f.send(dissect.S2C, cvNegotiate(dissect.S2C, unturned.TellClientListenerID, 4001, 1, 2, cvMap, 1))
	for i := 0; i < rounds; i++ {
		f.send(dissect.S2C, cvS2C(false, 0, 2, "", 0, byte(i), 0x55))
		f.send(dissect.C2S, cvBySID(1, 2, byte(i)))
		f.send(dissect.C2S, cvEnc.Ping(dissect.C2S, true, i%2 == 0))
	}
}

func TestInferWidenedMidStream(t *testing.T) {
	f := newCVFeeder()
	midStream(f, 8)
	if s := f.c.Settled(); s != 0 {
		t.Errorf("Settled() before Finish = %d; want 0 (widening undecided)", s)
	}
	f.c.Finish()
	if s, l := f.c.Settled(), f.c.Len(); s != l {
		t.Errorf("Settled() after Finish = %d; want %d", s, l)
	}
	for n := 1; n <= f.c.Len(); n++ {
		m := f.c.Message(n)
		if !m.Enum.Widened || (m.Name() != "InvokeMessageListener" && m.Name() != "NegotiateListenerDetails" && m.Name() != "PingRequest" && m.Name() != "PingResponse") {
			t.Errorf("Message(%d) = %s %+v; want a widened USMN message or ping", n, m.Name(), m.Enum)
		}
	}
	ci := f.c.Connections()[0]
	if !ci.Inferred || ci.Widened != [2]bool{true, true} {
		t.Errorf("ConnInfo inferred %v widened %v; want inferred, both widened", ci.Inferred, ci.Widened)
	}
	for _, d := range []dissect.Dir{dissect.C2S, dissect.S2C} {
		if !cvHas(ci.Findings, dissect.Note, dissect.Inference, d.String()+" enum width inferred widened") || !cvHas(ci.Findings, dissect.Note, dissect.Inference, "confidence") {
			t.Errorf("connection findings %+v; want a %s widened inference with its confidence", ci.Findings, d)
		}
	}
	tb := f.c.Tables(cvConn, 0)
	if len(tb.Server) != 2 || tb.Server[0].Invokes != 9 || len(tb.Client) != 1 || tb.Client[0].Invokes != 8 {
		t.Errorf("Tables = %+v; want srv#0 with 9 invokes, cli#4001 (srv#1) with 8", tb)
	}
}

func TestInferVanillaMidStream(t *testing.T) {
	f := newCVFeeder()
	for i := 0; i < 6; i++ {
		f.send(dissect.C2S, cvEnc.Ping(dissect.C2S, false, false))
		f.send(dissect.S2C, cvEnc.Ping(dissect.S2C, false, true))
		f.send(dissect.S2C, cvEnc.Kicked(false, "bye now"))
		f.send(dissect.S2C, cvEnc.QueuePositionChanged(false, uint8(i)))
	}
	f.c.Finish()
	for n := 1; n <= f.c.Len(); n++ {
		if m := f.c.Message(n); m.Enum.Widened || m.Name() == "Unknown" {
			t.Errorf("Message(%d) = %s %+v; want vanilla", n, m.Name(), m.Enum)
		}
	}
	ci := f.c.Connections()[0]
	if !ci.Inferred || ci.Widened != [2]bool{} {
		t.Errorf("ConnInfo inferred %v widened %v; want inferred, vanilla", ci.Inferred, ci.Widened)
	}
	if !cvHas(ci.Findings, dissect.Note, dissect.Inference, "s2c enum width inferred vanilla") {
		t.Errorf("connection findings %+v; want an s2c vanilla inference", ci.Findings)
	}
}

// TestInferWindow: an undecided direction is decided after InferWindow
// messages without waiting for the end, and Settled never decreases. Its
// invokes only have to fit, so they do not decide the ID bit count
// (wire.md 4.6): the hold ends at its bound, 4·InferWindow messages.
func TestInferWindow(t *testing.T) {
	f := &cvFeeder{c: NewIndexLimits(nil, unturned.Limits{InferWindow: 4}), conn: cvConn}
	prev := 0
	for i := 0; i < 16; i++ {
		f.send(dissect.S2C, cvS2C(false, 0, 0, "", 0, byte(i)))
		s := f.c.Settled()
		if s < prev || s > f.c.Len() {
			t.Fatalf("after message %d Settled() = %d, was %d, Len %d", i+1, s, prev, f.c.Len())
		}
		prev = s
	}
	if prev != 16 {
		t.Errorf("Settled() = %d; want 16 once the hold's bound of 16 decided", prev)
	}
	if m := f.c.Message(1); !m.Enum.Widened {
		t.Errorf("Message(1) = %s %+v; want widened once inferred", m.Name(), m.Enum)
	}
}

// genConversation returns a random but well-formed USMN conversation after a
// handshake with 3-bit IDs, as (dir, message) pairs.
func genConversation(rng *rand.Rand, count int) ([]dissect.Dir, [][]byte) {
	dirs := []dissect.Dir{dissect.C2S, dissect.S2C}
	msgs := [][]byte{cvEnc.GetWorkshopFiles(true, nil), cvEnc.DownloadWorkshopFiles(unturned.WorkshopInfo{ServerName: "gen"}, &unturned.Marker{Version: 1, IDBits: 3, HasIDBits: true}, nil)}
	types := []string{cvChat, cvMap, cvOther, cvLate}
	for len(msgs) < count {
		sid := uint32(rng.Intn(8))
		cid := uint32(4000 + rng.Intn(6))
		typ := types[rng.Intn(len(types))]
		ver := uint32(rng.Intn(2))
		pay := make([]byte, rng.Intn(4))
		rng.Read(pay)
		var d dissect.Dir
		var m []byte
		switch rng.Intn(9) {
		case 0:
			d, m = dissect.S2C, cvS2C(true, sid, 3, typ, ver, pay...)
		case 1:
			d, m = dissect.S2C, cvS2C(false, sid, 3, "", 0, pay...)
		case 2:
			d, m = dissect.C2S, cvByCID(true, cid, typ, ver, pay...)
		case 3:
			d, m = dissect.C2S, cvByCID(false, cid, "", 0, pay...)
		case 4:
			d, m = dissect.C2S, cvBySID(sid, 3, pay...)
		case 5:
			d, m = dissect.S2C, cvNegotiate(dissect.S2C, unturned.TellClientListenerID, cid, sid, 3, typ, ver)
		case 6:
			d, m = dissect.C2S, cvNegotiate(dissect.C2S, unturned.RequestServerListenerID, cid, 0, 3, typ, ver)
		case 7:
			d, m = dissect.S2C, cvNegotiate(dissect.S2C, unturned.TellClientMissingListener, cid, 0, 3, "", 0)
		default:
			d, m = dissect.C2S, cvNegotiate(dissect.C2S, unturned.TellServerMissingListener, 0, sid, 3, "", 0)
		}
		dirs, msgs = append(dirs, d), append(msgs, m)
	}
	return dirs, msgs
}

// TestTablesAsOf: the tables as of message n equal those of a capture fed
// only the first n messages, for every n (checkpoints every 8 operations, so
// the replay path and the checkpoints are both exercised).
func TestTablesAsOf(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	dirs, msgs := genConversation(rng, 300)
	lim := unturned.Limits{CheckpointEvery: 8}
	full := &cvFeeder{c: NewIndexLimits(nil, lim), conn: cvConn}
	for i := range msgs {
		full.send(dirs[i], msgs[i])
	}
	if n := unturnedOf(full.c.conns[0]).Tables().Checkpoints(); n < 9 {
		t.Fatalf("only %d checkpoints; the test wants many", n)
	}
	sawUnresolved := false
	prefix := &cvFeeder{c: NewIndexLimits(nil, lim), conn: cvConn}
	for n := 1; n <= len(msgs); n++ {
		prefix.send(dirs[n-1], msgs[n-1])
		want := prefix.c.Tables(cvConn, 0)
		got := full.c.Tables(cvConn, n)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Tables(conn, %d) =\n%+v\nwant (replay of %d messages)\n%+v", n, got, n, want)
		}
		if len(want.Unresolved) > 0 {
			sawUnresolved = true
		}
	}
	if !sawUnresolved {
		t.Errorf("the generated conversation never had unresolved references")
	}
}

// TestLimits: the unresolved queue and the tables stop growing at their
// limits, with a finding, and decoding carries on.
func TestLimits(t *testing.T) {
	f := &cvFeeder{c: NewIndexLimits(nil, unturned.Limits{MaxUnresolved: 3, MaxEntries: 2}), conn: cvConn}
	f.handshake(true, true, 4)
	for i := 0; i < 5; i++ {
		f.send(dissect.S2C, cvS2C(false, uint32(i+8), 4, "", 0))
	}
	for i := 0; i < 3; i++ {
		f.send(dissect.S2C, cvS2C(true, uint32(i), 4, cvChat, 1))
	}
	tb := f.c.Tables(cvConn, 0)
	if len(tb.Unresolved) != 3 || len(tb.Server) != 2 {
		t.Errorf("Tables: %d unresolved, %d server entries; want 3 and 2", len(tb.Unresolved), len(tb.Server))
	}
	if m := f.c.Message(6); !cvHas(m.Findings, dissect.Warn, dissect.Protocol, "unresolved queue holds 3") {
		t.Errorf("Message(6) findings = %+v; want the queue-limit warning", m.Findings)
	}
	if m := f.c.Message(10); !cvHas(m.Findings, dissect.Note, dissect.Protocol, "listener table holds 2 entries") {
		t.Errorf("Message(10) findings = %+v; want the table-limit finding", m.Findings)
	}
	if m := f.c.Message(10); m.Name() != "InvokeMessageListener" {
		t.Errorf("Message(10) = %s; want InvokeMessageListener", m.Name())
	}
}

// TestGap: a gap is a connection finding, and messages after it decode in
// the state the connection had.
func TestGap(t *testing.T) {
	f := newCVFeeder()
	f.handshake(true, true, 2)
	f.c.Gap(cvConn, dissect.S2C, 100, cvT0, 10)
	f.send(dissect.S2C, cvS2C(false, 1, 2, "", 0, 1), cvS2C(false, 1, 2, "", 0, 2), cvS2C(false, 1, 2, "", 0, 3), cvS2C(false, 1, 2, "", 0, 4))
	f.c.Finish()
	ci := f.c.Connections()[0]
	if !cvHas(ci.Findings, dissect.Warn, dissect.Sequence, "100 bytes lost") {
		t.Errorf("connection findings %+v; want the gap", ci.Findings)
	}
	if f.c.Len() < 3 {
		t.Fatalf("Len() = %d; want the messages after the resynchronisation", f.c.Len())
	}
	for n := 3; n <= f.c.Len(); n++ {
		if m := f.c.Message(n); m.Name() != "InvokeMessageListener" || !m.Enum.Widened {
			t.Errorf("Message(%d) = %s %+v; want a widened invoke", n, m.Name(), m.Enum)
		}
	}
}

func TestNoteAndClose(t *testing.T) {
	f := newCVFeeder()
	f.c.Open(cvConn, RulePort, cvT0, 1)
	f.c.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Note, Group: dissect.Protocol, Text: "capture note", Bit: -1})
	f.c.Note(cvConn, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Text: "conn note", Bit: -1})
	// "port 27016" is no SYN: the stream resynchronises, and the two
	// messages only frame when Close ends it (Framer.End's last chance).
	f.send(dissect.S2C, cvS2C(false, 0, 0, "", 0))
	f.send(dissect.S2C, cvS2C(false, 0, 0, "", 0))
	if n := f.c.Len(); n != 0 {
		t.Errorf("Len() before Close = %d; want 0 (still resynchronising)", n)
	}
	f.c.Close(cvConn, cvT0, 3)
	ci := f.c.Connections()[0]
	if ci.Rule != RulePort || !ci.HasFinding || ci.Worst != dissect.Warn || !strings.Contains(ci.Findings[0].Text, "conn note") {
		t.Errorf("ConnInfo = %+v", ci)
	}
	if fs := f.c.Findings(); len(fs) != 1 || fs[0].Text != "capture note" {
		t.Errorf("Findings() = %+v", fs)
	}
	if f.c.Settled() != 2 {
		t.Errorf("Settled() after Close = %d; want 2", f.c.Settled())
	}
	if f.c.Message(0) != nil || f.c.Message(3) != nil || f.c.Tables(dissect.Conn{}, 0) != nil {
		t.Errorf("out-of-range queries should return nil")
	}
}

// TestMalformedInvokeChangesNothing: a USMN message that does not decode
// cleanly (here a definition cut short) adds nothing to the tables, and its
// listener is not resolved; the message is still listed with its error.
func TestMalformedInvokeChangesNothing(t *testing.T) {
	f := newCVFeeder()
	f.handshake(true, true, 2)
	def := cvS2C(true, 1, 2, cvChat, 1)
	f.send(dissect.S2C, def[:len(def)-3])
	m := f.c.Message(3)
	if sev, ok := m.Worst(); !ok || sev != dissect.Error || m.Name() != "InvokeMessageListener" {
		t.Errorf("Message(3) = %s, findings %+v; want an invoke with an error", m.Name(), m.Findings)
	}
	if m.Listener == nil || m.Listener.Resolved {
		t.Errorf("Message(3).Listener = %+v; want unresolved", m.Listener)
	}
	if tb := f.c.Tables(cvConn, 0); len(tb.Server) != 0 || len(tb.Unresolved) != 0 {
		t.Errorf("Tables = %+v; want nothing from a malformed message", tb)
	}
}

// TestInferOneSideCaptured: the client's handshake with its marker was
// captured but the server's direction was joined mid-stream. Once the S→C
// direction is inferred widened, the server runs USMN too, so the client's
// later messages are read widened as well.
func TestInferOneSideCaptured(t *testing.T) {
	f := newCVFeeder()
	f.send(dissect.C2S, cvEnc.GetWorkshopFiles(true, nil))
	f.send(dissect.S2C, cvS2C(true, 0, 2, cvChat, 1, 0x10)) // DownloadWorkshopFiles was not captured
	for i := 0; i < 4; i++ {
		f.send(dissect.S2C, cvS2C(false, 0, 2, "", 0, byte(i)))
		f.send(dissect.C2S, cvBySID(0, 2, byte(i)))
	}
	f.c.Finish()
	if m := f.c.Message(1); m.Name() != "GetWorkshopFiles" || m.Enum.Widened {
		t.Errorf("Message(1) = %s %+v; want the vanilla GetWorkshopFiles", m.Name(), m.Enum)
	}
	for n := 2; n <= f.c.Len(); n++ {
		if m := f.c.Message(n); m.Name() != "InvokeMessageListener" || !m.Enum.Widened {
			t.Errorf("Message(%d) = %s %s %+v; want a widened invoke", n, m.Dir, m.Name(), m.Enum)
		}
	}
	if tb := f.c.Tables(cvConn, 0); len(tb.Server) != 1 || tb.Server[0].Invokes != 5 {
		t.Errorf("Tables = %+v; want srv#0 with 5 invokes", tb)
	}
}
