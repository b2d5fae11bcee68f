package rpc

import (
	"bytes"
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
