package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// fragment splits an IPv4 packet, ip (header and data), into fragments of
// at most size data bytes (a multiple of 8), each a copy of the header
// with identification id, its offset and MF flag, total length and
// checksum (RFC 791 §3.2, "Fragmentation").
func fragment(ip []byte, id uint16, size int) [][]byte {
	ihl := int(ip[0]&0x0f) * 4
	hdr, data := ip[:ihl], ip[ihl:]
	var out [][]byte
	for off := 0; off < len(data); off += size {
		end := min(off+size, len(data))
		f := append(append([]byte{}, hdr...), data[off:end]...)
		flags := uint16(off / 8)
		if end < len(data) {
			flags |= 0x2000 // MF
		}
		binary.BigEndian.PutUint16(f[2:], uint16(len(f)))
		binary.BigEndian.PutUint16(f[4:], id)
		binary.BigEndian.PutUint16(f[6:], flags)
		binary.BigEndian.PutUint16(f[10:], 0)
		binary.BigEndian.PutUint16(f[10:], ipChecksum(f[:ihl]))
		out = append(out, f)
	}
	return out
}

// ipChecksum is the IPv4 header checksum (RFC 1071).
func ipChecksum(h []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(h); i += 2 {
		s += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return ^uint16(s)
}

// fragLink is a link framing for fragments: its header, put before each
// IPv4 fragment, and whether the fast path takes such frames (else the
// parser does).
type fragLink struct {
	name string
	link layers.LinkType
	head []byte
	fast bool
}

func fragLinks(t *testing.T) []fragLink {
	eth := frame(t, frameOpts{link: layers.LinkTypeEthernet}, plain, seg{false, 1, "A", ""})[:14]
	// Three 802.1Q tags: the fast path follows two, the parser any number.
	qqq := binary.BigEndian.AppendUint16(append([]byte{}, eth[:12]...), 0x8100)
	for i, next := range []uint16{0x8100, 0x8100, 0x0800} {
		qqq = binary.BigEndian.AppendUint16(qqq, uint16(10+i))
		qqq = binary.BigEndian.AppendUint16(qqq, next)
	}
	return []fragLink{
		{"ethernet", layers.LinkTypeEthernet, eth, true},
		{"raw", layers.LinkTypeRaw, nil, true},
		{"sll2", layers.LinkTypeLinuxSLL2, frame(t, frameOpts{link: layers.LinkTypeLinuxSLL2}, plain, seg{false, 1, "A", ""})[:20], true},
		{"ethernet-3-vlans", layers.LinkTypeEthernet, qqq, false},
	}
}

// fragFlow is a flow of 38 SystemSockets messages, most of whose data
// segments are larger than a fragment: the handshake, then nine rounds of
// a client segment of three messages and a server segment of one, then
// the closes.
func fragFlow() (segs []seg, client, server string) {
	segs = []seg{{false, 1000, "S", ""}, {true, 5000, "SA", ""}, {false, 1001, "A", ""}}
	cseq, sseq := uint32(1001), uint32(5001)
	for i := range 9 {
		c := string(framed(strings.Repeat("c", 10+i*97), fmt.Sprintf("ping %d", i), strings.Repeat("d", 300)))
		s := string(framed(strings.Repeat(string(rune('A'+i)), 40+i*211)))
		segs = append(segs, seg{false, cseq, "PA", c}, seg{true, sseq, "PA", s})
		cseq += uint32(len(c))
		sseq += uint32(len(s))
		client += c
		server += s
	}
	// Two closing messages, one each way, in small segments.
	c, s := string(framed("bye")), string(framed("ok"))
	segs = append(segs, seg{false, cseq, "PA", c}, seg{true, sseq, "PA", s})
	client += c
	server += s
	cseq += uint32(len(c))
	sseq += uint32(len(s))
	segs = append(segs, seg{false, cseq, "FA", ""}, seg{true, sseq, "FA", ""}, seg{false, cseq + 1, "A", ""})
	return segs, client, server
}

// TestFragments fragments every data segment of a flow, some fragments
// out of order, repeated, or interleaved with the other direction's, on
// link types the fast path takes and one only the parser takes, in pcap
// and pcapng: every message comes through, and a note says fragments
// were seen and joined with none dropped.
func TestFragments(t *testing.T) {
	segs, wantClient, wantServer := fragFlow()
	f := Flow{cli4, srv4}
	for _, l := range fragLinks(t) {
		var rs []rec
		add := func(ip []byte) {
			rs = append(rs, rec{data: append(append([]byte{}, l.head...), ip...), link: l.link, ts: t0.Add(time.Duration(len(rs)) * time.Millisecond)})
		}
		frags, datagrams := 0, 0
		var held [][]byte // the server's fragments, sent after the client's next one
		for i, s := range segs {
			ip := frame(t, frameOpts{link: layers.LinkTypeRaw}, plain, s)
			fs := fragment(ip, uint16(100+i), []int{8, 64, 256, 128}[i%4])
			if len(fs) < 2 {
				for _, h := range held {
					add(h)
				}
				held = nil
				add(ip)
				continue
			}
			datagrams++
			frags += len(fs)
			switch i % 3 {
			case 0: // in reverse order
				slices.Reverse(fs)
			case 1: // the first fragment twice
				fs = append([][]byte{fs[0]}, fs...)
				frags++
			}
			if s.fromServer {
				held = fs
				continue
			}
			// Interleave: the client's fragments, then the server's
			// held back from the previous round.
			for j, x := range fs {
				add(x)
				if j == 0 {
					for _, h := range held {
						add(h)
					}
					held = nil
				}
			}
		}
		for _, h := range held {
			add(h)
		}
		for _, r := range rs {
			if binary.BigEndian.Uint16(r.data[len(l.head)+6:])&0x3fff == 0 {
				continue
			}
			var d linkDecoder
			d.init()
			if got := d.fast(r.data, l.link); got != l.fast {
				t.Fatalf("%s: fast(fragment) = %v; want %v", l.name, got, l.fast)
			}
			samePaths(t, r.data, l.link)
		}
		for _, format := range []string{"pcap", "pcapng"} {
			t.Run(l.name+"/"+format, func(t *testing.T) {
				file := writePcapng(t, rs)
				if format == "pcap" {
					file = writePcap(t, false, l.link, rs)
				}
				src, err := NewReader(bytes.NewReader(file), "frag", Options{})
				if err != nil {
					t.Fatal(err)
				}
				r := drain(t, src)
				if got := r.stream(f, false); got != wantClient {
					t.Errorf("client stream: %d bytes, differs from the %d sent (notes %q)", len(got), len(wantClient), r.notes)
				}
				if got := r.stream(f, true); got != wantServer {
					t.Errorf("server stream: %d bytes, differs from the %d sent", len(got), len(wantServer))
				}
				if n := countMessages(r.stream(f, false)) + countMessages(r.stream(f, true)); n != 38 {
					t.Errorf("%d messages; want 38", n)
				}
				st := src.Stats()
				if st.Fragments != int64(frags) || st.Reassembled != int64(datagrams) || st.FragmentsDropped != 0 || st.Gaps != 0 {
					t.Errorf("stats: %d fragments, %d reassembled, %d dropped, %d gaps; want %d, %d, 0, 0", st.Fragments, st.Reassembled, st.FragmentsDropped, st.Gaps, frags, datagrams)
				}
				summary := fmt.Sprintf("note: IPv4 fragments: %d read, %d datagrams reassembled; 0 fragments dropped", frags, datagrams)
				if len(r.notes) != 2 || !strings.Contains(r.notes[0], "is an IPv4 fragment: fragmented datagrams are reassembled") || !strings.HasPrefix(r.notes[1], summary) {
					t.Errorf("notes = %q; want the fragments-seen note and %q…", r.notes, summary)
				}
			})
		}
	}
}

// countMessages counts the SystemSockets frames of a stream (wire.md §2).
func countMessages(s string) int {
	n := 0
	for len(s) >= 2 {
		l := int(binary.BigEndian.Uint16([]byte(s)))
		if 2+l > len(s) {
			break
		}
		s = s[2+l:]
		n++
	}
	return n
}

// TestFragmentBounds: each bound on held fragments engages as documented
// (the oldest datagram dropped, or the fragment), as do expiry and a
// contradicting fragment; the summary counts each, the message before the
// fragments is kept, the segment after them comes through behind a gap.
func TestFragmentBounds(t *testing.T) {
	const before, after = "\x00\x03abc", "\x00\x02hi"
	payload := func(n int) string { return string(framed(strings.Repeat("x", n-2))) }
	at := func(id uint16, size int, s seg) [][]byte {
		return fragment(frame(t, frameOpts{link: layers.LinkTypeRaw}, plain, s), id, size)
	}
	type sent struct {
		pkt []byte
		dt  time.Duration // after the previous packet
	}
	tests := []struct {
		name string
		opt  Options
		// build returns the fragments to send after the message before,
		// and the client sequence number after them.
		build      func() ([]sent, uint32)
		stream     string // the client stream after the message before
		read, done int64  // fragments read, datagrams reassembled
		// dropped: expired, over the caps, malformed or contradicting,
		// incomplete at the end
		dropped [4]int64
	}{{
		name: "datagrams",
		opt:  Options{MaxFragmentDatagrams: 2},
		build: func() ([]sent, uint32) {
			d1 := at(1, 16, seg{false, 1006, "PA", payload(40)})
			d2 := at(2, 16, seg{false, 1046, "PA", payload(40)})
			d3 := at(3, 16, seg{false, 1086, "PA", payload(40)})
			// d3's first fragment drops d1, the oldest; d2 and d3 complete.
			var out []sent
			for _, p := range [][]byte{d1[0], d2[0], d3[0], d3[1], d3[2], d3[3], d2[1], d2[2], d2[3]} {
				out = append(out, sent{p, time.Millisecond})
			}
			return out, 1126
		},
		stream: "<gap 40>" + payload(40) + payload(40),
		read:   9, done: 2,
		dropped: [4]int64{0, 1, 0, 0},
	}, {
		name: "fragments",
		opt:  Options{MaxFragments: 3},
		build: func() ([]sent, uint32) {
			// Five fragments: the fourth drops the three held, then
			// the fourth and fifth wait for the rest until the end.
			var out []sent
			for _, p := range at(1, 16, seg{false, 1006, "PA", payload(60)}) {
				out = append(out, sent{p, time.Millisecond})
			}
			return out, 1066
		},
		stream: "<gap 60>",
		read:   5, done: 0,
		dropped: [4]int64{0, 3, 0, 2},
	}, {
		name: "bytes",
		opt:  Options{MaxFragmentBytes: 150},
		build: func() ([]sent, uint32) {
			// 84, 84 and 36 bytes: the second drops the first.
			var out []sent
			for _, p := range at(1, 64, seg{false, 1006, "PA", payload(124)}) {
				out = append(out, sent{p, time.Millisecond})
			}
			return out, 1130
		},
		stream: "<gap 124>",
		read:   3, done: 0,
		dropped: [4]int64{0, 1, 0, 2},
	}, {
		name: "expired",
		opt:  Options{},
		build: func() ([]sent, uint32) {
			d := at(1, 16, seg{false, 1006, "PA", payload(20)})
			return []sent{{d[0], time.Millisecond}, {d[1], 31 * time.Second}}, 1026
		},
		stream: "<gap 20>",
		read:   2, done: 0,
		dropped: [4]int64{1, 0, 0, 1},
	}, {
		name: "contradicting",
		opt:  Options{},
		build: func() ([]sent, uint32) {
			d := at(1, 16, seg{false, 1006, "PA", payload(40)})
			// A fragment of bytes 8 to 24 overlaps the first's 0 to 16
			// without repeating them: both are dropped.
			bad := append([]byte{}, d[1]...)
			binary.BigEndian.PutUint16(bad[6:], 0x2000|1)
			return []sent{{d[0], time.Millisecond}, {bad, time.Millisecond}, {d[1], time.Millisecond}, {d[2], time.Millisecond}}, 1046
		},
		stream: "<gap 40>",
		read:   4, done: 0,
		dropped: [4]int64{0, 0, 2, 2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frags, next := tt.build()
			var pkts []Packet
			ts := t0
			push := func(data []byte, dt time.Duration) {
				ts = ts.Add(dt)
				pkts = append(pkts, Packet{Data: data, Link: layers.LinkTypeRaw, Time: ts})
			}
			for _, s := range []seg{{false, 1000, "S", ""}, {true, 5000, "SA", ""}, {false, 1001, "PA", before}} {
				push(frame(t, frameOpts{link: layers.LinkTypeRaw}, plain, s), time.Millisecond)
			}
			for _, f := range frags {
				push(f.pkt, f.dt)
			}
			push(frame(t, frameOpts{link: layers.LinkTypeRaw}, plain, seg{false, next, "PA", after}), time.Millisecond)
			src := NewPackets(pkts, tt.opt)
			r := drain(t, src)
			if got, want := r.stream(Flow{cli4, srv4}, false), before+tt.stream+after; got != want {
				t.Errorf("client stream = %q; want %q", got, want)
			}
			st := src.Stats()
			total := tt.dropped[0] + tt.dropped[1] + tt.dropped[2] + tt.dropped[3]
			if st.Fragments != tt.read || st.Reassembled != tt.done || st.FragmentsDropped != total {
				t.Errorf("stats: %d fragments, %d reassembled, %d dropped; want %d, %d, %d", st.Fragments, st.Reassembled, st.FragmentsDropped, tt.read, tt.done, total)
			}
			o := tt.opt.withDefaults()
			want := fmt.Sprintf("warn: IPv4 fragments: %d read, %d datagrams reassembled; %d fragments dropped: %d incomplete after 30 s, %d over the caps (%d datagrams, %d fragments, %d bytes at once), %d malformed or contradicting, %d incomplete at the end of input",
				tt.read, tt.done, total, tt.dropped[0], tt.dropped[1], o.MaxFragmentDatagrams, o.MaxFragments, o.MaxFragmentBytes, tt.dropped[2], tt.dropped[3])
			if !slices.Contains(r.notes, want) {
				t.Errorf("notes = %q; want %q", r.notes, want)
			}
			drops := 0
			for _, n := range r.notes {
				if strings.Contains(n, "IPv4 fragments dropped") {
					drops++
				}
			}
			if drops != 1 {
				t.Errorf("%d notes of dropped fragments; want 1 (the rest are counted in the summary)", drops)
			}
		})
	}
}

// fragmentSeeds are FuzzFragments inputs: the fragments of a segment in
// order, last first, and with an overlapping one, each fragment a 2-byte
// big-endian length and the IPv4 packet.
func fragmentSeeds(t testing.TB) [][]byte {
	ip := frame(t, frameOpts{link: layers.LinkTypeRaw}, plain, seg{false, 1001, "PA", string(framed(strings.Repeat("f", 100)))})
	fs := fragment(ip, 7, 32)
	join := func(fs ...[]byte) []byte {
		var b []byte
		for _, f := range fs {
			b = append(binary.BigEndian.AppendUint16(b, uint16(len(f))), f...)
		}
		return b
	}
	rev := slices.Clone(fs)
	slices.Reverse(rev)
	bad := slices.Clone(fs[1])
	binary.BigEndian.PutUint16(bad[6:], 0x2000|2)
	return [][]byte{join(fs...), join(rev...), join(fs[0], bad, fs[1], fs[2])}
}

// FuzzFragments feeds arbitrary IPv4 packets (2-byte length, packet) as
// fragments, under the default bounds and under bounds of a few
// fragments: no panic, the counts add up, and at the end nothing is held.
func FuzzFragments(f *testing.F) {
	for _, s := range fragmentSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var pkts []Packet
		for len(b) >= 2 {
			n := min(int(binary.BigEndian.Uint16(b)), len(b)-2)
			pkts = append(pkts, Packet{Data: b[2 : 2+n], Link: layers.LinkTypeRaw, Time: t0.Add(time.Duration(len(pkts)) * time.Second)})
			b = b[2+n:]
		}
		for _, o := range []Options{{}, {MaxFragments: 2, MaxFragmentBytes: 100, MaxFragmentDatagrams: 2}} {
			src := NewPackets(pkts, o)
			drain(t, src)
			st := src.Stats()
			if st.Reassembled > st.Fragments || st.FragmentsDropped > st.Fragments {
				t.Errorf("stats: %d fragments, %d reassembled, %d dropped", st.Fragments, st.Reassembled, st.FragmentsDropped)
			}
			if fs := &src.(*source).e.frag; fs.frags != 0 || fs.bytes != 0 || len(fs.dgrams) != 0 {
				t.Errorf("after the end: %d fragments, %d bytes, %d datagrams held; want none", fs.frags, fs.bytes, len(fs.dgrams))
			}
		}
	})
}
