package rpc

import (
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode"
)

// TestView: a table's `tables` text and the pane's rows, with the pending
// request's row the one Enter goes to.
func TestView(t *testing.T) {
	svc, m := "Chat", "Send"
	v := &View{Transport: WebSocket, Records: 3, Tables: Tables{
		Methods: []MethodStats{{ServiceID: 1, MethodID: 2, Service: &svc, Method: &m, Requests: 2, Responses: 1, Pending: 1,
			Latency: Latency{Min: time.Millisecond, Median: time.Millisecond, Max: time.Millisecond, OK: true}}},
		Pending: []PendingRequest{{N: 3, RequestID: 7, ServiceID: 1, MethodID: 2}},
	}}
	var b strings.Builder
	v.WriteText(&b)
	for _, want := range []string{"ulinkrpc over websocket, 3 records\n", "Chat.Send", "1.00 ms / 1.00 ms / 1.00 ms", "  pending: #3 request 7 (1.2)\n", "rtt -\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("WriteText = %q; want it to hold %q", b.String(), want)
		}
	}
	rows := v.Rows()
	last := rows[len(rows)-1]
	if last.Go != 3 || last.Style != decode.RowWarn || !strings.Contains(last.Text, "#3 request 7 Chat.Send 1.2") {
		t.Errorf("last row = %+v; want the pending request 3, going to it", last)
	}
	if rows[0].Style != decode.RowHeading || rows[0].Text != "Methods (1)" {
		t.Errorf("first row = %+v; want the Methods heading", rows[0])
	}
	for _, r := range rows[:len(rows)-1] {
		if r.Go != 0 {
			t.Errorf("row %q goes to %d; only a pending request's does", r.Text, r.Go)
		}
	}
}
