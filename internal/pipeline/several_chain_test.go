package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/scenario"
)

// TestChainedClocks: three captures, A (the reference) and B sharing an
// Unturned session, B and C a ULinkRPC one, A and C none: C's clock
// reaches A's through B (via B, the error bounds added), within 100 µs of
// the truth, and the one-way delays of the B–C session, which need both
// B's and C's clocks, within 100 µs of theirs. Without B, C shares
// nothing with A: offset 0, error_ns -1 and a note saying so.
func TestChainedClocks(t *testing.T) {
	ch, err := (scenario.Chain{OffsetB: 1300 * time.Millisecond, DriftB: 30, OffsetC: -2100 * time.Millisecond, DriftC: -45}).Generate()
	if err != nil {
		t.Fatal(err)
	}
	bAll, ps2, tr2 := ch.B, ch.BC, ch.BCTruth
	truthB, truthC := ch.TruthB, ch.TruthC
	dir := t.TempDir()
	files := map[string][]scenario.Packet{"a.pcap": ch.A, "b.pcap": ch.B, "c.pcap": ch.C}
	for name, ps := range files {
		var buf bytes.Buffer
		if err := scenario.WritePackets(&buf, scenario.PCAP, "", ps); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	capOf := func(names ...string) []pipeline.Capture {
		var cs []pipeline.Capture
		for _, n := range names {
			cs = append(cs, pipeline.Capture{Path: filepath.Join(dir, n), Host: strings.TrimSuffix(n, ".pcap"), Capture: n})
		}
		return cs
	}
	rp := func() *pipeline.RPC { return pipeline.NewRPC(rpc.Config{}) }

	ix, d := decodeAll(t, pipeline.Options{Config: pipeline.Config{RPC: rp()}, Several: capOf("a.pcap", "b.pcap", "c.pcap")})
	cl := d.Source.(*merge.Source).Plan().Clocks
	for i, want := range []int64{0, truthB, truthC} {
		if diff := cl[i].OffsetNS - want; diff > 100_000 || diff < -100_000 {
			t.Errorf("%s: offset_ns %d; want %d ± 100 µs (clock %+v)", cl[i].Capture, cl[i].OffsetNS, want, cl[i])
		}
	}
	if !slices.Equal(cl[2].Via, []string{"b.pcap"}) || cl[1].Via != nil || cl[2].ErrorNS <= cl[1].ErrorNS || cl[1].ErrorNS <= 0 || cl[2].Matched < 100 {
		t.Errorf("clocks b %+v, c %+v; want c via b.pcap, its bound b's plus the b–c link's, from many segments", cl[1], cl[2])
	}
	if got := cl[2].DriftPPM; got < -46 || got > -44 {
		t.Errorf("c drift %v ppm; want -45 ± 1", got)
	}
	// The B–C session: each record's one-way delay within 100 µs.
	checked := 0
	var worst int64
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		if m.Rec == nil || m.Sight == nil || !m.Sight.HasOneWay {
			continue
		}
		k := -1
		for _, s := range m.Sight.Seen {
			if s.Capture == "b.pcap" {
				k = s.Frame
			}
		}
		// b.pcap's frame k is bAll[k-1]: find its packet in ps2's order.
		p := bAll[k-1]
		idx := slices.IndexFunc(ps2, func(q scenario.Packet) bool { return bytes.Equal(q.Data, p.Data) })
		if idx < 0 {
			t.Fatalf("record %d: b.pcap frame %d is no packet of the session", n, k)
		}
		want := tr2.Delivered[idx+1] - tr2.Sent[idx+1]
		worst = max(worst, m.Sight.OneWayNS-want, want-m.Sight.OneWayNS)
		checked++
	}
	t.Logf("b %+v; c %+v; truth b %d, c %d; %d B–C one-way delays, worst off by %d ns", cl[1], cl[2], truthB, truthC, checked, worst)
	if checked < 300 || worst > 100_000 {
		t.Errorf("%d B–C one-way delays checked, worst off by %d ns; want ≥ 300 within 100 µs", checked, worst)
	}

	// A and C alone: no chain.
	_, d2 := decodeAll(t, pipeline.Options{Config: pipeline.Config{RPC: rp()}, Several: capOf("a.pcap", "c.pcap")})
	p2 := d2.Source.(*merge.Source).Plan()
	if c := p2.Clocks[1]; c.OffsetNS != 0 || c.ErrorNS != -1 || c.Matched != 0 {
		t.Errorf("c without b: clock %+v; want offset 0, error_ns -1, matched 0", c)
	}
	if notes := strings.Join(p2.Notes(), "\n"); !strings.Contains(notes, "c.pcap shares no connection with a.pcap") {
		t.Errorf("notes %q; want one saying c.pcap shares no connection with a.pcap", notes)
	}
}
