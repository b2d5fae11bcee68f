package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/session"
)

// twoEnds is the simulator's load session (scenario.BothEnds) captured at
// both ends: the client's capture on the true clock, the server's on a
// clock 1.75 s ahead running 40 ppm fast, over a path of 3 ms (+0–40 µs)
// each way that loses every 17th client data segment (retransmitted
// 200 ms later: the server's capture has only the retransmission), the
// client capture missing the server's last data segment.
type twoEnds struct {
	client, server, orig string
	truth                *scenario.BothEndsTruth
}

func makeTwoEnds(t *testing.T) *twoEnds {
	t.Helper()
	var buf bytes.Buffer
	if _, err := (scenario.Scale{Messages: 600, Conns: 2, Seed: 7}).Generate(&buf, scenario.PCAP); err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var ps []scenario.Packet
	for {
		d, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		ps = append(ps, scenario.Packet{Time: ci.Timestamp, Data: append([]byte(nil), d...)})
	}
	be := scenario.BothEnds{Offset: 1750 * time.Millisecond, DriftPPM: 40, Delay: 3 * time.Millisecond, Jitter: 40 * time.Microsecond,
		LossEvery: 17, Retransmit: 200 * time.Millisecond, DropLastServerSegment: true, Stretch: 1000, Seed: 1}
	client, server, truth := be.Split(ps, r.LinkType(), 27016)
	// The original, stretched as Split stretches it, in the simulator's
	// order: its frames are the truth's indexes.
	orig := make([]scenario.Packet, len(ps))
	for k, p := range ps {
		orig[k] = scenario.Packet{Time: time.Unix(0, truth.Sent[k+1]).UTC(), Data: p.Data}
	}
	dir := t.TempDir()
	if d := os.Getenv("TWOENDS_DIR"); d != "" {
		dir = d
	}
	te := &twoEnds{client: filepath.Join(dir, "client.pcap"), server: filepath.Join(dir, "server.pcap"), orig: filepath.Join(dir, "orig.pcap"), truth: truth}
	for path, ps := range map[string][]scenario.Packet{te.client: client, te.server: server, te.orig: orig} {
		var b bytes.Buffer
		if err := scenario.WritePackets(&b, scenario.PCAP, "", ps); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return te
}

func decodeAll(t *testing.T, o pipeline.Options) (*session.Index, *pipeline.Decode) {
	t.Helper()
	o.InMemory = true
	d, err := pipeline.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Source.Close()
	if err := d.Feed(nil); err != nil {
		t.Fatal(err)
	}
	return d.Index, d
}

// TestTwoEnds: the session captured at both ends is one: each message
// once, the server's clock offset estimated within 100 µs of the truth,
// every one-way delay within 100 µs of the truth, the segment the client
// capture lost attributed to it; with a time shift the given offset wins.
func TestTwoEnds(t *testing.T) {
	te := makeTwoEnds(t)
	one, _ := decodeAll(t, pipeline.Options{Path: te.orig})
	caps := []pipeline.Capture{{Path: te.client, Host: "client", Capture: "client.pcap"}, {Path: te.server, Host: "server", Capture: "server.pcap"}}
	ix, d := decodeAll(t, pipeline.Options{Several: caps})
	if got, want := ix.Len(), one.Len(); got != want || want < 500 {
		t.Fatalf("merged messages = %d; want %d, each once (the session alone)", got, want)
	}
	plan := d.Source.(*merge.Source).Plan()
	c := plan.Clocks[1]
	// The truth: what puts the server capture's first time on the true clock.
	truth := te.truth.ServerFirst - te.truth.ServerClock(te.truth.ServerFirst)
	if diff := c.OffsetNS - truth; diff > 100_000 || diff < -100_000 {
		t.Errorf("server clock offset_ns = %d; want %d ± 100 µs", c.OffsetNS, truth)
	}
	if c.Source != "estimated" || c.Matched < 100 || c.ErrorNS < 0 {
		t.Fatalf("clock = %+v; want an estimate from many matched segments with a bound", c)
	}
	if got := c.DriftPPM; got < 35 || got > 45 {
		t.Errorf("drift = %v ppm; want 40 ± 5", got)
	}
	tl := te.checkSights(t, ix, one, "segment", 150*time.Millisecond, func(n int, m *session.Message, k int) {
		// The server's sight, on the aligned clock, against the truth.
		for _, s := range m.Sight.Seen {
			var truth int64
			switch {
			case s.Host == "server" && m.Dir == dissect.C2S, s.Host == "client" && m.Dir == dissect.S2C:
				truth = te.truth.Delivered[k]
			default:
				truth = te.truth.Sent[k]
			}
			if diff := s.TimeNS - truth; diff > 100_000 || diff < -100_000 {
				t.Errorf("message %d: seen by %s at %d; want %d ± 100 µs (clock %+v)", n, s.Host, s.TimeNS, truth, c)
			}
		}
	})
	checked, worst, late, missing := tl.checked, tl.worst, tl.late, tl.missing
	t.Logf("offset_ns %d (truth %d), drift %.3f ppm (truth 40), error_ns %d, matched %d; %d one-way delays, worst off by %d ns; %d late; %d missing in the client capture",
		c.OffsetNS, truth, c.DriftPPM, c.ErrorNS, c.Matched, checked, worst, late, missing)
	if missing == 0 || checked < 500 || late == 0 {
		t.Errorf("checked %d one-way delays (%d late: a retransmission), %d lost messages; want ≥ 500 (≥ 1) and ≥ 1", checked, late, missing)
	}

	// A given offset wins.
	caps[1].Shift, caps[1].HasShift = -1500*time.Millisecond, true
	_, d2 := decodeAll(t, pipeline.Options{Several: caps})
	c2 := d2.Source.(*merge.Source).Plan().Clocks[1]
	if c2.Source != "time-shift" || c2.OffsetNS != int64(-1500*time.Millisecond) || c2.DriftPPM != 0 {
		t.Errorf("with --time-shift: clock = %+v; want source time-shift, offset -1.5 s, no drift", c2)
	}
}

// TestSeveralConflict: two captures that claim the same connection but
// disagree on its bytes are not merged: the first capture's copy is
// decoded, once, and an error finding on the connection shows both
// copies' bytes side by side.
func TestSeveralConflict(t *testing.T) {
	orig, err := os.ReadFile("../../fixtures/captures/usmn-basic.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	k := bytes.Index(orig, []byte("Hello!"))
	if k < 0 {
		t.Fatal("usmn-basic.pcapng has no Hello! greeting")
	}
	forged := bytes.Clone(orig)
	forged[k+4] = 'p' // Hellp!
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.pcapng"), filepath.Join(dir, "b.pcapng")
	if err := os.WriteFile(a, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	one, _ := decodeAll(t, pipeline.Options{Path: a})
	ix, _ := decodeAll(t, pipeline.Options{Several: []pipeline.Capture{{Path: a, Host: "a", Capture: "a.pcapng"}, {Path: b, Host: "b", Capture: "b.pcapng"}}})
	if got, want := ix.Len(), one.Len(); got != want {
		t.Errorf("messages = %d; want %d (the first capture's copy, once)", got, want)
	}
	var found string
	for _, ci := range ix.Connections() {
		for _, f := range ci.Findings {
			if strings.Contains(f.Text, "disagree") || strings.Contains(f.Text, "differs") {
				found += f.Text + "\n"
				if f.Severity != dissect.Error {
					t.Errorf("conflict finding severity = %v; want error", f.Severity)
				}
			}
		}
	}
	for _, want := range []string{"a.pcapng and b.pcapng", "c2s segment at stream position 0", "not merged", "byte 969 ", "a.pcapng: 48 65 6c 6c 6f 21", "b.pcapng: 48 65 6c 6c 70 21"} {
		if !strings.Contains(found, want) {
			t.Errorf("conflict finding %q lacks %q", found, want)
		}
	}
	for n := 1; n <= ix.Len(); n++ {
		if m := ix.Message(n); m.Sight != nil {
			t.Errorf("message %d has a sight: the copies were merged", n)
		}
	}
}

// TestSeveralUnrelated: captures of different connections are interleaved
// by time and numbered once; each record names its capture.
func TestSeveralUnrelated(t *testing.T) {
	a, b := "../../fixtures/captures/pings.pcapng", "../../fixtures/captures/two-conns.pcapng"
	ia, _ := decodeAll(t, pipeline.Options{Path: a})
	ib, _ := decodeAll(t, pipeline.Options{Path: b})
	ix, _ := decodeAll(t, pipeline.Options{Several: []pipeline.Capture{{Path: a, Host: "h1", Capture: "pings.pcapng"}, {Path: b, Host: "h2", Capture: "two-conns.pcapng"}}})
	if got, want := ix.Len(), ia.Len()+ib.Len(); got != want {
		t.Fatalf("messages = %d; want %d + %d", got, ia.Len(), ib.Len())
	}
	var last time.Time
	per := map[string]int{}
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		if m.Time.Before(last) {
			t.Errorf("message %d at %v, before message %d at %v", n, m.Time, n-1, last)
		}
		last = m.Time
		js := string(m.AppendJSON(nil))
		switch {
		case strings.Contains(js, `"host":"h1","capture":"pings.pcapng"`):
			per["h1"]++
		case strings.Contains(js, `"host":"h2","capture":"two-conns.pcapng"`):
			per["h2"]++
		default:
			t.Errorf("message %d names no capture: %.200s", n, js)
		}
	}
	if per["h1"] != ia.Len() || per["h2"] != ib.Len() {
		t.Errorf("records per host = %v; want h1 %d, h2 %d", per, ia.Len(), ib.Len())
	}
	for _, ci := range ix.Connections() {
		if ci.Host == "" || ci.Capture == "" {
			t.Errorf("connection %v names no host or capture", ci.Conn)
		}
	}
}

// sightTally is what checkSights counted.
type sightTally struct {
	checked, late, missing int
	worst                  int64 // the worst one-way delay's distance from the truth
}

// checkSights walks the merged index ix against one, the session decoded
// alone, record by record in each direction's order: each merged record
// has a sight; the one the client capture lost (lost names what it was
// carried in) is missing in client.pcap with no one-way delay, every
// other has one within 100 µs of the truth. more checks a record further
// (k: its frame in the session alone); a one-way delay over late counts
// as late (a retransmission).
func (te twoEnds) checkSights(t *testing.T, ix, one *session.Index, lost string, late time.Duration, more func(n int, m *session.Message, k int)) sightTally {
	t.Helper()
	byDir := map[dissect.Dir][]*session.Message{}
	for n := 1; n <= one.Len(); n++ {
		m := one.Message(n)
		byDir[m.Dir] = append(byDir[m.Dir], m)
	}
	seenDir := map[dissect.Dir]int{}
	var tl sightTally
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		o := byDir[m.Dir][seenDir[m.Dir]]
		seenDir[m.Dir]++
		if (m.Rec == nil) != (o.Rec == nil) || m.Rec != nil && (m.Rec.Meta().Name != o.Rec.Meta().Name || m.Rec.Meta().Len != o.Rec.Meta().Len) {
			t.Fatalf("record %d is not the session's next %v record (the same order per direction)", n, m.Dir)
		}
		if m.Sight == nil {
			t.Fatalf("record %d: no sight: both captures have its connection", n)
		}
		k := o.Frame
		if k == te.truth.LostInClient {
			tl.missing++
			if !slices.Equal(m.Sight.MissingIn, []string{"client.pcap"}) || m.Sight.HasOneWay {
				t.Errorf("record %d (the %s the client capture lost): missing_in = %v, one way %v; want [client.pcap], none", n, lost, m.Sight.MissingIn, m.Sight.HasOneWay)
			}
			continue
		}
		if len(m.Sight.MissingIn) != 0 || !m.Sight.HasOneWay {
			t.Errorf("record %d: missing_in = %v, one way %v; want none, one", n, m.Sight.MissingIn, m.Sight.HasOneWay)
			continue
		}
		want := te.truth.Delivered[k] - te.truth.Sent[k]
		tl.worst = max(tl.worst, m.Sight.OneWayNS-want, want-m.Sight.OneWayNS)
		if diff := m.Sight.OneWayNS - want; diff > 100_000 || diff < -100_000 {
			t.Errorf("record %d (%v, frame %d): one_way_ns = %d; want %d ± 100 µs", n, m.Dir, k, m.Sight.OneWayNS, want)
		}
		if more != nil {
			more(n, m, k)
		}
		tl.checked++
		if m.Sight.OneWayNS > int64(late) {
			tl.late++
		}
	}
	return tl
}
