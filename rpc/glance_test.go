package rpc

import (
	"fmt"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// TestGlance: a record's Glance reads its fields as its Brief gives them
// (decode.GlanceOf of a record without a Glance reads the Brief).
func TestGlance(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 30000, time.UTC)
	tests := []*Record{
		{},
		{N: 3, Frame: 7, Time: at, Dir: dissect.S2C, Len: 45, Msg: "Push", Envelope: []byte{3, 0, 0, 0, 1}},
		{N: 9, Frame: 12, Time: at, Len: 65, Msg: "Request", Envelope: []byte{1, 2}, Pair: 121, Latency: 5 * time.Millisecond, HasLatency: true,
			Findings: []dissect.Finding{{Severity: dissect.Note, Group: dissect.Inference, Text: "note"}}},
		{N: 4, Frame: 2, Time: at, Len: 9, light: true, brief: ulinkrpc.Brief{Len: 9}},
	}
	for _, r := range tests {
		m := r.Brief()
		want := decode.Glance{N: m.N, Frame: m.Frame, Time: m.Time, Dir: m.Dir, Len: m.Len, Wire: m.Wire, Size: m.Size,
			Data: m.Data, Findings: m.Findings, Pair: m.Pair, Latency: m.Latency, HasLatency: m.HasLatency}
		if got := r.Glance(); fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Errorf("Glance(%s #%d) = %#v; want %#v", r.Msg, r.N, got, want)
		}
		if got := decode.GlanceOf(briefOnly{r}); fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Errorf("GlanceOf(%s #%d without Glance) = %#v; want %#v", r.Msg, r.N, got, want)
		}
	}
}

// briefOnly is a record with a Brief but no Glance: its Glance, of
// another signature, hides the Record's.
type briefOnly struct{ *Record }

func (briefOnly) Glance() {}
