package session_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
)

// TestRPCSlimSame (hostedslim.go): a full index that keeps ULinkRPC records
// slim gives every message, detail, head and table as one that keeps them
// all as records, over the random traffic of TestRPCHostRandom.
func TestRPCSlimSame(t *testing.T) {
	slim, total := 0, 0
	for _, traffic := range []func(seed uint64) hostMix{
		func(seed uint64) hostMix { return hostMix{configs: hostConfigs, evs: hostTraffic(seed)} },
		hostTrafficKCP,
	} {
		for seed := range uint64(40) {
			mix := traffic(seed)
			mix.file = seed%2 == 1
			ix := feedHost(mix, nil)
			ref := feedHost(mix, nil, (*session.Index).NoSlim)
			slim += ix.Slim()
			total += ix.Len()
			if got, want := ix.AppendJSONRange(nil, 1, ix.Len(), nil), ref.AppendJSONRange(nil, 1, ref.Len(), nil); string(got) != string(want) {
				g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
				for i := range min(len(g), len(w)) {
					if g[i] != w[i] {
						t.Fatalf("seed %d: JSON differs from the reference's:\n%s\nwant\n%s", seed, g[i], w[i])
					}
				}
				t.Fatalf("seed %d: JSON differs from the reference's: %d lines, want %d", seed, len(g), len(w))
			}
			heads := ix.Heads(make([]session.Head, 0, ix.Len()), 1)
			refHeads := ref.Heads(make([]session.Head, 0, ref.Len()), 1)
			for n := 1; n <= ix.Len(); n++ {
				m, w := ix.Detail(n), ref.Detail(n)
				if rpcOf(m.Rec) == nil {
					continue
				}
				if rpcOf(m.Rec).TreeText() != rpcOf(w.Rec).TreeText() || m.Summary != w.Summary || !reflect.DeepEqual(m.Data, w.Data) ||
					m.Pair != w.Pair || m.Latency != w.Latency || !reflect.DeepEqual(m.Findings, w.Findings) {
					t.Fatalf("seed %d: message %d: %q\nwant %q", seed, n, rpcOf(m.Rec).TreeText(), rpcOf(w.Rec).TreeText())
				}
				if !sameRecord(rpcOf(ix.Record(n)), rpcOf(ref.Record(n))) {
					t.Fatalf("seed %d: record %d differs:\n%+v\nwant %+v", seed, n, rpcOf(ix.Record(n)), rpcOf(ref.Record(n)))
				}
				if b, wb := heads[n-1], refHeads[n-1]; b != wb || !b.Hosted || b.Rec != nil {
					t.Fatalf("seed %d: bulk head %d: %+v, want %+v, hosted, without a record", seed, n, b, wb)
				}
				h, _ := ix.Head(n)
				wh, _ := ref.Head(n)
				if !h.Hosted || rpcOf(h.Rec).Line() != rpcOf(wh.Rec).Line() || h.Worst != wh.Worst || !sameRecord(rpcOf(h.Rec), rpcOf(wh.Rec)) {
					t.Fatalf("seed %d: head %d: %q, want %q", seed, n, rpcOf(h.Rec).Line(), rpcOf(wh.Rec).Line())
				}
			}
			for i := range ix.Connections() {
				for _, asOf := range []int{ix.Len() / 3, ix.Len()} {
					if got, want := ix.TablesOf(i, asOf), ref.TablesOf(i, asOf); !reflect.DeepEqual(got, want) {
						t.Fatalf("seed %d: connection %d's tables as of %d differ", seed, i, asOf)
					}
				}
			}
		}
	}
	t.Logf("%d of %d messages kept slim", slim, total)
	if slim == 0 {
		t.Fatal("no record kept slim: the test compares nothing")
	}
}

// sameRecord compares two records as shown: their JSON, tree, line,
// fields, payload and rpc object.
func sameRecord(a, b *rpc.Record) bool {
	if a == nil || b == nil {
		return a == b
	}
	return string(a.AppendJSON(nil, nil)) == string(b.AppendJSON(nil, nil)) && a.TreeText() == b.TreeText() &&
		a.Line() == b.Line() && reflect.DeepEqual(a.Fields, b.Fields) && reflect.DeepEqual(a.Payload, b.Payload) &&
		reflect.DeepEqual(a.RPC, b.RPC) && reflect.DeepEqual(a.Envelope, b.Envelope) && a.Time.Equal(b.Time) &&
		a.N == b.N && a.Frame == b.Frame && a.Offset == b.Offset && a.Pair == b.Pair && a.Latency == b.Latency &&
		a.HasLatency == b.HasLatency && a.Len == b.Len && a.Msg == b.Msg && a.Type == b.Type && a.Conn == b.Conn
}

// TestRPCSlimFileGone: a slim record whose bytes are in a capture file
// that can no longer be read back (cut short under the open TUI) is still
// shown, as far as its bytes go, with the read error as a finding, not
// dropped from the list.
func TestRPCSlimFileGone(t *testing.T) {
	gone, hosted := 0, 0
	for seed := range uint64(40) {
		ix := feedHost(hostMix{configs: hostConfigs, evs: hostTraffic(seed), file: true}, nil)
		ix.SetStore(&fileStore{})
		for n := 1; n <= ix.Len(); n++ {
			h, ok := ix.Head(n)
			if !ok || !h.Hosted {
				continue
			}
			hosted++
			m := ix.Message(n)
			if m == nil || rpcOf(m.Rec) == nil {
				t.Fatalf("seed %d: message %d: %v; want its record", seed, n, m)
			}
			for _, f := range m.Findings {
				if f.Severity == dissect.Error && strings.Contains(f.Text, "capture file") {
					gone++
					break
				}
			}
		}
	}
	if gone == 0 {
		t.Fatalf("none of %d ULinkRPC messages was read from the capture file", hosted)
	}
	t.Logf("%d of %d ULinkRPC messages shown without their bytes", gone, hosted)
}
