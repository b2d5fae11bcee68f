package pipeline_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/session"
)

// twoEnds is a session the simulator played, captured at both ends: the
// client's capture on the true clock, the server's on a clock offset by
// theta and drifting by drift, over a path of 3 ms (+0–40 µs) each way
// that loses some client segments (retransmitted 200 ms later: the
// server's capture has only the retransmission) and whose client capture
// lost the server's last data segment.
type twoEnds struct {
	client, server string
	theta          time.Duration
	drift          float64
	t0             int64
	// by original frame (from 1): the sender's true time and the true
	// time the receiver's TCP delivered the segment
	sent, recv   map[int]int64
	lostInClient int   // the original frame the client capture lacks
	serverFirst  int64 // the true time of the server capture's first packet
	orig         string
}

func (te *twoEnds) serverClock(t int64) int64 {
	return t + int64(te.theta) + int64(te.drift*float64(t-te.t0))
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
	type pkt struct {
		data  []byte
		t     int64
		c2s   bool
		tcp   bool
		data0 bool
		port  uint16 // the client's port: the connection
	}
	var pkts []pkt
	for {
		d, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		p := gopacket.NewPacket(d, r.LinkType(), gopacket.NoCopy)
		tc, _ := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		k := pkt{data: append([]byte(nil), d...), t: ci.Timestamp.UnixNano()}
		if tc != nil {
			k.tcp, k.c2s, k.data0 = true, tc.DstPort == 27016, len(tc.Payload) > 0
			k.port = uint16(tc.SrcPort)
			if !k.c2s {
				k.port = uint16(tc.DstPort)
			}
		}
		pkts = append(pkts, k)
	}
	te := &twoEnds{theta: 1750 * time.Millisecond, drift: 40e-6, sent: map[int]int64{}, recv: map[int]int64{}}
	te.t0 = pkts[0].t
	dir := t.TempDir()
	if os.Getenv("TWOENDS_DIR") != "" {
		dir = os.Getenv("TWOENDS_DIR")
	}
	te.client, te.server, te.orig = filepath.Join(dir, "client.pcap"), filepath.Join(dir, "server.pcap"), filepath.Join(dir, "orig.pcap")
	rng := rand.New(rand.NewPCG(1, 2))
	type rec struct {
		t    int64
		data []byte
	}
	var atClient, atServer, orig []rec
	type cd struct {
		port uint16
		di   int
	}
	last := map[cd]int64{} // per connection and direction: the receiver's last delivery
	fifo := map[cd]int64{} // per connection and direction: the path's last arrival
	lastS2C := -1
	for k, p := range pkts {
		if p.data0 && !p.c2s {
			lastS2C = k
		}
	}
	te.lostInClient = lastS2C + 1
	for k, p := range pkts {
		// Stretch the session to some 30 s so that the drift shows.
		tt := te.t0 + (p.t-te.t0)*1000
		orig = append(orig, rec{tt, p.data})
		di := 0
		if !p.c2s {
			di = 1
		}
		// The path keeps each direction's order (FIFO).
		d := int64(3*time.Millisecond) + rng.Int64N(int64(40*time.Microsecond))
		key := cd{p.port, di}
		arrive := max(tt+d, fifo[key]+1)
		fifo[key] = arrive
		if p.c2s && p.data0 && k%37 == 5 {
			// Lost on the path, retransmitted 200 ms later.
			arrive = tt + int64(200*time.Millisecond) + d
			atClient = append(atClient, rec{tt + int64(200*time.Millisecond), p.data})
		}
		deliver := arrive
		if p.data0 {
			deliver = max(arrive, last[key])
			last[key] = deliver
		}
		te.sent[k+1], te.recv[k+1] = tt, deliver
		if st := tt; true {
			if p.c2s {
				st = arrive
			}
			if te.serverFirst == 0 || st < te.serverFirst {
				te.serverFirst = st
			}
		}
		if p.c2s {
			atClient = append(atClient, rec{tt, p.data})
			atServer = append(atServer, rec{te.serverClock(arrive), p.data})
		} else {
			atServer = append(atServer, rec{te.serverClock(tt), p.data})
			if k != lastS2C {
				atClient = append(atClient, rec{arrive, p.data})
			}
		}
	}
	write := func(path string, rs []rec) {
		if path != te.orig {
			// A capture is in its own time order; the original keeps
			// the simulator's order, so that its frames are the indexes.
			slices.SortStableFunc(rs, func(a, b rec) int { return int(a.t - b.t) })
		}
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w := pcapgo.NewWriterNanos(f)
		if err := w.WriteFileHeader(65535, r.LinkType()); err != nil {
			t.Fatal(err)
		}
		for _, x := range rs {
			ci := gopacket.CaptureInfo{Timestamp: time.Unix(0, x.t), CaptureLength: len(x.data), Length: len(x.data)}
			if err := w.WritePacket(ci, x.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(te.client, atClient)
	write(te.server, atServer)
	write(te.orig, orig)
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
	truth := te.serverFirst - te.serverClock(te.serverFirst)
	if diff := c.OffsetNS - truth; diff > 100_000 || diff < -100_000 {
		t.Errorf("server clock offset_ns = %d; want %d ± 100 µs", c.OffsetNS, truth)
	}
	if c.Source != "estimated" || c.Matched < 100 || c.ErrorNS < 0 {
		t.Fatalf("clock = %+v; want an estimate from many matched segments with a bound", c)
	}
	if got := c.DriftPPM; got < 35 || got > 45 {
		t.Errorf("drift = %v ppm; want 40 ± 5", got)
	}
	byDir := map[dissect.Dir][]*session.Message{}
	for n := 1; n <= one.Len(); n++ {
		m := one.Message(n)
		byDir[m.Dir] = append(byDir[m.Dir], m)
	}
	seenDir := map[dissect.Dir]int{}
	checked, missing, late := 0, 0, 0
	for n := 1; n <= ix.Len(); n++ {
		m := ix.Message(n)
		if m.Sight == nil {
			t.Fatalf("message %d: no sight: both captures have its connection", n)
		}
		o := byDir[m.Dir][seenDir[m.Dir]]
		seenDir[m.Dir]++
		k := o.Frame
		if k == te.lostInClient {
			missing++
			if !slices.Equal(m.Sight.MissingIn, []string{"client.pcap"}) || m.Sight.HasOneWay {
				t.Errorf("message %d (the segment the client capture lost): missing_in = %v, one way %v; want [client.pcap], none", n, m.Sight.MissingIn, m.Sight.HasOneWay)
			}
			continue
		}
		if len(m.Sight.MissingIn) != 0 || !m.Sight.HasOneWay {
			t.Errorf("message %d: missing_in = %v, one way %v; want none, one", n, m.Sight.MissingIn, m.Sight.HasOneWay)
			continue
		}
		want := te.recv[k] - te.sent[k]
		if diff := m.Sight.OneWayNS - want; diff > 100_000 || diff < -100_000 {
			t.Errorf("message %d (%v, frame %d): one_way_ns = %d; want %d ± 100 µs", n, m.Dir, k, m.Sight.OneWayNS, want)
		}
		// The server's sight, on the aligned clock, against the truth.
		for _, s := range m.Sight.Seen {
			var truth int64
			switch {
			case s.Host == "server" && m.Dir == dissect.C2S, s.Host == "client" && m.Dir == dissect.S2C:
				truth = te.recv[k]
			default:
				truth = te.sent[k]
			}
			if diff := s.TimeNS - truth; diff > 100_000 || diff < -100_000 {
				t.Errorf("message %d: seen by %s at %d; want %d ± 100 µs (clock %+v)", n, s.Host, s.TimeNS, truth, c)
			}
		}
		checked++
		if m.Sight.OneWayNS > int64(150*time.Millisecond) {
			late++
		}
	}
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
