package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// rpcRecordJSON is what these tests read of a ULinkRPC dump --json record.
type rpcRecordJSON struct {
	N       int    `json:"n"`
	Msg     string `json:"msg"`
	Pair    int    `json:"pair"`
	Latency *int64 `json:"latency_ns"`
	RPC     struct {
		ServiceID *int32  `json:"service_id"`
		Method    *string `json:"method"`
		Status    *string `json:"status"`
	} `json:"rpc"`
}

func rpcRecords(t *testing.T, out string) []rpcRecordJSON {
	t.Helper()
	var rs []rpcRecordJSON
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r rpcRecordJSON
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		rs = append(rs, r)
	}
	return rs
}

// TestULinkRPCDumpFilter (issue 15): --filter selects ULinkRPC records by
// their fields in dump, dump -x and dump --json, the same records each
// time, and an Unturned-only field selects none of them.
func TestULinkRPCDumpFilter(t *testing.T) {
	c := filepath.Join(rpcFixturesDir, "tcp-json.pcapng")
	code, out, errOut := run(t, nil, append(append([]string{"dump", "--json"}, rpcArgs("tcp-json")...), c)...)
	if code != exitOK || errOut != "" {
		t.Fatalf("dump --json: exit %d, %q", code, errOut)
	}
	all := rpcRecords(t, out)
	for _, tc := range []struct {
		expr string
		want func(r rpcRecordJSON) bool
	}{
		{"proto==ulinkrpc", func(r rpcRecordJSON) bool { return true }},
		{"method==LoginAsync", func(r rpcRecordJSON) bool { return r.RPC.Method != nil && *r.RPC.Method == "LoginAsync" }},
		{"msg==Response && status!=Ok", func(r rpcRecordJSON) bool { return r.Msg == "Response" && r.RPC.Status != nil && *r.RPC.Status != "Ok" }},
		{"latency>=200us", func(r rpcRecordJSON) bool { return r.Latency != nil && *r.Latency >= 200000 }},
		{"listener~Chat || widened", func(r rpcRecordJSON) bool { return false }},
	} {
		var want []int
		for _, r := range all {
			if tc.want(r) {
				want = append(want, r.N)
			}
		}
		if len(want) == 0 && tc.expr != "listener~Chat || widened" {
			t.Fatalf("%q: the fixture has no such record: the test compares nothing", tc.expr)
		}
		args := append(append([]string{"dump", "--json", "--filter", tc.expr}, rpcArgs("tcp-json")...), c)
		_, out, _ := run(t, nil, args...)
		var got []int
		for _, r := range rpcRecords(t, out) {
			got = append(got, r.N)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("dump --json --filter %q: records %v; want %v", tc.expr, got, want)
		}
		args = append(append([]string{"dump", "--filter", tc.expr}, rpcArgs("tcp-json")...), c)
		_, out, _ = run(t, nil, args...)
		got = nil
		for _, line := range strings.Split(out, "\n") {
			var n int
			if _, err := fmt.Sscan(line, &n); err == nil {
				got = append(got, n)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("dump --filter %q: lines %v; want %v", tc.expr, got, want)
		}
	}
}

// TestULinkRPCTablesAt (issue 15): tables --at N counts a ULinkRPC
// connection's records up to message N: its messages are N (one
// connection), a Request is pending until its Response is among them, and
// the text says as much.
func TestULinkRPCTablesAt(t *testing.T) {
	c := filepath.Join(rpcFixturesDir, "tcp-json.pcapng")
	_, out, _ := run(t, nil, append(append([]string{"dump", "--json"}, rpcArgs("tcp-json")...), c)...)
	all := rpcRecords(t, out)
	for _, at := range []int{1, 2, 5, len(all) - 1, len(all)} {
		args := append(append([]string{"tables", "--json", "--at", fmt.Sprint(at)}, rpcArgs("tcp-json")...), c)
		code, out, errOut := run(t, nil, args...)
		var doc struct {
			Connections []struct {
				Proto    string `json:"proto"`
				Messages int    `json:"messages"`
				RPC      struct {
					Methods []struct {
						Requests, Responses, Pending int
					} `json:"methods"`
					Pending []struct {
						N int `json:"n"`
					} `json:"pending"`
				} `json:"rpc"`
			} `json:"connections"`
		}
		if err := json.Unmarshal([]byte(out), &doc); code != exitOK || errOut != "" || err != nil || len(doc.Connections) != 1 {
			t.Fatalf("tables --json --at %d: exit %d, %q, %v, %d connections", at, code, errOut, err, len(doc.Connections))
		}
		cn := doc.Connections[0]
		requests, responses := 0, 0
		var pending []int
		for _, r := range all[:at] {
			switch {
			case r.Msg == "Request":
				requests++
				if r.Pair == 0 || r.Pair > at {
					pending = append(pending, r.N)
				}
			case r.Msg == "Response" && r.Pair != 0 && r.RPC.ServiceID != nil:
				responses++
			}
		}
		gotReq, gotResp, gotPend := 0, 0, 0
		for _, m := range cn.RPC.Methods {
			gotReq, gotResp, gotPend = gotReq+m.Requests, gotResp+m.Responses, gotPend+m.Pending
		}
		var gotPending []int
		for _, p := range cn.RPC.Pending {
			gotPending = append(gotPending, p.N)
		}
		if cn.Proto != "ulinkrpc" || cn.Messages != at || gotReq != requests || gotResp != responses || gotPend != len(pending) || fmt.Sprint(gotPending) != fmt.Sprint(pending) {
			t.Errorf("tables --json --at %d: proto %s, %d messages, %d requests, %d responses, pending %v (%d); want ulinkrpc, %d, %d, %d, %v",
				at, cn.Proto, cn.Messages, gotReq, gotResp, gotPending, gotPend, at, requests, responses, pending)
		}
		args = append(append([]string{"tables", "--at", fmt.Sprint(at)}, rpcArgs("tcp-json")...), c)
		_, out, _ = run(t, nil, args...)
		if want := fmt.Sprintf("as of message %d\n\nconnection 10.0.0.2:50412-10.0.0.1:20000: ulinkrpc over tcp, %d records\n", at, at); !strings.Contains(out, want) {
			t.Errorf("tables --at %d:\n%s\nwant it to contain %q", at, out, want)
		}
	}
	if code, _, errOut := run(t, nil, append(append([]string{"tables", "--at", fmt.Sprint(len(all) + 1)}, rpcArgs("tcp-json")...), c)...); code != exitUsage {
		t.Errorf("tables --at past the last record: exit %d, %q; want a usage error", code, errOut)
	}
}
