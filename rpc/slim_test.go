package rpc

import (
	"testing"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// sameSlim checks that every record of compact, a KeepCompact session fed
// as whole was, that Slim keeps is given again by Restore, from its
// envelope and place alone, as whole decoded it: its JSON, tree and line.
func sameSlim(t *testing.T, whole, compact *Session) {
	t.Helper()
	ws, cs := whole.Records(), compact.Records()
	if len(ws) != len(cs) {
		t.Fatalf("compact session: %d records, want %d", len(cs), len(ws))
	}
	for i, r := range cs {
		if !compact.Slim(r) {
			continue
		}
		p := decode.Place{N: r.N, Frame: r.Frame, Time: r.Time, Dir: r.Dir, Offset: r.Offset, Pair: r.Pair,
			Latency: r.Latency, HasLatency: r.HasLatency, NoFindings: len(r.Findings) == 0}
		if r.Type == ulinkrpc.Response {
			p.Asker = cs[r.Pair-1]
		}
		w := ws[i]
		for _, whole := range []bool{true, false} {
			got := compact.Restore(r.Envelope, p, whole)
			if !whole {
				got = compact.Expand(got)
			}
			if string(AppendJSON(nil, got)) != string(AppendJSON(nil, w)) || TreeText(got) != TreeText(w) || Line(got) != Line(w) {
				t.Fatalf("record %d restored (whole %v):\n%s\nwant\n%s", r.N, whole, AppendJSON(nil, got), AppendJSON(nil, w))
			}
		}
	}
}

// TestSlimRestore (slim.go): the records of the test conversation (with
// contracts and without, JSON and MemoryPack payloads) that a compact
// session keeps slim come back from Restore as a whole session decoded
// them; the Response with nothing to pair and the records with other
// findings are not slim.
func TestSlimRestore(t *testing.T) {
	steps := append(conversation(), step{dissect.C2S, 1700, ulinkrpc.EncodeRequest(4, 1, 1, loginMP("bob", 3))},
		step{dissect.S2C, 1800, ulinkrpc.EncodeResponse(4, ulinkrpc.StatusOk, []byte{0x01}, "")})
	for _, cfg := range []Config{{}, {Contracts: contracts(t)}} {
		whole, compact := New(testConn, cfg), New(testConn, cfg)
		compact.KeepCompact()
		play(whole, steps, 0)
		play(compact, steps, 0)
		sameSlim(t, whole, compact)
		slim := 0
		for _, r := range compact.Records() {
			if compact.Slim(r) {
				slim++
			}
			if r.N == 4 && compact.Slim(r) {
				t.Error("the Response with nothing to pair is slim")
			}
		}
		t.Logf("contracts %v: %d of %d slim", cfg.Contracts != nil, slim, len(compact.Records()))
		if slim < 5 {
			t.Errorf("contracts %v: %d records slim; want at least 5", cfg.Contracts != nil, slim)
		}
	}
}
