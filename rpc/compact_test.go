package rpc

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// TestCompactSame checks that a compact session's records, expanded
// (Expand), print exactly what a session that keeps them whole prints:
// dump line, -V tree, --json and the filter's values, for plain,
// encrypted and gzip frames, with and without contracts (issue 28).
func TestCompactSame(t *testing.T) {
	keys := ulinkrpc.DeriveKeys([]byte("fixture master key"), ulinkrpc.HKDF)
	steps := append(conversation()[:0:0], conversation()...)
	steps = append(steps,
		step{dissect.C2S, 3000, ulinkrpc.EncodeRequest(4, 1, 1, loginMP("bob", 3))},
		step{dissect.S2C, 3180, ulinkrpc.EncodeResponse(4, ulinkrpc.StatusOk, ulinkrpc.MPEncodeObject(true, ulinkrpc.MPInt32(0), ulinkrpc.MPString("t")), "")},
		step{dissect.S2C, 3300, ulinkrpc.EncodeResponse(4, ulinkrpc.StatusOk, nil, "")},
		step{dissect.S2C, 3350, ulinkrpc.EncodeResponse(99, ulinkrpc.StatusOk, nil, "no such")}, // unpaired
		step{dissect.C2S, 3400, append(ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 7), 0)}, // trailing byte
		step{dissect.C2S, 3500, []byte{9, 1, 2}},                                                // unknown type
		step{dissect.C2S, 3600, []byte{1, 0, 0}},                                                // cut short
	)
	for _, tc := range []struct {
		name string
		cfg  Config
		opt  ulinkrpc.TransformOptions
	}{
		{"names", Config{Contracts: contracts(t)}, ulinkrpc.TransformOptions{}},
		{"nonames", Config{}, ulinkrpc.TransformOptions{}},
		{"gzip", Config{Contracts: contracts(t), Transform: ulinkrpc.TransformConfig{Mode: ulinkrpc.Auto}}, ulinkrpc.TransformOptions{Compress: true, Threshold: 16}},
		{"encrypted", Config{Contracts: contracts(t), Transform: ulinkrpc.TransformConfig{Keys: &keys}}, ulinkrpc.TransformOptions{Keys: &keys, Compress: true, Threshold: 16}},
		{"encrypted-nokey", Config{Contracts: contracts(t), Transform: ulinkrpc.TransformConfig{Mode: ulinkrpc.Auto}}, ulinkrpc.TransformOptions{Keys: &keys}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := steps
			if tc.opt.Keys != nil || tc.opt.Compress {
				st = nil
				for _, s := range steps {
					s.env = ulinkrpc.ApplyTransform(s.env, tc.opt)
					st = append(st, s)
				}
			}
			whole, compact := New(testConn, tc.cfg), New(testConn, tc.cfg)
			compact.KeepCompact()
			play(whole, st, 0)
			play(compact, st, 0)
			ws, cs := whole.Records(), compact.Records()
			raws := 0
			defer func() { t.Logf("%d records, %d kept as their transformed frame", len(ws), raws) }()
			if len(ws) != len(cs) || len(ws) == 0 {
				t.Fatalf("%d records whole, %d compact", len(ws), len(cs))
			}
			for i, w := range ws {
				c := cs[i]
				if !c.Compacted() || c.Fields != nil || c.Payload != nil {
					t.Errorf("record %d: kept whole in a compact session", w.N)
				}
				if c.raw != nil {
					raws++
				}
				e := compact.Expand(c)
				if a, b := AppendJSON(nil, w), AppendJSON(nil, e); !bytes.Equal(a, b) {
					t.Errorf("record %d --json:\nwhole   %s\ncompact %s", w.N, a, b)
				}
				if a, b := Line(w), Line(e); a != b {
					t.Errorf("record %d line: %q, compact %q", w.N, a, b)
				}
				if a, b := TreeText(w), TreeText(e); a != b {
					t.Errorf("record %d tree:\n%s\ncompact:\n%s", w.N, a, b)
				}
				if a, _ := w.Values("payload.Level"); len(a) > 0 {
					if b, _ := e.Values("payload.Level"); len(b) != len(a) {
						t.Errorf("record %d payload.Level: %v, compact %v", w.N, a, b)
					}
				}
			}
		})
	}
}

// TestCompactValuesOwned checks that a compact session's records hold
// their rpc object's values themselves (Record.vals) and that nothing
// else points at them: a copy (Expand, Clone) and a Response (its
// Request's ids) keep their values when the record they came from is
// reused for another frame, as a compact session reuses the records its
// host keeps slim (issue 28).
func TestCompactValuesOwned(t *testing.T) {
	s := New(testConn, Config{Contracts: contracts(t)})
	s.KeepCompact()
	play(s, conversation(), 0)
	recs := s.Records()
	var want []string
	var copies []*Record
	for _, r := range recs {
		if r.RPC.RequestID != nil && r.RPC.RequestID != &r.vals.requestID {
			t.Errorf("record %d: its request_id is not its own", r.N)
		}
		want = append(want, valuesText(r))
		copies = append(copies, s.Expand(r), r.Clone().(*Record))
	}
	answers := 0
	for _, r := range recs {
		// Reused for another frame: its values overwritten.
		r.vals = rpcValues{requestID: 1 << 30, serviceID: -7, methodID: -7, statusCode: -7, ticks: -7}
	}
	for i, r := range recs {
		for _, cp := range copies[2*i : 2*i+2] {
			if got := valuesText(cp); got != want[i] {
				t.Errorf("record %d: a copy reads %q after the record was reused; want %q", r.N, got, want[i])
			}
		}
		if r.Type == ulinkrpc.Response && r.RPC.ServiceID != nil {
			answers++
			if *r.RPC.ServiceID != -7 {
				t.Errorf("record %d: a Response's service_id is not its own", r.N)
			}
		}
	}
	if answers == 0 {
		t.Fatal("no paired Response in the conversation")
	}
}

// valuesText is what r's rpc object says: its ids, status, names and
// ticks.
func valuesText(r *Record) string {
	var b []byte
	for _, k := range []string{"request_id", "service_id", "method_id", "status", "service", "method"} {
		v, _ := r.Values(k)
		b = fmt.Appendf(b, "%s=%v ", k, v)
	}
	if r.RPC.Ticks != nil {
		b = fmt.Appendf(b, "ticks=%d", *r.RPC.Ticks)
	}
	return string(b)
}
