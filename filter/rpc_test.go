package filter

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

func rpcU32(v uint32) *uint32 { return &v }
func rpcI32(v int32) *int32   { return &v }
func rpcInt(v int) *int       { return &v }

var rpcConn = dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:50412"), Server: netip.MustParseAddrPort("10.0.0.1:20000")}

// rpcMessage is a ULinkRPC message as the index gives it (session.Index
// buildRPC): the record in Rec, its pairing copied.
func rpcMessage(r *rpc.Record) *session.Message {
	r.Conn = rpcConn
	return &session.Message{N: r.N, Conn: r.Conn, Dir: r.Dir, Data: make([]byte, r.Len), Rec: r,
		Pair: r.Pair, Latency: r.Latency, HasLatency: r.HasLatency, Findings: r.Findings}
}

// rpcFilterMessages are ULinkRPC messages beside filterMessages' Unturned
// ones: a named Request with a JSON payload, its NotFound Response, an
// unnamed Push with a MemoryPack payload, a KeepAlivePong.
var rpcFilterMessages = map[string]*session.Message{
	"request": rpcMessage(&rpc.Record{N: 20, Dir: dissect.C2S, Len: 44, Msg: "Request", Type: ulinkrpc.Request, Pair: 21,
		RPC: rpc.RPC{RequestID: rpcU32(7), ServiceID: rpcI32(1), MethodID: rpcI32(1), Service: filterStr("IPlayerService"), Method: filterStr("LoginAsync")},
		Fields: []dissect.Field{{Name: "type", Value: uint64(1)}, {Name: "payload", Value: []byte("{}")},
			{Name: "payload.Account", Value: "ann"}, {Name: "payload.Level", Value: int64(3)}, {Name: "payload.Tags[0]", Value: "x"}}}),
	"response": rpcMessage(&rpc.Record{N: 21, Dir: dissect.S2C, Len: 30, Msg: "Response", Type: ulinkrpc.Response, Pair: 20,
		Latency: 210 * time.Microsecond, HasLatency: true,
		RPC: rpc.RPC{RequestID: rpcU32(7), ServiceID: rpcI32(1), MethodID: rpcI32(1), Service: filterStr("IPlayerService"), Method: filterStr("LoginAsync"),
			StatusCode: rpcInt(1), Status: filterStr("NotFound"), Error: filterStr("No handler for 1:1")},
		Findings: []dissect.Finding{{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1}}}),
	"push": rpcMessage(&rpc.Record{N: 22, Dir: dissect.S2C, Len: 19, Msg: "Push", Type: ulinkrpc.Push,
		RPC:    rpc.RPC{ServiceID: rpcI32(2), MethodID: rpcI32(5)},
		Fields: []dissect.Field{{Name: "payload.0", Value: int64(-4)}, {Name: "payload.1", Value: uint64(9)}}}),
	"pong": rpcMessage(&rpc.Record{N: 24, Dir: dissect.S2C, Len: 9, Msg: "KeepAlivePong", Type: ulinkrpc.KeepAlivePong, Pair: 23,
		Latency: 3 * time.Millisecond, HasLatency: true, RPC: rpc.RPC{Ticks: new(int64)}}),
}

// TestFilterMatchULinkRPC: every field over ULinkRPC messages and the
// Unturned ones together: the ULinkRPC fields (proto, service, method, the
// ids, status, latency, payload.<member>) select ULinkRPC messages, the
// Unturned-only ones never match a ULinkRPC message, and the shared ones
// (msg, dir, n, len, conn, severity, group) read each protocol's value.
func TestFilterMatchULinkRPC(t *testing.T) {
	tests := []struct {
		expr string
		want string // matching names, in the order of names below
	}{
		{"proto==ulinkrpc", "request response push pong"},
		{"proto==unturned", "invoke kicked"},
		{"proto!=ulinkrpc", "invoke kicked"},
		{"proto~link", "request response push pong"},
		{"msg==Request", "request"},
		{"msg==keepalivepong", "pong"},
		{"msg~Invoke", "invoke"},
		{"Response", "response"},
		{"msg!=Push", "invoke kicked request response pong"},
		{"service==IPlayerService", "request response"},
		{"service~player", "request response"},
		{"service!=IPlayerService", "invoke kicked push pong"},
		{"method==LoginAsync", "request response"},
		{"service_id==2", "push"},
		{"service_id>=1", "request response push"},
		{"method_id==5", "push"},
		{"method_id!=1", "invoke kicked push pong"},
		{"request_id==7", "request response"},
		{"request_id>7", ""},
		{"request_id==0x7 && dir==s2c", "response"},
		{"status==NotFound", "response"},
		{"status==notfound", "response"},
		{"status==1", "response"},
		{"status~found", "response"},
		{"status==Ok", ""},
		{"latency>1ms", "pong"},
		{"latency<1ms", "response"},
		{"latency>=210us", "response pong"},
		{"latency==210000", "response"},
		{"latency<=0.21ms", "response"},
		{"latency!=3ms", "invoke kicked request response push"},
		{"payload.Account==ann", "request"},
		{"payload.account~AN", "request"},
		{"payload.Level>2", "request"},
		{"payload.Level==3", "request"},
		{"payload.Tags[].x==1 || payload.Tags==x", "request"},
		{"payload.0<0", "push"},
		{"payload.1==9", "push"},
		{"payload_message==Say", ""},
		{"len==44", "request"},
		{"len<10", "kicked pong"},
		{"dir==s2c && n>20", "response push pong"},
		{"conn~:20000", "request response push pong"},
		{"severity>=warn", "kicked response"},
		{"group==protocol", "response"},
		{"listener~Chat", "invoke"},
		{"id>=0", "invoke"},
		{"widened", "invoke"},
		{"mode~a", ""},
	}
	names := []string{"invoke", "kicked", "request", "response", "push", "pong"}
	msg := func(n string) *session.Message {
		if m := filterMessages[n]; m != nil {
			return m
		}
		return rpcFilterMessages[n]
	}
	for _, tt := range tests {
		f, err := Parse(tt.expr)
		if err != nil {
			t.Errorf("Parse(%q) error %v", tt.expr, err)
			continue
		}
		var got []string
		for _, n := range names {
			m := msg(n)
			match := f.Match(m)
			if f.HeadOnly() && f.MatchHead(m.Head()) != match {
				t.Errorf("Parse(%q): MatchHead(%s) = %v; Match = %v", tt.expr, n, !match, match)
			}
			if match {
				got = append(got, n)
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Parse(%q) matches %q; want %q", tt.expr, g, tt.want)
		}
	}
}

// TestFilterULinkRPCHeadOnly: the ULinkRPC fields the index record's Head
// carries are head-only; latency and payload members need the message.
func TestFilterULinkRPCHeadOnly(t *testing.T) {
	for _, tc := range []struct {
		expr string
		head bool
	}{
		{"proto==ulinkrpc", true},
		{"service~Player && method==LoginAsync", true},
		{"service_id==1 || method_id==2 || request_id==3", true},
		{"status==NotFound", true},
		{"msg==Request", true},
		{"latency>1ms", false},
		{"payload.Account==ann", false},
	} {
		f, err := Parse(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.HeadOnly(); got != tc.head {
			t.Errorf("Parse(%q).HeadOnly() = %v; want %v", tc.expr, got, tc.head)
		}
	}
}

// TestFilterULinkRPCErrors: latency takes durations, the ids numbers,
// proto its two names, msg the ULinkRPC names too.
func TestFilterULinkRPCErrors(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"latency>fast", `"fast" is not a duration`},
		{"latency~1ms", `operator "~" does not apply to duration field "latency"`},
		{"service_id==one", `"one" is not a number`},
		{"proto==http", `"http" is not one of unturned, ulinkrpc`},
		{"msg==Reqest", `"Reqest" is not a message name`},
		{"service", `field "service" needs an operator`},
	} {
		_, err := Parse(tc.expr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error = %v; want one containing %q", tc.expr, err, tc.want)
		}
	}
	if _, err := Parse("msg==KeepAlivePing || msg==Encrypted"); err != nil {
		t.Errorf("Parse of the ULinkRPC message names: %v", err)
	}
}
