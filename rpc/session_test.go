package rpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

type step struct {
	dir dissect.Dir
	us  int
	env []byte
}

// conversation is a TCP exchange covering every pairing rule.
func conversation() []step {
	return []step{
		{dissect.C2S, 0, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"Account":"ann"}`))},
		{dissect.C2S, 50, ulinkrpc.EncodeRequest(2, 1, 2, []byte(`{"Steps":3}`))},
		{dissect.S2C, 210, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, []byte(`{"Code":0}`), "")},
		{dissect.S2C, 300, ulinkrpc.EncodeResponse(9, ulinkrpc.StatusOk, nil, "")}, // nothing to pair
		{dissect.C2S, 400, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 42)},
		{dissect.S2C, 490, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 42)},
		{dissect.S2C, 600, ulinkrpc.EncodePush(1, 1, []byte(`{"Message":"hi"}`))},
		{dissect.C2S, 700, ulinkrpc.EncodeRequest(3, 2, 7, nil)},
		{dissect.S2C, 1650, ulinkrpc.EncodeResponse(3, ulinkrpc.StatusHandlerError, nil, "RPC handler failed.")},
	}
}

// play feeds steps as TCP chunks of at most cut bytes (0: whole frames).
func play(s *Session, steps []step, cut int) {
	for i, st := range steps {
		b := wire(st.env)
		for len(b) > 0 {
			n := len(b)
			if cut > 0 {
				n = min(n, cut)
			}
			s.Bytes(st.dir, b[:n], stamp(i+1, st.us))
			b = b[n:]
		}
	}
	s.End(stamp(len(steps)+1, 10000))
}

func TestTCPPairing(t *testing.T) {
	for _, cut := range []int{0, 1, 3, 7} {
		s := New(testConn, Config{Contracts: contracts(t)})
		play(s, conversation(), cut)
		rs := s.Records()
		if len(rs) != 9 {
			t.Fatalf("cut %d: %d records; want 9", cut, len(rs))
		}
		want := []struct {
			pair    int
			latency time.Duration
			line    string
		}{
			{3, 0, `Request #1 IPlayerService.LoginAsync {"Account":"ann"}`},
			{0, 0, `Request #2 IPlayerService.IncrStep {"Steps":3}`},
			{1, 210 * time.Microsecond, `Response #1 Ok 0.21 ms {"Code":0}`},
			{0, 0, `Response #9 Ok`},
			{6, 0, `KeepAlivePing ticks 42`},
			{5, 90 * time.Microsecond, `KeepAlivePong ticks 42 0.09 ms`},
			{0, 0, `Push IPlayerService.OnNotify {"Message":"hi"}`},
			{9, 0, `Request #3 (2).(7)`},
			{8, 950 * time.Microsecond, `Response #3 HandlerError 0.95 ms error "RPC handler failed."`},
		}
		for i, w := range want {
			r := rs[i]
			if r.N != i+1 || r.Pair != w.pair || r.Latency != w.latency || r.HasLatency != (w.latency != 0) {
				t.Errorf("cut %d: record %d: n %d pair %d latency %v (%v); want n %d pair %d latency %v", cut, i, r.N, r.Pair, r.Latency, r.HasLatency, i+1, w.pair, w.latency)
			}
			if got := Line(r); got != w.line {
				t.Errorf("cut %d: Line(%d) = %q; want %q", cut, i+1, got, w.line)
			}
		}
		if !hasFinding(rs[3].Findings, dissect.Note, "nothing to pair") {
			t.Errorf("cut %d: unpaired Response has no note: %v", cut, rs[3].Findings)
		}
		if r := rs[2]; r.RPC.Service == nil || *r.RPC.Service != "IPlayerService" || *r.RPC.MethodID != 1 {
			t.Errorf("cut %d: the Response does not take its Request's names: %+v", cut, r.RPC)
		}
		p := s.Pending()
		if len(p) != 1 || p[0].N != 2 {
			t.Errorf("cut %d: pending = %v; want record 2", cut, p)
		}
		if !hasConnFinding(s.Findings(), "request #2 IPlayerService.IncrStep pending", 2) {
			t.Errorf("cut %d: no pending finding: %v", cut, s.Findings())
		}
	}
}

func hasFinding(fs []dissect.Finding, sev dissect.Severity, text string) bool {
	for _, f := range fs {
		if f.Severity == sev && strings.Contains(f.Text, text) {
			return true
		}
	}
	return false
}

func hasConnFinding(fs []ConnFinding, text string, n int) bool {
	for _, f := range fs {
		if strings.Contains(f.Text, text) && f.N == n {
			return true
		}
	}
	return false
}

// TestLatestRequest: a Response pairs with the latest unanswered Request of
// its request_id (ulinkrpc.md 5), and only one in the opposite direction.
func TestLatestRequest(t *testing.T) {
	s := New(testConn, Config{})
	play(s, []step{
		{dissect.C2S, 0, ulinkrpc.EncodeRequest(5, 1, 1, nil)},
		{dissect.C2S, 10, ulinkrpc.EncodeRequest(5, 1, 1, nil)},
		{dissect.C2S, 20, ulinkrpc.EncodeResponse(5, ulinkrpc.StatusOk, nil, "")}, // same direction: no pair
		{dissect.S2C, 30, ulinkrpc.EncodeResponse(5, ulinkrpc.StatusOk, nil, "")},
	}, 0)
	rs := s.Records()
	if rs[1].Pair != 4 || rs[3].Pair != 2 || rs[0].Pair != 0 || rs[2].Pair != 0 {
		t.Fatalf("pairs = %d %d %d %d; want 0 4 0 2", rs[0].Pair, rs[1].Pair, rs[2].Pair, rs[3].Pair)
	}
	if rs[3].Latency != 20*time.Microsecond {
		t.Errorf("latency = %v; want 20µs", rs[3].Latency)
	}
	tb := s.Tables()
	if len(tb.Methods) != 1 || tb.Methods[0].Requests != 2 || tb.Methods[0].Responses != 1 || tb.Methods[0].Pending != 1 {
		t.Errorf("methods = %+v; want 2 requests, 1 response, 1 pending", tb.Methods)
	}
}

// TestPongFallback: a Pong whose ticks match no Ping pairs with the oldest
// unanswered Ping of the opposite direction.
func TestPongFallback(t *testing.T) {
	s := New(testConn, Config{})
	play(s, []step{
		{dissect.C2S, 0, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 1)},
		{dissect.C2S, 100, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 2)},
		{dissect.S2C, 150, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 2)},
		{dissect.S2C, 300, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 99)},
		{dissect.S2C, 400, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 1)},
	}, 0)
	rs := s.Records()
	if rs[2].Pair != 2 || rs[3].Pair != 1 || rs[4].Pair != 0 {
		t.Fatalf("pong pairs = %d %d %d; want 2 1 0", rs[2].Pair, rs[3].Pair, rs[4].Pair)
	}
	if !hasFinding(rs[4].Findings, dissect.Note, "nothing to pair") {
		t.Errorf("unpaired Pong: %v", rs[4].Findings)
	}
	ka := s.Tables().KeepAlive
	if ka.Pings != 2 || ka.Pongs != 2 || ka.RTT.Min != 50*time.Microsecond || ka.RTT.Max != 300*time.Microsecond || ka.RTT.Median != 50*time.Microsecond {
		t.Errorf("keepalive = %+v; want 2 pings, 2 pongs, rtt 50µs/50µs/300µs", ka)
	}
}

// TestMemoryPackNamed names and types MemoryPack payloads from the
// contracts: the Request by its method's request type, the Response by its
// paired Request's reply type.
func TestMemoryPackNamed(t *testing.T) {
	s := New(testConn, Config{Contracts: contracts(t), Serializer: ulinkrpc.SerializerMemoryPack})
	reply := ulinkrpc.MPEncodeObject(true, ulinkrpc.MPInt32(0), ulinkrpc.MPString("tok"))
	play(s, []step{
		{dissect.C2S, 0, ulinkrpc.EncodeRequest(1, 1, 1, loginMP("ann", 7))},
		{dissect.S2C, 100, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, reply, "")},
	}, 0)
	rs := s.Records()
	if got := Line(rs[0]); got != `Request #1 IPlayerService.LoginAsync {"Account":"ann","Level":7}` {
		t.Errorf("Line = %q", got)
	}
	if got := Line(rs[1]); got != `Response #1 Ok 0.10 ms {"Code":0,"Token":"tok"}` {
		t.Errorf("Line = %q", got)
	}
	var names []string
	for _, f := range rs[0].Fields {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "type request_id service_id method_id length payload") || !strings.Contains(got, "payload.Account payload.Level") {
		t.Errorf("fields = %s", got)
	}
	// Without contracts the members are cut, named by index.
	s = New(testConn, Config{})
	play(s, []step{{dissect.C2S, 0, ulinkrpc.EncodeRequest(1, 1, 1, loginMP("ann", 7))}}, 0)
	if got := Line(s.Records()[0]); got != `Request #1 (1).(1) memorypack 2 members, 18 bytes` {
		t.Errorf("Line without schema = %q", got)
	}
}

func TestTransformLayer(t *testing.T) {
	keys := ulinkrpc.DeriveKeys([]byte("fixture master key"), ulinkrpc.HKDF)
	wrong := ulinkrpc.DeriveKeys([]byte("another key"), ulinkrpc.HKDF)
	big := []byte(`{"Account":"` + strings.Repeat("a", 2000) + `"}`)
	gz := ulinkrpc.ApplyTransform(ulinkrpc.EncodeRequest(1, 1, 1, big), ulinkrpc.TransformOptions{Compress: true})
	enc := ulinkrpc.ApplyTransform(ulinkrpc.EncodeRequest(2, 1, 1, []byte(`{"Account":"bob"}`)), ulinkrpc.TransformOptions{Keys: &keys})
	for _, tc := range []struct {
		name string
		cfg  ulinkrpc.TransformConfig
		msgs []string
		errs int
	}{
		{"key", ulinkrpc.TransformConfig{Keys: &keys}, []string{"Request", "Request"}, 0},
		{"no key", ulinkrpc.TransformConfig{}, []string{"Request", "Encrypted"}, 0},
		// Told every frame is encrypted, the gzip frame fails its shape and
		// the other its HMAC.
		{"wrong key", ulinkrpc.TransformConfig{Mode: ulinkrpc.Encrypted, Keys: &wrong}, []string{"Encrypted", "Encrypted"}, 2},
	} {
		s := New(testConn, Config{Transform: tc.cfg})
		s.Bytes(dissect.C2S, wire(gz), stamp(1, 0))
		s.Bytes(dissect.C2S, wire(enc), stamp(2, 10))
		s.End(stamp(3, 20))
		rs := s.Records()
		errs := 0
		for i, r := range rs {
			if r.Msg != tc.msgs[i] {
				t.Errorf("%s: record %d msg %s; want %s", tc.name, i+1, r.Msg, tc.msgs[i])
			}
			for _, f := range r.Findings {
				if f.Severity == dissect.Error {
					errs++
				}
			}
		}
		if errs != tc.errs {
			t.Errorf("%s: %d error findings; want %d", tc.name, errs, tc.errs)
		}
		if tc.name == "key" {
			if tr := rs[0].Transform; tr == nil || !tr.Gzip || tr.Flags == nil || *tr.Flags != 1 {
				t.Errorf("gzip transform = %+v", tr)
			}
			if tr := rs[1].Transform; tr == nil || !tr.Encrypted || !tr.Decrypted {
				t.Errorf("encrypted transform = %+v", tr)
			}
			if rs[0].Len != len(gz) || len(rs[0].Envelope) != 17+len(big) {
				t.Errorf("len %d envelope %d; want %d and %d", rs[0].Len, len(rs[0].Envelope), len(gz), 17+len(big))
			}
		}
		if tc.name == "no key" && !strings.Contains(Line(rs[1]), "--ulinkrpc-key") {
			t.Errorf("no key: Line = %q", Line(rs[1]))
		}
	}
}

// TestWebSocket: the upgrade, masked client frames, a fragmented server
// message, a ping and a close; control frames are events, not records.
func TestWebSocket(t *testing.T) {
	key := [4]byte{1, 2, 3, 4}
	var c2s, s2c []byte
	c2s = append(c2s, websocket.EncodeUpgradeRequest("127.0.0.1:20000", "/ws", "dGhlIHNhbXBsZSBub25jZQ==")...)
	c2s = websocket.EncodeFrame(c2s, websocket.OpBinary, true, &key, wire(ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"Account":"ann"}`))))
	var later []byte
	later = websocket.EncodeFrame(later, websocket.OpPing, true, &key, []byte("p"))
	later = websocket.EncodeFrame(later, websocket.OpClose, true, &key, []byte{0x03, 0xe8, 'b', 'y', 'e'})
	s2c = append(s2c, websocket.EncodeUpgradeResponse("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")...)
	resp := wire(ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, nil, ""))
	s2c = websocket.EncodeFrame(s2c, websocket.OpBinary, false, nil, resp[:5])
	s2c = websocket.EncodeFrame(s2c, websocket.OpContinuation, true, nil, resp[5:])
	s := New(testConn, Config{Transport: WebSocket})
	half := len(c2s) / 2
	s.Bytes(dissect.C2S, c2s[:half], stamp(1, 0))
	s.Bytes(dissect.C2S, c2s[half:], stamp(2, 50))
	s.Bytes(dissect.S2C, s2c, stamp(3, 100))
	s.Bytes(dissect.C2S, later, stamp(4, 200))
	s.End(stamp(4, 300))
	rs := s.Records()
	if len(rs) != 2 || rs[0].Msg != "Request" || rs[1].Msg != "Response" || rs[1].Pair != 1 {
		t.Fatalf("records = %v", rs)
	}
	var kinds []string
	for _, e := range s.Events() {
		kinds = append(kinds, e.Dir.String()+":"+e.Kind)
	}
	if got := strings.Join(kinds, " "); got != "c2s:upgrade s2c:upgrade c2s:ping c2s:close" {
		t.Errorf("events = %s", got)
	}
	if !hasConnFinding(s.Findings(), `code 1000, reason "bye"`, 0) {
		t.Errorf("no close finding: %v", s.Findings())
	}
}

// TestKCP: the handshake, a request cut into three segments arriving out
// of order with a retransmission, and the answer.
func TestKCP(t *testing.T) {
	const conv = 0x11223344
	s := New(testConn, Config{Transport: KCP})
	s.Datagram(dissect.C2S, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: conv}), stamp(1, 0))
	s.Datagram(dissect.S2C, ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Ack: true, Conv: conv, SessionPort: 20000}), stamp(2, 10))
	req := wire(ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"Account":"`+strings.Repeat("k", 40)+`"}`)))
	segs := kcp.SplitMessage(conv, 0, req, 25)
	if len(segs) != 3 {
		t.Fatalf("%d segments; want 3", len(segs))
	}
	for i, k := range []int{0, 2, 2, 1} {
		s.Datagram(dissect.C2S, kcp.EncodeSegment(nil, segs[k]), stamp(3+i, 20+10*i))
	}
	if n := len(s.Records()); n != 1 || s.Records()[0].Frame != 6 {
		t.Fatalf("after the segments: %d records; want 1 completed by frame 6", n)
	}
	ack := kcp.EncodeSegment(nil, kcp.Segment{Conv: conv, Cmd: kcp.CmdAck, Sn: 2, Una: 3})
	resp := kcp.SplitMessage(conv, 0, wire(ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, nil, "")), 0)
	s.Datagram(dissect.S2C, kcp.EncodeSegment(ack, resp[0]), stamp(7, 500))
	s.End(stamp(8, 600))
	rs := s.Records()
	if len(rs) != 2 || rs[1].Pair != 1 || rs[1].Latency != 450*time.Microsecond || rs[1].Transport != KCP {
		t.Fatalf("records = %+v", rs)
	}
	if c := s.KCPCounts(dissect.C2S, conv); c.Duplicates != 1 || c.Messages != 1 {
		t.Errorf("c2s counts = %+v; want 1 duplicate, 1 message", c)
	}
	if c := s.KCPCounts(dissect.S2C, conv); c.Ack != 1 {
		t.Errorf("s2c counts = %+v; want 1 ack", c)
	}
	if ev := s.Events(); len(ev) != 2 || ev[0].Kind != "ukcp" || ev[1].Kind != "uack" {
		t.Errorf("events = %+v", ev)
	}
}

// TestMidStream starts inside a frame: the session resynchronises, reports
// the skipped bytes and pairs what follows.
func TestMidStream(t *testing.T) {
	s := New(testConn, Config{MidStream: true})
	var c2s []byte
	for id := uint32(1); id <= 4; id++ {
		c2s = append(c2s, wire(ulinkrpc.EncodeRequest(id, 1, 1, []byte(`{"Account":"ann"}`)))...)
	}
	s.Bytes(dissect.C2S, c2s[9:], stamp(1, 0))
	s.Bytes(dissect.S2C, wire(ulinkrpc.EncodeResponse(4, ulinkrpc.StatusOk, nil, "")), stamp(2, 100))
	s.End(stamp(3, 200))
	rs := s.Records()
	if len(rs) != 4 || *rs[0].RPC.RequestID != 2 || rs[3].Pair != 3 {
		t.Fatalf("records: %d, first id %v", len(rs), rs[0].RPC.RequestID)
	}
	if !hasConnFinding(s.Findings(), "skipped", 0) {
		t.Errorf("no resync finding: %v", s.Findings())
	}
}

// TestJSONShape checks every record line is valid JSON with outputs.md's
// keys, and the hostile strings stay exact.
func TestJSONShape(t *testing.T) {
	s := New(testConn, Config{Contracts: contracts(t)})
	hostile := "\x1b]0;owned\x07 \u202e \xff"
	play(s, append(conversation(), step{dissect.S2C, 2000, ulinkrpc.EncodeResponse(2, ulinkrpc.StatusBadRequest, []byte(`{"Note":"\u009b"}`), hostile)}), 0)
	for _, r := range s.Records() {
		line := AppendJSON(nil, r)
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("record %d: %v: %s", r.N, err, line)
		}
		for _, k := range []string{"n", "frame", "time", "conn", "dir", "len", "msg", "proto", "transport", "fields", "rpc", "expert", "hex"} {
			if _, ok := m[k]; !ok {
				t.Errorf("record %d: no %q key", r.N, k)
			}
		}
		if bytes.ContainsAny(line, "\x1b\u202e\u009b") {
			t.Errorf("record %d: a terminal control reaches the JSON: %q", r.N, line)
		}
	}
	last := s.Records()[len(s.Records())-1]
	var m struct {
		RPC struct {
			Error    string `json:"error"`
			ErrorHex string `json:"error_hex"`
		} `json:"rpc"`
	}
	if err := json.Unmarshal(AppendJSON(nil, last), &m); err != nil {
		t.Fatal(err)
	}
	if m.RPC.ErrorHex != "1b5d303b6f776e65640720e280ae20ff" {
		t.Errorf("error_hex = %s", m.RPC.ErrorHex)
	}
	if line := Line(last); strings.ContainsAny(line, "\x1b\u202e\x07") {
		t.Errorf("Line keeps terminal controls: %q", line)
	}
}

// TestOpenBound: past MaxOpen unanswered Requests the oldest are forgotten
// (and not kept), with one warning at the end.
func TestOpenBound(t *testing.T) {
	s := New(testConn, Config{MaxOpen: 2})
	var steps []step
	for id := uint32(1); id <= 5; id++ {
		steps = append(steps, step{dissect.C2S, int(id), ulinkrpc.EncodeRequest(id, 1, 1, nil)})
	}
	steps = append(steps, step{dissect.S2C, 10, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, nil, "")})
	play(s, steps, 0)
	if s.open.len() != 2 || len(s.Pending()) != 2 || s.Records()[5].Pair != 0 {
		t.Fatalf("kept %d, pending %d, response pair %d; want 2, 2, 0", s.open.len(), len(s.Pending()), s.Records()[5].Pair)
	}
	if !hasConnFinding(s.Findings(), "3 requests and 0 pings forgotten", 0) {
		t.Errorf("no bound warning: %v", s.Findings())
	}
}
