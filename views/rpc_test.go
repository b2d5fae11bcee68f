package views

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned/fake"
)

// RPCFixture decodes fixtures/ulinkrpc/NAME.pcapng with the fixtures'
// contracts (and the encrypted scenario's key) through the pipeline every
// command uses, into the index that hosts its ULinkRPC records (issue 15).
// Exported for the views_test goldens.
func RPCFixture(t testing.TB, name string) *session.Index {
	t.Helper()
	c, err := ulinkrpc.ParseContractsFS(os.DirFS("../fixtures/ulinkrpc"), "contracts")
	if err != nil {
		t.Fatal(err)
	}
	cfg := rpc.Config{Contracts: c}
	if strings.Contains(name, "encrypted") {
		k := ulinkrpc.DeriveKeys([]byte("usmnscope fixture key"), ulinkrpc.HKDF)
		cfg.Transform.Keys = &k
	}
	// The one decode builder every command uses (pipeline.Open): the
	// capture options it derives carry the KCP ports and probe.
	d, err := pipeline.Open(pipeline.Options{Config: pipeline.Config{RPC: pipeline.NewRPC(cfg)}, InMemory: true, Path: filepath.Join("../fixtures/ulinkrpc", name+".pcapng")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Source.Close()
	if err := d.Feed(nil); err != nil {
		t.Fatal(err)
	}
	ix := d.Index
	if ix.Len() == 0 {
		t.Fatalf("%s: no ULinkRPC records", name)
	}
	return ix
}

// TestRPCFixtureEveryMessage (issue 23): the views' fixture builder
// decodes every ULinkRPC fixture as dump does, KCP on a port no option
// names included (kcp-otherport: the builder lacked the KCP probe, as
// open did): as many messages as the fixture's golden dump lists.
func TestRPCFixtureEveryMessage(t *testing.T) {
	caps, err := filepath.Glob("../fixtures/ulinkrpc/*.pcapng")
	if err != nil || len(caps) == 0 {
		t.Fatalf("no ULinkRPC fixtures: %v", err)
	}
	for _, c := range caps {
		name := strings.TrimSuffix(filepath.Base(c), ".pcapng")
		b, err := os.ReadFile(filepath.Join("../fixtures/ulinkrpc/golden", name+".dump.txt"))
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				want++
			}
		}
		if got := RPCFixture(t, name).Len(); got != want {
			t.Errorf("RPCFixture(%s).Len() = %d; want the %d messages of its golden dump", name, got, want)
		}
	}
}

// TestRPCPairJump: enter in the message list goes from a Request to its
// Response and back, and from a KeepAlivePing to its Pong; on a message
// without a pair (a Push) it stays and says so; the help line offers it
// only on a paired message.
func TestRPCPairJump(t *testing.T) {
	src := RPCFixture(t, "tcp-json")
	m := loaded(t, src, 160, 48)
	if m.Selected() != 1 {
		t.Fatalf("selected %d at start; want 1", m.Selected())
	}
	if !strings.Contains(screen(m), "enter go to pair #2") {
		t.Errorf("help line does not offer the pair of message 1:\n%s", screen(m))
	}
	for _, step := range []struct {
		keys []string
		want int
		note string
	}{
		{[]string{"enter"}, 2, "message 1 → its pair 2"},
		{[]string{"enter"}, 1, "message 2 → its pair 1"},
		{[]string{":", "1", "6", "enter", "enter"}, 17, "message 16 → its pair 17"}, // KeepAlivePing → Pong
		{[]string{"enter"}, 16, "message 17 → its pair 16"},
		{[]string{":", "3", "enter", "enter"}, 3, "message 3 has no pair"},        // a Push
		{[]string{":", "2", "4", "enter", "enter"}, 24, "message 24 has no pair"}, // pending
	} {
		m = press(t, m, step.keys...)
		if got := m.Selected(); got != step.want {
			t.Errorf("after %q: selected %d; want %d", step.keys, got, step.want)
		}
		if !strings.Contains(screen(m), step.note) {
			t.Errorf("after %q: status lacks %q:\n%s", step.keys, step.note, screen(m))
		}
	}
	if strings.Contains(screen(m), "go to pair") {
		t.Errorf("help line offers a pair on an unpaired message:\n%s", screen(m))
	}
}

// TestRPCPairJumpConnection: with a connection selected the jump stays in
// its list; with a filter that hides the partner, the filter is cleared to
// show it, as :N does.
func TestRPCPairJumpConnection(t *testing.T) {
	src := RPCFixture(t, "tcp-json")
	m := loaded(t, src, 160, 48)
	m = press(t, m, "shift+tab", "j", "tab", "j", "j", "j", "enter") // the connection, message 4
	if m.Selected() != 5 || m.allConns {
		t.Errorf("in the connection's list: selected %d (all %v); want 5 in the connection", m.Selected(), m.allConns)
	}
	m = press(t, m, "/", "d", "i", "r", " ", "=", "=", " ", "c", "2", "s", "enter", "g", "enter")
	if m.Selected() != 2 || m.filter != nil {
		t.Errorf("under a filter hiding the pair: selected %d, filter kept %v; want 2 with the filter cleared", m.Selected(), m.filter != nil)
	}
}

// TestRPCDetailBitsLinked: selecting an envelope field in the detail pane
// highlights its bytes in the bits pane (the envelope, MSB first), and
// moving the bit cursor selects the field back.
func TestRPCDetailBitsLinked(t *testing.T) {
	m := loaded(t, RPCFixture(t, "tcp-json"), 160, 48)
	m = press(t, m, "tab") // detail of message 1
	var at int
	for i, l := range m.detail.Lines() {
		if strings.Contains(l, "request_id = 1") {
			at = i
		}
	}
	if at == 0 {
		t.Fatalf("no request_id line in the tree:\n%s", strings.Join(m.detail.Lines(), "\n"))
	}
	for range at {
		m = press(t, m, "j")
	}
	f := m.detail.SelectedField()
	msg := m.detail.Message()
	if f < 0 || msg.Rec.(*rpc.Record).Fields[f].Name != "request_id" {
		t.Fatalf("selected field %d; want request_id", f)
	}
	if m.bits.SelectedField() != f || m.bits.Cursor() != 8 {
		t.Errorf("bits: field %d cursor %d; want %d at bit 8", m.bits.SelectedField(), m.bits.Cursor(), f)
	}
	if !m.bits.MSBFirst() || !strings.Contains(screen(m), "request_id @8+32") {
		t.Errorf("bits pane: MSB first %v, title lacks request_id @8+32:\n%s", m.bits.MSBFirst(), screen(m))
	}
	// In the bits pane, the next field is service_id, which the tree follows.
	m = press(t, m, "tab", "w")
	if g := m.detail.SelectedField(); g < 0 || msg.Rec.(*rpc.Record).Fields[g].Name != "service_id" {
		t.Errorf("after w in the bits pane the tree selects field %d; want service_id", g)
	}
	// A payload member nested in the payload layer.
	m = press(t, m, "w", "w", "w", "w", "w")
	if g := m.bits.SelectedField(); g < 0 || !strings.HasPrefix(msg.Rec.(*rpc.Record).Fields[g].Name, "payload") {
		t.Errorf("bits pane field %d; want a payload field", g)
	}
}

// TestRPCFramesClean walks every message of each ULinkRPC fixture with
// the detail, bits and tables panes showing: the hostile strings of
// tcp-json (an OSC title and a bidi override in an error text, CSI and C1
// in a JSON payload) never reach the terminal raw, and show escaped.
func TestRPCFramesClean(t *testing.T) {
	for _, name := range []string{"tcp-json", "tcp-memorypack", "tcp-gzip", "tcp-midstream", "websocket-json", "websocket-encrypted", "kcp-json", "kcp-memorypack"} {
		src := RPCFixture(t, name)
		for _, size := range [][2]int{{160, 48}, {80, 24}} {
			m := loaded(t, src, size[0], size[1])
			walk(t, m, hostileKeys(src.Len()+2))
		}
	}
	m := loaded(t, RPCFixture(t, "tcp-json"), 160, 48)
	m = press(t, m, ":", "1", "3", "enter")
	if s := screen(m); !strings.Contains(s, `error "\x1b]0;owned\x07 \u202eevil"`) {
		t.Errorf("message 13's row does not show its error text escaped:\n%s", s)
	}
	m = press(t, m, "tab")
	if s := strings.Join(m.detail.Lines(), "\n"); !strings.Contains(s, `error: "\x1b]0;owned\x07 \u202eevil"`) {
		t.Errorf("message 13's tree does not show its error text escaped:\n%s", s)
	}
	m = press(t, m, "shift+tab", "j", "tab")
	if s := strings.Join(m.detail.Lines(), "\n"); !strings.Contains(s, `Account = "\x1b[2J\u009b\u202e"`) {
		t.Errorf("message 14's tree does not show its payload string escaped:\n%s", s)
	}
}

// TestRPCTablesPane: the tables pane of a ULinkRPC connection lists its
// methods with counts and latency, pushes, keep-alives, statuses and the
// pending request as of the selected message, and Enter on that request
// goes to it.
func TestRPCTablesPane(t *testing.T) {
	m := loaded(t, RPCFixture(t, "tcp-json"), 160, 48)
	m = press(t, m, "G", "t") // as of the last message: the capture's end
	got := strings.Join(m.tables.Lines(), "\n")
	for _, want := range []string{
		"IPlayerService.LoginAsync 1.1     4    3    1    1  0.21/0.22/1.01 ms",
		"IPlayerService.IncrStep   1.2     4    4    4    0  0.21/0.21/0.96 ms",
		"?.?                       7.9     1    1    1    0  0.21/0.21/0.21 ms",
		"IPlayerService.OnNotify 1.1  1",
		"4 pings, 3 pongs, rtt 0.10/0.13/0.21 ms",
		"Ok 2, NotFound 1, HandlerError 1, Overloaded 1, BadRequest 1, ProtocolError 1, Unknown(9) 1",
		"#24 request 8 IPlayerService.LoginAsync 1.1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("tables pane lacks %q:\n%s", want, got)
		}
	}
	// As of message 2 only LoginAsync was called, and answered.
	early := strings.Join(press(t, m, "t", ":", "2", "enter", "t").tables.Lines(), "\n")
	if !strings.Contains(early, "Methods (1)") || !strings.Contains(early, "IPlayerService.LoginAsync 1.1     1    1    0    0  0.22/0.22/0.22 ms") {
		t.Errorf("tables as of message 2:\n%s", early)
	}
	for range len(m.tables.Lines()) {
		m = press(t, m, "j")
	}
	m = press(t, m, "enter")
	if m.Selected() != 24 || m.focus != FocusMessages {
		t.Errorf("enter on the pending request: selected %d, focus %s; want 24 in the messages", m.Selected(), m.focus)
	}
}

// TestRPCConnsAndRows: the connection shows its protocol and transport,
// and the message rows rpc.Line's text with the severity letter.
func TestRPCConnsAndRows(t *testing.T) {
	for _, tc := range []struct {
		name, conn string
		rows       []string
	}{
		{"tcp-json", "ulinkrpc tcp  26 msgs", []string{
			"        1   0.000000 c1  → Request                    #1 IPlayerService.LoginAsync {\"Account\":\"ann\",\"Level\":3}",
			"        2   0.000220 c1  ← Response                   #1 Ok 0.22 ms {\"Code\":0,\"Token\":\"t-1\"}",
			"N      15   0.009350 c1  ← Response                   #7 Unknown(9) 0.21 ms",
		}},
		{"websocket-encrypted", "ulinkrpc websocket", []string{"[decrypted]"}},
		{"kcp-memorypack", "ulinkrpc kcp", []string{`#1 IPlayerService.LoginAsync {"Account":"a long account`}},
	} {
		s := screen(loaded(t, RPCFixture(t, tc.name), 160, 48))
		for _, want := range append(tc.rows, tc.conn) {
			if !strings.Contains(s, want) {
				t.Errorf("%s: screen lacks %q:\n%s", tc.name, want, s)
			}
		}
	}
}

// TestRPCHostileSynthetic: terminal controls in every string a ULinkRPC
// record carries — a JSON key and value, a MemoryPack string cut without a
// schema, an error text that is not UTF-8, raw payload bytes — never reach
// a frame raw, in any pane, nor the layer tree's text (dump -V).
func TestRPCHostileSynthetic(t *testing.T) {
	conn := fake.Vanilla
	conn.Server = netip.MustParseAddrPort("10.0.0.1:20000")
	s := rpc.New(conn, rpc.Config{})
	evil := "\x1b]0;owned\x07\u202e\u009b2J\x1b[2J"
	envs := []struct {
		d   dissect.Dir
		env []byte
	}{
		{dissect.C2S, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"\u001b]0;k\u0007":"\u009b31m\u202e","A":[{"B":"\u001b[2J"}]}`))},
		{dissect.S2C, ulinkrpc.EncodeResponse(1, ulinkrpc.StatusHandlerError, nil, "\xff"+evil)},
		{dissect.C2S, ulinkrpc.EncodeRequest(2, 1, 2, ulinkrpc.MPEncodeObject(true, ulinkrpc.MPString(evil), ulinkrpc.MPInt32(7)))},
		{dissect.S2C, ulinkrpc.EncodePush(9, 9, append([]byte{0xff, 0x1b}, evil...))},
		{dissect.S2C, ulinkrpc.EncodeResponse(2, ulinkrpc.Status(77), []byte(evil), evil)},
	}
	for i, e := range envs {
		s.Bytes(e.d, ulinkrpc.AppendFrame(nil, e.env), rpc.Stamp{Frame: i + 1, Time: fake.T0.Add(time.Duration(i) * time.Millisecond)})
	}
	s.End(rpc.Stamp{Frame: len(envs) + 1, Time: fake.T0.Add(time.Second)})
	for _, r := range s.Records() {
		if i, c, bad := frameControl(rpc.TreeText(r) + rpc.Line(r)); bad {
			t.Errorf("record %d: the tree text holds raw %U at byte %d", r.N, c, i)
		}
	}
	src := rpcSource([]*rpc.Session{s})
	if src.Len() != len(envs) {
		t.Fatalf("%d records; want %d", src.Len(), len(envs))
	}
	for _, size := range [][2]int{{160, 48}, {80, 24}} {
		m := loaded(t, src, size[0], size[1])
		walk(t, m, hostileKeys(src.Len()+2))
	}
	m := loaded(t, src, 160, 48)
	if sc := screen(m); !strings.Contains(sc, `\x1b]0;owned\x07\u202e\u009b2J\x1b[2J`) {
		t.Errorf("the error text is not shown escaped:\n%s", sc)
	}
}

// TestUnturnedPairJump: enter goes between an Unturned pair too (a
// PingRequest and its PingResponse, Message.Pair), with a connection
// selected as with all.
func TestUnturnedPairJump(t *testing.T) {
	src := fake.Capture()
	src.Msgs[0].Pair, src.Msgs[4].Pair = 5, 1
	src.Msgs[4].Latency, src.Msgs[4].HasLatency = 400*time.Millisecond, true
	m := loaded(t, src, 160, 48)
	if !strings.Contains(screen(m), "enter go to pair #5") {
		t.Errorf("help line does not offer the pair:\n%s", screen(m))
	}
	m = press(t, m, "enter")
	if m.Selected() != 5 {
		t.Errorf("enter on 1: selected %d; want 5", m.Selected())
	}
	m = press(t, m, "shift+tab", "j", "tab", "enter") // connection c1 (messages 1 and 5), from 5
	if m.Selected() != 1 || m.allConns {
		t.Errorf("enter on 5 in its connection: selected %d (all %v); want 1 in c1", m.Selected(), m.allConns)
	}
	m = press(t, m, "enter")
	if m.Selected() != 5 {
		t.Errorf("enter on 1: selected %d; want 5", m.Selected())
	}
	m = press(t, m, ":", "2", "enter", "enter")
	if m.Selected() != 2 || !strings.Contains(screen(m), "message 2 has no pair") {
		t.Errorf("enter on unpaired 2: selected %d:\n%s", m.Selected(), screen(m))
	}
}
