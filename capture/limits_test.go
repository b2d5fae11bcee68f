package capture

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// TestMaxBufferedTotal: two flows each hold out-of-order data behind a
// missing segment, each under the per-flow cap but together over the
// total cap: the total cap forces a skip and names itself in the note,
// and every byte that was captured is still delivered after the gap.
func TestMaxBufferedTotal(t *testing.T) {
	chunk := strings.Repeat("x", 1000)
	type step struct {
		c conv
		s seg
	}
	flows := []conv{plain, {mustAP("10.0.0.3:50001"), srv4}}
	var segs []step
	for _, c := range flows {
		segs = append(segs, step{c, seg{false, 1000, "S", ""}}, step{c, seg{true, 5000, "SA", ""}})
	}
	for i := range 5 {
		for _, c := range flows {
			// Bytes 1001..1100 of each client stream never come.
			segs = append(segs, step{c, seg{false, 1001 + 100 + uint32(i*1000), "PA", chunk}})
		}
	}
	var pkts []Packet
	for i, s := range segs {
		pkts = append(pkts, Packet{Data: frame(t, frameOpts{link: layers.LinkTypeEthernet}, s.c, s.s), Link: layers.LinkTypeEthernet, Time: t0.Add(time.Duration(i) * time.Millisecond)})
	}
	opt := Options{MaxBufferedPerFlow: 8 * pageBytes, MaxBufferedTotal: 6 * pageBytes}
	src := NewPackets(pkts, opt)
	r := drain(t, src)
	want := fmt.Sprintf("(%d bytes per flow, %d in all)", 8*pageBytes, 6*pageBytes)
	if !slices.ContainsFunc(r.notes, func(n string) bool {
		return strings.Contains(n, "out-of-order buffer cap hit") && strings.Contains(n, want)
	}) {
		t.Errorf("notes = %q; want a buffer cap note naming %s", r.notes, want)
	}
	if st := src.Stats(); st.BufferCapHit < 1 {
		t.Errorf("stats cap hits %d; want at least 1", st.BufferCapHit)
	}
	for _, c := range flows {
		got := r.stream(Flow{c.client, c.server}, false)
		if want := "<gap 100>" + strings.Repeat(chunk, 5); got != want {
			t.Errorf("%v client stream = %.40q… (%d bytes); want %.40q… (%d bytes)", c.client, got, len(got), want, len(want))
		}
	}

	// With the same per-flow cap and the default total, or with the
	// defaults, everything is buffered until the end of input, where the
	// gaps are flushed without a cap note: the total cap made the skip.
	for _, o := range []Options{{MaxBufferedPerFlow: 8 * pageBytes}, {}} {
		r = drain(t, NewPackets(pkts, o))
		if slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, "buffer cap hit") }) {
			t.Errorf("%+v: notes = %q; want no cap hit for 5 KB per flow", o, r.notes)
		}
	}
}

// TestOptionDefaults: zero Options take the documented defaults
// (SECURITY.md "Bounds"; cmd/usmnscope checks the table against them).
func TestOptionDefaults(t *testing.T) {
	got := Options{}.withDefaults()
	want := Options{TransportPort: 27016, QueryPort: 27015, MaxBufferedPerFlow: 1 << 20, MaxBufferedTotal: 64 << 20, MaxFlows: 10000,
		MaxFragments: 16384, MaxFragmentBytes: 4 << 20, MaxFragmentDatagrams: 1024,
		MaxInterfaces: 1024, MaxNotes: 1000, MaxDecompressed: 4 << 30}
	if got != want {
		t.Errorf("Options{}.withDefaults() = %+v; want %+v", got, want)
	}
	set := Options{TransportPort: 1, QueryPort: 2, MaxBufferedPerFlow: 3, MaxBufferedTotal: 4, MaxFlows: 5,
		MaxFragments: 6, MaxFragmentBytes: 7, MaxFragmentDatagrams: 8, MaxInterfaces: 9, MaxNotes: 10, MaxDecompressed: 11}
	if got := set.withDefaults(); got != set {
		t.Errorf("withDefaults changed set options: %+v; want %+v", got, set)
	}
}

// TestUDPPeerBound: SteamNetworkingSockets peers and A2S sources are each
// bounded by MaxFlows; the peers before the bound are counted and listed,
// the datagrams from the others counted in one note each.
func TestUDPPeerBound(t *testing.T) {
	server := mustAP("10.0.0.1:27016")
	var pkts []Packet
	for i := range 10 { // ten peers, two datagrams each
		p := mustAP(fmt.Sprintf("10.0.0.2:%d", 5000+i))
		for range 2 {
			pkts = append(pkts, Packet{Data: udpFrame(t, p, server, []byte{0x80, 1}), Link: layers.LinkTypeEthernet, Time: t0})
		}
	}
	for i := range 5 { // five servers answer A2S queries
		q := mustAP(fmt.Sprintf("10.0.1.%d:27015", i+1))
		pkts = append(pkts, Packet{Data: udpFrame(t, q, mustAP("10.0.0.2:4000"), a2sReply(fmt.Sprintf("S%d", i), "")), Link: layers.LinkTypeEthernet, Time: t0})
	}
	src := NewPackets(pkts, Options{MaxFlows: 3})
	r := drain(t, src)
	for _, want := range []string{
		"SteamNetworkingSockets UDP with 10.0.0.2:5000: 2 datagrams",
		"SteamNetworkingSockets UDP with 10.0.0.2:5002: 2 datagrams",
		"warn: SteamNetworkingSockets UDP from more than 3 peers: 14 datagrams from the later ones were counted, not per peer",
		`A2S_INFO from 10.0.1.3:27015: name "S2"`,
		"warn: A2S_INFO replies from more than 3 sources: 2 replies from the later ones not shown",
	} {
		if !slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("notes = %q; want one containing %q", r.notes, want)
		}
	}
	if slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, "10.0.0.2:5003") || strings.Contains(n, "10.0.1.4") }) {
		t.Errorf("notes = %q; want nothing of the peers past the bound", r.notes)
	}
	if st := src.Stats(); st.UDPGame != 20 || st.UDPQuery != 5 {
		t.Errorf("stats: %d game, %d query datagrams; want every one counted (20, 5)", st.UDPGame, st.UDPQuery)
	}
	if n := len(src.(*source).e.udp.sns); n != 3 {
		t.Errorf("%d peers held; want 3", n)
	}
}

// TestNoteBound: notes that can repeat (here A2S_INFO replies whose name
// alternates, and unsupported link types) stop at MaxNotes per kind, and
// one note at the end counts the rest.
func TestNoteBound(t *testing.T) {
	query, client := mustAP("10.0.0.1:27015"), mustAP("10.0.0.2:4000")
	var pkts []Packet
	for i := range 10 {
		name := []string{"Even", "Odd"}[i%2]
		pkts = append(pkts, Packet{Data: udpFrame(t, query, client, a2sReply(name, "")), Link: layers.LinkTypeEthernet, Time: t0})
	}
	for i := range 5 { // five unsupported link types, two frames each
		for range 2 {
			pkts = append(pkts, Packet{Data: []byte{1, 2, 3}, Link: layers.LinkType(147 + i), Time: t0})
		}
	}
	src := NewPackets(pkts, Options{MaxNotes: 4})
	r := drain(t, src)
	a2s, link := 0, 0
	for _, n := range r.notes {
		switch {
		case strings.HasPrefix(n, "note: A2S_INFO from"):
			a2s++
		case strings.HasPrefix(n, "warn: unsupported link type"):
			link++
		}
	}
	if a2s != 4 || link != 4 {
		t.Errorf("%d A2S notes, %d link type notes; want 4 and 4 (notes %q)", a2s, link, r.notes)
	}
	for _, want := range []string{
		"warn: 6 more A2S_INFO notes not shown (after the first 4)",
		"warn: 2 frames of further unsupported link types skipped without a note (after 4 notes)",
	} {
		if !slices.Contains(r.notes, want) {
			t.Errorf("notes = %q; want %q", r.notes, want)
		}
	}
	if n := len(src.(*source).e.notes); n > 4 {
		t.Errorf("%d once-keys held; want at most the 4 link types noted", n)
	}
}

// TestInterfaceBound: a pcapng whose every packet comes with a new
// Interface Description Block keeps MaxInterfaces of them per section; the
// frames on those are decoded, the rest skipped, and one note at the end
// counts both.
func TestInterfaceBound(t *testing.T) {
	w := &ngFile{}
	w.shb(1)
	for i, s := range handshake() {
		w.idb(layers.LinkTypeEthernet, 0)
		w.epb(uint32(i), uint64(t0.UnixMicro())+uint64(i), frame(t, frameOpts{link: layers.LinkTypeEthernet}, plain, s))
	}
	src, err := NewReader(bytes.NewReader(w.b), "idbs", Options{MaxInterfaces: 4})
	if err != nil {
		t.Fatal(err)
	}
	r := drain(t, src)
	// The first four frames: SYN, SYN+ACK, ACK and the first message.
	if got := r.stream(Flow{cli4, srv4}, false); got != "\x00\x03abc" {
		t.Errorf("client stream = %q; want the first message alone", got)
	}
	want := "warn: idbs: 6 pcapng interface description blocks past the first 4 of their section were ignored, and the 6 frames on those interfaces skipped"
	if !slices.Contains(r.notes, want) {
		t.Errorf("notes = %q; want %q", r.notes, want)
	}
	if len(r.notes) != 2 {
		t.Errorf("notes = %q; want the count and one note on skipped frames", r.notes)
	}
	if rd := src.(*source).rd; len(rd.ifaces) != 4 {
		t.Errorf("%d interfaces held; want 4", len(rd.ifaces))
	}
}

// TestDecompressedBound: gzip input is read up to MaxDecompressed bytes
// of what it expands to, which Stats counts; a note says where it
// stopped, and a stream that ends exactly at the bound ends cleanly.
func TestDecompressedBound(t *testing.T) {
	file := writePcap(t, false, layers.LinkTypeEthernet, recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, handshake()...))
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(file)
	zw.Close()
	firstData := 24 + 4*(16+60) // header, SYN, SYN+ACK, ACK, "abc"
	tests := []struct {
		max    int64
		client string
		note   bool
	}{
		{int64(firstData), "\x00\x03abc", true},
		{int64(firstData + 10), "\x00\x03abc", true}, // cut inside the next record
		{int64(len(file)), wantC, false},
		{0, wantC, false}, // the default
	}
	for _, tt := range tests {
		src, err := NewReader(bytes.NewReader(z.Bytes()), "z", Options{MaxDecompressed: tt.max})
		if err != nil {
			t.Fatal(err)
		}
		r := drain(t, src)
		if got := r.stream(Flow{cli4, srv4}, false); got != tt.client {
			t.Errorf("bound %d: client stream = %q; want %q", tt.max, got, tt.client)
		}
		want := fmt.Sprintf("warn: z: gzip input expands past %d bytes, the bound on decompressed input: read up to it, the rest is skipped", tt.max)
		if got := slices.Contains(r.notes, want); got != tt.note {
			t.Errorf("bound %d: notes = %q; want the bound's note %v", tt.max, r.notes, tt.note)
		}
		st := src.Stats()
		if wantN := min(tt.max, int64(len(file))); tt.max > 0 && st.Decompressed != wantN || st.Read != int64(z.Len()) {
			t.Errorf("bound %d: stats decompressed %d, read %d; want %d and the %d compressed bytes", tt.max, st.Decompressed, st.Read, wantN, z.Len())
		}
	}
}

// TestTimestampClamp: pcapng timestamps past what int64 nanoseconds hold
// (2^40 s in seconds resolution, 2^64-1000 ns, an if_tsoffset of -2^63 s)
// are clamped to the nearer end with one note, not wrapped; times in range
// are kept.
func TestTimestampClamp(t *testing.T) {
	w := &ngFile{}
	w.shb(1)
	w.idb(layers.LinkTypeRaw, 0, w.opt(9, []byte{0}))                          // seconds
	w.idb(layers.LinkTypeRaw, 0, w.opt(9, []byte{9}))                          // nanoseconds
	w.idb(layers.LinkTypeRaw, 0, w.opt(9, []byte{0}), w.opt(14, w.u64(1<<63))) // seconds, offset -2^63 s
	pkt := func(s seg) []byte { return frame(t, frameOpts{link: layers.LinkTypeRaw}, plain, s) }
	w.epb(1, uint64(t0.UnixNano()), pkt(seg{false, 1000, "S", ""}))
	w.epb(0, 1<<40, pkt(seg{false, 1001, "PA", "\x00\x01a"}))
	w.epb(1, ^uint64(0)-999, pkt(seg{false, 1004, "PA", "\x00\x01b"}))
	w.epb(2, 5, pkt(seg{false, 1007, "PA", "\x00\x01c"}))
	w.epb(1, uint64(t0.UnixNano())+1, pkt(seg{false, 1010, "PA", "\x00\x01d"}))
	src := mustReader(t, w.b)
	var times []time.Time
	var notes []string
	for {
		ev, err := src.Next()
		if err != nil {
			break
		}
		if ev.Kind == EventNote {
			notes = append(notes, ev.Text)
		} else {
			times = append(times, ev.Time)
		}
	}
	want := []time.Time{t0, maxTime, maxTime, minTime, t0.Add(1)} // open, a, b, c, d
	if fmt.Sprint(times) != fmt.Sprint(want) {
		t.Errorf("event times = %v; want %v", times, want)
	}
	want1 := "frame 2: timestamp 1099511627776 s from 1970 is outside what 64-bit nanoseconds hold (1677-09-21 to 2262-04-11): it is clamped to the nearer end, as are later ones"
	if len(notes) != 1 || notes[0] != want1 {
		t.Errorf("notes = %q; want one: %q", notes, want1)
	}
}
