package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
)

// TestBriefOf: briefOf reads a ULinkRPC record's fields as decode.BriefOf
// gives them.
func TestBriefOf(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 30000, time.UTC)
	tests := []*rpc.Record{
		{},
		{N: 3, Frame: 7, Time: at, Dir: dissect.S2C, Len: 45, Msg: "Push", Envelope: []byte{3, 0, 0, 0, 1}},
		{N: 9, Frame: 12, Time: at, Len: 65, Msg: "Request", Envelope: []byte{1, 2}, Pair: 121, Latency: 5 * time.Millisecond, HasLatency: true,
			Findings: []dissect.Finding{{Severity: dissect.Note, Group: dissect.Inference, Text: "note"}}},
	}
	for _, r := range tests {
		m := decode.BriefOf(r)
		want := hostedBrief{Frame: m.Frame, Len: m.Len, Wire: m.Wire, Pair: m.Pair, Time: m.Time, Dir: m.Dir,
			Data: m.Data, Findings: m.Findings, Latency: m.Latency, HasLatency: m.HasLatency}
		if got := briefOf(r); fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Errorf("briefOf(%s #%d) = %#v; want %#v", r.Msg, r.N, got, want)
		}
	}
}
