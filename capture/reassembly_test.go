package capture

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// handshake is a complete flow: SYN, SYN+ACK, ACK, two SystemSockets-framed
// messages each way (2-byte big-endian length + bytes, wire.md §2), FIN both ways.
func handshake() []seg {
	return []seg{
		{false, 1000, "S", ""},
		{true, 5000, "SA", ""},
		{false, 1001, "A", ""},
		{false, 1001, "PA", "\x00\x03abc"},
		{true, 5001, "PA", "\x00\x02hi"},
		{false, 1006, "PA", "\x00\x01d"},
		{true, 5005, "PA", "\x00\x04wxyz"},
		{false, 1009, "FA", ""},
		{true, 5011, "FA", ""},
		{false, 1010, "A", ""},
	}
}

const (
	wantC = "\x00\x03abc\x00\x01d"
	wantS = "\x00\x02hi\x00\x04wxyz"
)

func TestLinkTypesAndFormats(t *testing.T) {
	links := []struct {
		name string
		o    frameOpts
		c    conv
	}{
		{"ethernet", frameOpts{link: layers.LinkTypeEthernet}, plain},
		{"ethernet-ipv6", frameOpts{link: layers.LinkTypeEthernet}, conv{cli6, srv6}},
		{"ethernet-vlan", frameOpts{link: layers.LinkTypeEthernet, vlan: 42}, plain},
		{"ethernet-vlan-ipv6", frameOpts{link: layers.LinkTypeEthernet, vlan: 7}, conv{cli6, srv6}},
		{"sll", frameOpts{link: layers.LinkTypeLinuxSLL}, plain},
		{"sll-ipv6", frameOpts{link: layers.LinkTypeLinuxSLL}, conv{cli6, srv6}},
		{"sll2", frameOpts{link: layers.LinkTypeLinuxSLL2}, plain},
		{"sll2-ipv6", frameOpts{link: layers.LinkTypeLinuxSLL2}, conv{cli6, srv6}},
		{"raw-ipv4", frameOpts{link: layers.LinkTypeRaw}, plain},
		{"raw-ipv6", frameOpts{link: layers.LinkTypeRaw}, conv{cli6, srv6}},
		{"ipv4", frameOpts{link: layers.LinkTypeIPv4}, plain},
		{"ipv6", frameOpts{link: layers.LinkTypeIPv6}, conv{cli6, srv6}},
		{"null", frameOpts{link: layers.LinkTypeNull}, plain},
		{"null-ipv6", frameOpts{link: layers.LinkTypeNull}, conv{cli6, srv6}},
		{"loop", frameOpts{link: layers.LinkTypeLoop}, plain},
	}
	formats := []struct {
		name  string
		write func(t *testing.T, link layers.LinkType, rs []rec) []byte
	}{
		{"pcap-le-micro", func(t *testing.T, l layers.LinkType, rs []rec) []byte { return writePcap(t, false, l, rs) }},
		{"pcap-le-nano", func(t *testing.T, l layers.LinkType, rs []rec) []byte { return writePcap(t, true, l, rs) }},
		{"pcap-be-micro", func(t *testing.T, l layers.LinkType, rs []rec) []byte { return swapPcap(writePcap(t, false, l, rs)) }},
		{"pcap-be-nano", func(t *testing.T, l layers.LinkType, rs []rec) []byte { return swapPcap(writePcap(t, true, l, rs)) }},
		{"pcapng", func(t *testing.T, _ layers.LinkType, rs []rec) []byte { return writePcapng(t, rs) }},
	}
	for _, l := range links {
		for _, f := range formats {
			t.Run(l.name+"/"+f.name, func(t *testing.T) {
				rs := recs(t, l.o, l.c, handshake()...)
				src, err := NewReader(bytes.NewReader(f.write(t, l.o.link, rs)), "test", Options{})
				if err != nil {
					t.Fatalf("NewReader: %v", err)
				}
				r := drain(t, src)
				want := Flow{Client: l.c.client, Server: l.c.server}
				if len(r.opens) != 1 || r.opens[0].Flow != want || r.opens[0].Rule != RuleSYN {
					t.Fatalf("opens = %+v; want one %v by rule syn (notes %q)", r.opens, want, r.notes)
				}
				if got := r.stream(want, false); got != wantC {
					t.Errorf("client stream = %q; want %q", got, wantC)
				}
				if got := r.stream(want, true); got != wantS {
					t.Errorf("server stream = %q; want %q", got, wantS)
				}
				if len(r.closes) != 1 {
					t.Errorf("closes = %d; want 1", len(r.closes))
				}
				if !r.opens[0].Time.Equal(t0) || r.opens[0].Frame != 1 {
					t.Errorf("open at %v frame %d; want %v frame 1", r.opens[0].Time, r.opens[0].Frame, t0)
				}
				if st := src.Stats(); st.Packets != int64(len(rs)) || st.Flows != 1 {
					t.Errorf("stats = %+v; want %d packets, 1 flow", st, len(rs))
				}
			})
		}
	}
}

// TestPcapngMixedInterfaces puts three link types, one per interface, in
// one pcapng file.
func TestPcapngMixedInterfaces(t *testing.T) {
	hs := handshake()
	var rs []rec
	// One flow's frames alternate over interfaces of different link types,
	// as `tcpdump -i any` plus a second interface would write them.
	kinds := []frameOpts{{link: layers.LinkTypeEthernet}, {link: layers.LinkTypeLinuxSLL2}, {link: layers.LinkTypeRaw}}
	for i, s := range hs {
		o := kinds[i%len(kinds)]
		rs = append(rs, rec{data: frame(t, o, plain, s), link: o.link, ts: t0})
	}
	src, err := NewReader(bytes.NewReader(writePcapng(t, rs)), "mixed", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := drain(t, src)
	f := Flow{cli4, srv4}
	if got := r.stream(f, false); got != wantC {
		t.Errorf("client stream = %q; want %q (notes %q)", got, wantC, r.notes)
	}
	if got := r.stream(f, true); got != wantS {
		t.Errorf("server stream = %q; want %q", got, wantS)
	}
}

func TestReassembly(t *testing.T) {
	hs := handshake()
	tests := []struct {
		name         string
		segs         []seg
		rule         ServerRule
		c, s         string
		closes       int
		noteContains string
	}{
		{"in order", hs, RuleSYN, wantC, wantS, 1, ""},
		{"reordered", []seg{hs[0], hs[1], hs[2], hs[5], hs[3], hs[6], hs[4], hs[7], hs[8], hs[9]}, RuleSYN, wantC, wantS, 1, ""},
		{"duplicated", []seg{hs[0], hs[1], hs[2], hs[3], hs[3], hs[4], hs[5], hs[4], hs[6], hs[7], hs[8]}, RuleSYN, wantC, wantS, 1, ""},
		{"overlap with delivered", []seg{hs[0], hs[1], hs[2], hs[3], {false, 1004, "PA", "bc\x00\x01d"}, hs[4], hs[6], hs[7], hs[8]}, RuleSYN, wantC, wantS, 1, ""},
		{"overlap while reordered", []seg{hs[0], hs[1], hs[2], {false, 1006, "PA", "\x00\x01d"}, {false, 1004, "PA", "bc\x00"}, {false, 1001, "PA", "\x00\x03a"}, hs[4], hs[6], hs[7], hs[8]}, RuleSYN, wantC, wantS, 1, ""},
		{"missing segment", []seg{hs[0], hs[1], hs[2], hs[5], hs[4], hs[6], hs[7], hs[8]}, RuleSYN, "<gap 5>\x00\x01d", wantS, 1, ""},
		{"missing at end", []seg{hs[0], hs[1], hs[2], hs[3], hs[4], {false, 1020, "PA", "zz"}}, RuleSYN, "\x00\x03abc<gap 14>zz", "\x00\x02hi", 0, ""},
		{"no handshake", hs[3:7], RulePort, wantC, wantS, 0, ""},
		{"no handshake, server first", []seg{hs[4], hs[3], hs[6], hs[5]}, RulePort, wantC, wantS, 0, ""},
		{"no handshake, reordered", []seg{hs[3], hs[6], hs[4], hs[5]}, RulePort, wantC, "\x00\x04wxyz", 0, ""},
		{"rst", []seg{hs[0], hs[1], hs[2], hs[3], {true, 5001, "R", ""}, hs[4]}, RuleSYN, "\x00\x03abc", "", 1, ""},
		{"rst on slow path", []seg{hs[0], hs[1], hs[2], hs[5], hs[3], {true, 5001, "R", ""}}, RuleSYN, wantC, "", 1, ""},
		{"syn+ack first", hs[1:], RuleSYN, wantC, wantS, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pkts []Packet
			for _, r := range recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, tt.segs...) {
				pkts = append(pkts, Packet{Data: r.data, Link: r.link, Time: r.ts})
			}
			r := drain(t, NewPackets(pkts, Options{}))
			f := Flow{cli4, srv4}
			if len(r.opens) != 1 || r.opens[0].Flow != f || r.opens[0].Rule != tt.rule {
				t.Fatalf("opens = %+v; want %v by %v", r.opens, f, tt.rule)
			}
			if got := r.stream(f, false); got != tt.c {
				t.Errorf("client stream = %q; want %q (log %q)", got, tt.c, r.log)
			}
			if got := r.stream(f, true); got != tt.s {
				t.Errorf("server stream = %q; want %q (log %q)", got, tt.s, r.log)
			}
			if len(r.closes) != tt.closes {
				t.Errorf("closes = %d; want %d (log %q)", len(r.closes), tt.closes, r.log)
			}
		})
	}
}

func TestServerRule(t *testing.T) {
	tests := []struct {
		name     string
		src, dst string
		flags    string
		opt      Options
		client   string
		rule     ServerRule
	}{
		{"syn", "10.0.0.9:27016", "10.0.0.1:40000", "S", Options{}, "10.0.0.9:27016", RuleSYN},
		{"syn+ack", "10.0.0.1:40000", "10.0.0.9:27016", "SA", Options{}, "10.0.0.9:27016", RuleSYN},
		{"port to server", "10.0.0.2:50000", "10.0.0.1:27016", "PA", Options{}, "10.0.0.2:50000", RulePort},
		{"port from server", "10.0.0.1:27016", "10.0.0.2:50000", "PA", Options{}, "10.0.0.2:50000", RulePort},
		{"custom port", "10.0.0.1:30000", "10.0.0.2:80", "PA", Options{TransportPort: 30000}, "10.0.0.2:80", RulePort},
		{"lower port", "10.0.0.2:50000", "10.0.0.1:8080", "PA", Options{}, "10.0.0.2:50000", RuleLowerPort},
		{"lower port from server", "10.0.0.1:8080", "10.0.0.2:50000", "PA", Options{}, "10.0.0.2:50000", RuleLowerPort},
		{"both on port", "10.0.0.1:27016", "10.0.0.2:27016", "PA", Options{}, "10.0.0.2:27016", RuleLowerPort},
	}
	for _, tt := range tests {
		src, dst := mustAP(tt.src), mustAP(tt.dst)
		pkt := Packet{Data: frame(t, frameOpts{link: layers.LinkTypeEthernet}, conv{src, dst}, seg{false, 1, tt.flags, "x"}), Link: layers.LinkTypeEthernet, Time: t0}
		r := drain(t, NewPackets([]Packet{pkt}, tt.opt))
		if len(r.opens) != 1 {
			t.Fatalf("%s: %d opens; want 1", tt.name, len(r.opens))
		}
		if got := r.opens[0]; got.Flow.Client.String() != tt.client || got.Rule != tt.rule {
			t.Errorf("%s: server rule(%s → %s %s) = client %v by %v; want client %s by %v", tt.name, tt.src, tt.dst, tt.flags, got.Flow.Client, got.Rule, tt.client, tt.rule)
		}
	}
}

// TestInterleaved runs two flows whose segments alternate, one of them
// reordered, and a third on IPv6.
func TestInterleaved(t *testing.T) {
	c2 := conv{mustAP("10.0.0.3:50002"), srv4}
	c3 := conv{cli6, srv6}
	hs := handshake()
	a := recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, hs...)
	b := recs(t, frameOpts{link: layers.LinkTypeEthernet}, c2, hs[0], hs[1], hs[2], hs[5], hs[3], hs[6], hs[4], hs[7], hs[8])
	c := recs(t, frameOpts{link: layers.LinkTypeEthernet}, c3, hs[3:7]...)
	var pkts []Packet
	for i := 0; i < len(a) || i < len(b) || i < len(c); i++ {
		for _, rs := range [][]rec{a, b, c} {
			if i < len(rs) {
				pkts = append(pkts, Packet{Data: rs[i].data, Link: rs[i].link, Time: rs[i].ts})
			}
		}
	}
	r := drain(t, NewPackets(pkts, Options{}))
	for _, cv := range []conv{plain, c2, c3} {
		f := Flow{cv.client, cv.server}
		if got := r.stream(f, false); got != wantC {
			t.Errorf("%v client stream = %q; want %q", f, got, wantC)
		}
		if got := r.stream(f, true); got != wantS {
			t.Errorf("%v server stream = %q; want %q", f, got, wantS)
		}
	}
	if len(r.opens) != 3 || len(r.closes) != 2 {
		t.Errorf("opens %d, closes %d; want 3, 2", len(r.opens), len(r.closes))
	}
}

// TestBufferCap holds more out-of-order data than the per-flow cap behind
// a missing segment: the cap forces a skip and says so.
func TestBufferCap(t *testing.T) {
	segs := []seg{{false, 1000, "S", ""}, {true, 5000, "SA", ""}}
	chunk := strings.Repeat("x", 1000)
	for i := range 20 {
		segs = append(segs, seg{false, 1001 + 100 + uint32(i*1000), "PA", chunk}) // bytes 1001..1100 never come
	}
	var pkts []Packet
	for _, r := range recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, segs...) {
		pkts = append(pkts, Packet{Data: r.data, Link: r.link, Time: r.ts})
	}
	src := NewPackets(pkts, Options{MaxBufferedPerFlow: 8 * 1900})
	r := drain(t, src)
	got := r.stream(Flow{cli4, srv4}, false)
	want := "<gap 100>" + strings.Repeat(chunk, 20)
	if got != want {
		t.Errorf("client stream = %.40q… (%d bytes); want %.40q… (%d bytes)", got, len(got), want, len(want))
	}
	if !slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, "out-of-order buffer cap hit") }) {
		t.Errorf("notes = %q; want an out-of-order buffer cap note", r.notes)
	}
	if st := src.Stats(); st.BufferCapHit != 1 || st.Gaps != 1 || st.LostBytes != 100 {
		t.Errorf("stats cap hits %d, gaps %d, lost %d; want 1, 1, 100", st.BufferCapHit, st.Gaps, st.LostBytes)
	}
}

// TestTupleReuse opens a second connection on the 4-tuple of a closed one:
// the last ACK of the first does not open a flow, the SYN of the second does.
func TestTupleReuse(t *testing.T) {
	hs := handshake()
	second := []seg{{false, 9000, "S", ""}, {true, 7000, "SA", ""}, {false, 9001, "PA", "\x00\x01z"}, {true, 7001, "PA", "\x00\x01y"}}
	var pkts []Packet
	for _, r := range recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, append(hs, second...)...) {
		pkts = append(pkts, Packet{Data: r.data, Link: r.link, Time: r.ts})
	}
	r := drain(t, NewPackets(pkts, Options{}))
	want := []string{"open syn", "c:\x00\x03abc", "s:\x00\x02hi", "c:\x00\x01d", "s:\x00\x04wxyz", "close", "open syn", "c:\x00\x01z", "s:\x00\x01y"}
	if !slices.Equal(r.log, want) {
		t.Errorf("events = %q; want %q", r.log, want)
	}
}

// TestGapTimeout loses a segment in a flow that goes on: the gap is
// reported once the data behind it has waited flushAge of capture time,
// not only at the end of input.
func TestGapTimeout(t *testing.T) {
	hs := handshake()
	rs := recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, hs[0], hs[1], hs[2], hs[5], hs[4])
	var pkts []Packet
	for _, r := range rs {
		pkts = append(pkts, Packet{Data: r.data, Link: r.link, Time: r.ts})
	}
	late := frame(t, frameOpts{link: layers.LinkTypeEthernet}, plain, seg{true, 5005, "PA", "\x00\x04wxyz"})
	pkts = append(pkts, Packet{Data: late, Link: layers.LinkTypeEthernet, Time: t0.Add(3 * flushAge)})
	src := NewPackets(pkts, Options{})
	var frames []int
	for {
		ev, err := src.Next()
		if err != nil {
			break
		}
		if ev.Kind == EventGap {
			frames = append(frames, ev.Frame)
			if ev.Lost != 5 || ev.FromServer {
				t.Errorf("gap = %d bytes from server %v; want 5 from the client", ev.Lost, ev.FromServer)
			}
		}
	}
	if !slices.Equal(frames, []int{6}) {
		t.Errorf("gap frames = %v; want [6] (the frame 3×flushAge later)", frames)
	}
}

func TestMaxFlows(t *testing.T) {
	var pkts []Packet
	for i := range 5 {
		c := conv{mustAP(fmt.Sprintf("10.0.0.%d:5000", i+2)), srv4}
		pkts = append(pkts, Packet{Data: frame(t, frameOpts{link: layers.LinkTypeEthernet}, c, seg{false, 1, "PA", "x"}), Link: layers.LinkTypeEthernet, Time: t0})
	}
	src := NewPackets(pkts, Options{MaxFlows: 3})
	r := drain(t, src)
	if len(r.opens) != 3 || len(r.notes) != 1 || !strings.Contains(r.notes[0], "more than 3 TCP flows") {
		t.Errorf("MaxFlows 3 over 5 flows: %d opens, notes %q; want 3 opens and one note", len(r.opens), r.notes)
	}
}
