package export

import (
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// hostedRec is a hosted protocol's record that states a call
// (decode.Caller) and writes its values its own way (decode.ValueWriter).
type hostedRec struct{ meta decode.Meta }

func (r *hostedRec) Meta() decode.Meta                    { return r.meta }
func (r *hostedRec) Line() string                         { return "line" }
func (r *hostedRec) Tree() []decode.Node                  { return nil }
func (r *hostedRec) TreeText() string                     { return "" }
func (r *hostedRec) AppendJSON(dst, _ []byte) []byte      { return append(dst, "{}"...) }
func (r *hostedRec) Values(string) ([]any, bool)          { return nil, false }
func (r *hostedRec) Clone() decode.Record                 { cp := *r; return &cp }
func (r *hostedRec) AppendValue(dst []byte, _ any) []byte { return append(dst, "own"...) }
func (r *hostedRec) Call() decode.Call {
	sid := int32(4)
	return decode.Call{ServiceID: &sid}
}

// TestOfHosted: a hosted record's columns come from its Meta and the
// facts it states, whatever its protocol; it has no summary.
func TestOfHosted(t *testing.T) {
	rec := &hostedRec{meta: decode.Meta{N: 9, Frame: 3, Time: time.Unix(0, 77), Dir: dissect.S2C, Proto: "toy", Name: "Answer", Len: 5,
		Data: []byte("hello"), Pair: 8, Latency: 12, HasLatency: true, Findings: []dissect.Finding{{Severity: dissect.Warn}},
		Fields: []dissect.Field{{Name: "id", Value: uint64(1)}, {Name: "payload.text", Value: "hello"}}}}
	var a Adapter
	var r Record
	a.Of(&r, &session.Message{N: 9, Rec: rec, Summary: "line"})
	if r.N != 9 || r.Frame != 3 || r.TimeNS != 77 || r.Proto != "toy" || r.Msg != "Answer" || r.Len != 5 || r.Dir != "s2c" {
		t.Errorf("Of = %+v; want n 9, frame 3, time 77, toy Answer of 5 bytes, s2c", r)
	}
	if r.Summary.OK || r.Worst != some("warn") || r.Pair != some(int64(8)) || r.LatencyNS != some(int64(12)) || string(r.Hex) != "hello" {
		t.Errorf("Of = %+v; want no summary, worst warn, pair 8, latency 12, hex of the bytes", r)
	}
	if r.ServiceID != some(int32(4)) || r.MethodID.OK || r.Service.OK {
		t.Errorf("call columns = %+v %+v %+v; want service_id 4 only", r.ServiceID, r.MethodID, r.Service)
	}
	if len(r.Payload) != 1 || r.Payload[0].Name != "payload.text" {
		t.Errorf("Payload = %v; want payload.text only", r.Payload)
	}
	if got := string(r.AppendValue(nil, "x")); got != "own" {
		t.Errorf("AppendValue = %q; want the record's own writing", got)
	}
}
