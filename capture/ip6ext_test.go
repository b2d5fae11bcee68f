package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/netip"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// ext is an IPv6 extension header for withExt: its type and its bytes,
// whose first byte (the next header) withExt fills in.
type ext struct {
	typ  byte
	body []byte
}

var (
	extDest    = ext{60, []byte{0, 0, 1, 4, 0, 0, 0, 0}} // PadN of 4
	extDest16  = ext{60, []byte{0, 1, 1, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}
	extRouting = ext{43, []byte{0, 0, 0, 0, 0, 0, 0, 0}} // type 0, no segments left
	extHop     = ext{0, []byte{0, 0, 1, 4, 0, 0, 0, 0}}
	extAtomic  = ext{44, []byte{0, 0, 0, 0, 0, 0, 0, 7}}       // offset 0, M=0
	extFirst   = ext{44, []byte{0, 0, 0, 1, 0, 0, 0, 7}}       // offset 0, M=1
	extLater   = ext{44, []byte{0, 0, 0x05, 0x40, 0, 0, 0, 7}} // offset 168
)

// withExt returns pkt, whose IPv6 header starts at byte at, with hs
// inserted between the fixed header and the transport header.
func withExt(pkt []byte, at int, hs ...ext) []byte {
	ip := pkt[at:]
	out := append([]byte{}, pkt[:at+40]...)
	next := ip[6]
	var chain []byte
	for i := len(hs) - 1; i >= 0; i-- {
		h := append([]byte{next}, hs[i].body[1:]...)
		chain = append(h, chain...)
		next = hs[i].typ
	}
	out[at+6] = next
	binary.BigEndian.PutUint16(out[at+4:], binary.BigEndian.Uint16(ip[4:])+uint16(len(chain)))
	out = append(out, chain...)
	return append(out, ip[40:]...)
}

// ip6Cases are the extension header chains of TestIPv6Extensions and the
// filter test: whether a flow's data comes through them, and whether the
// fast path takes them (else the parser does).
var ip6Cases = []struct {
	name       string
	hs         []ext
	data, fast bool
}{
	{"none", nil, true, true},
	{"destination", []ext{extDest}, true, true},
	{"destination 16 bytes", []ext{extDest16}, true, true},
	{"routing destination", []ext{extRouting, extDest}, true, true},
	{"atomic fragment", []ext{extAtomic}, true, true},
	{"destination hop-by-hop", []ext{extDest, extHop}, true, true},
	{"four", []ext{extDest, extRouting, extAtomic, extDest}, true, true},
	{"hop-by-hop first", []ext{extHop, extDest}, true, false},
	{"five", []ext{extDest, extRouting, extDest, extRouting, extDest}, true, false},
	{"first fragment", []ext{extFirst}, false, false},
	{"later fragment", []ext{extLater}, false, false},
}

// TestIPv6Extensions reads a flow whose every IPv6 packet carries the
// extension headers of a case: the streams come through unless the
// packets are real fragments (not reassembled), by the fast path or the
// parser as the case says, and both paths decode each frame alike.
func TestIPv6Extensions(t *testing.T) {
	links := []struct {
		o  frameOpts
		at int // where the IPv6 header starts
	}{
		{frameOpts{link: layers.LinkTypeRaw}, 0},
		{frameOpts{link: layers.LinkTypeEthernet}, 14},
	}
	c := conv{cli6, srv6}
	for _, l := range links {
		for _, tc := range ip6Cases {
			t.Run(fmt.Sprintf("%v/%s", l.o.link, tc.name), func(t *testing.T) {
				rs := recs(t, l.o, c, handshake()...)
				for i := range rs {
					rs[i].data = withExt(rs[i].data, l.at, tc.hs...)
					var d linkDecoder
					d.init()
					if got := d.fast(rs[i].data, l.o.link); got != tc.fast {
						t.Errorf("frame %d: fast = %v; want %v", i+1, got, tc.fast)
					}
					samePaths(t, rs[i].data, l.o.link)
				}
				src, err := NewReader(bytes.NewReader(writePcapng(t, rs)), "ext", Options{})
				if err != nil {
					t.Fatal(err)
				}
				r := drain(t, src)
				f := Flow{Client: c.client, Server: c.server}
				if !tc.data {
					if len(r.opens) != 0 {
						t.Errorf("opens = %+v; want none (fragments are not reassembled)", r.opens)
					}
					return
				}
				if got := r.stream(f, false); got != wantC {
					t.Errorf("client stream = %q; want %q (notes %q)", got, wantC, r.notes)
				}
				if got := r.stream(f, true); got != wantS {
					t.Errorf("server stream = %q; want %q", got, wantS)
				}
			})
		}
	}
}

// samePaths checks that when the fast path decodes a frame, the parser
// decodes it to the same addresses, ports and payload, or for an IPv4
// fragment the same header and data.
func samePaths(t testing.TB, data []byte, link layers.LinkType) {
	t.Helper()
	var fast, slow linkDecoder
	fast.init()
	slow.init()
	if !fast.fast(data, link) {
		return
	}
	if got := slow.parse(data, link); got != linkIP {
		t.Fatalf("fast path decoded % x; parser returned %v", data, got)
	}
	type view struct {
		tcp, udp, ip6, frag4 bool
		src, dst, body       string
		fragHdr, fragBody    string
		sport, dport         int
		seq                  uint32
		syn, fin, rst, a     bool
	}
	see := func(d *linkDecoder) view {
		v := view{tcp: d.hasTCP, udp: d.hasUDP, ip6: d.isIP6, frag4: d.frag4, src: string(d.src), dst: string(d.dst)}
		if d.frag4 {
			v.fragHdr, v.fragBody = string(d.fragHdr), string(d.fragBody)
		} else {
			v.body = string(d.body)
		}
		if d.hasTCP {
			tcp := d.fullTCP()
			v.sport, v.dport, v.seq = int(tcp.SrcPort), int(tcp.DstPort), tcp.Seq
			v.syn, v.fin, v.rst, v.a = tcp.SYN, tcp.FIN, tcp.RST, tcp.ACK
		}
		if d.hasUDP {
			v.sport, v.dport = int(d.udp.SrcPort), int(d.udp.DstPort)
		}
		return v
	}
	if f, s := see(&fast), see(&slow); f != s {
		t.Errorf("frame % x: fast path %+v; parser %+v", data, f, s)
	}
}

// udp6 serialises a one-byte UDP datagram over bare IPv6.
func udp6(t *testing.T, src, dst netip.AddrPort) []byte {
	ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolUDP, SrcIP: src.Addr().AsSlice(), DstIP: dst.Addr().AsSlice()}
	udp := &layers.UDP{SrcPort: layers.UDPPort(src.Port()), DstPort: layers.UDPPort(dst.Port())}
	udp.SetNetworkLayerForChecksum(ip)
	return serialize(t, frameOpts{link: layers.LinkTypeRaw}, layers.EthernetTypeIPv6, layers.ProtocolFamilyIPv6BSD, ip, udp, gopacket.Payload("q"))
}

// TestPortFilterIPv6Extensions runs the kernel filter over the cases'
// packets: it keeps the game port's packets through the extension headers
// ip6Ext follows, and drops later fragments and chains longer than
// maxIP6Ext, which it cannot follow.
func TestPortFilterIPv6Extensions(t *testing.T) {
	vm := filterVM(t, LiveOptions{}, 0)
	rawIP := frameOpts{link: layers.LinkTypeRaw}
	for _, tc := range ip6Cases {
		keep := tc.name != "later fragment" && len(tc.hs) <= maxIP6Ext
		for _, s := range []seg{{false, 1, "PA", "x"}, {true, 1, "PA", "x"}} {
			pkt := withExt(frame(t, rawIP, conv{cli6, srv6}, s), 0, tc.hs...)
			if n, err := vm.Run(pkt); err != nil || (n > 0) != keep {
				t.Errorf("filter(%s, from server %v) = %d, %v; want keep %v", tc.name, s.fromServer, n, err, keep)
			}
			other := withExt(frame(t, rawIP, conv{cli6, mustAP("[2001:db8::1]:443")}, s), 0, tc.hs...)
			if n, err := vm.Run(other); err != nil || n != 0 {
				t.Errorf("filter(%s to port 443) = %d, %v; want drop", tc.name, n, err)
			}
		}
		udp := withExt(udp6(t, mustAP("[2001:db8::2]:5000"), mustAP("[2001:db8::1]:27015")), 0, tc.hs...)
		if n, err := vm.Run(udp); err != nil || (n > 0) != keep {
			t.Errorf("filter(%s, udp query port) = %d, %v; want keep %v", tc.name, n, err, keep)
		}
	}
	// A header cut off by the end of the packet is out of bounds for the
	// filter, which then drops the packet.
	cut := withExt(frame(t, rawIP, conv{cli6, srv6}, seg{false, 1, "PA", ""}), 0, extDest16)[:40+8]
	if n, err := vm.Run(cut); err != nil || n != 0 {
		t.Errorf("filter(cut extension header) = %d, %v; want drop", n, err)
	}
}

// FuzzIPv6Ext puts arbitrary bytes, as extension headers of a first type,
// between a well-formed IPv6 header and TCP segment, and checks that when
// the fast path decodes the packet the parser decodes it alike. (Over
// arbitrary frames the two may differ on malformed IPv4 options and the
// like, which the fast path does not check; the extension headers are
// walked by both.)
func FuzzIPv6Ext(f *testing.F) {
	for _, tc := range ip6Cases {
		var chain []byte
		first := byte(6)
		if len(tc.hs) > 0 {
			pkt := withExt(frame(f, frameOpts{link: layers.LinkTypeRaw}, conv{cli6, srv6}, seg{false, 1, "PA", ""}), 0, tc.hs...)
			first, chain = pkt[6], pkt[40:len(pkt)-20]
		}
		f.Add(first, chain)
	}
	base := frame(f, frameOpts{link: layers.LinkTypeRaw}, conv{cli6, srv6}, seg{false, 1, "PA", "\x00\x01x"})
	f.Fuzz(func(t *testing.T, first byte, chain []byte) {
		if len(chain) > 512 {
			return
		}
		pkt := append([]byte{}, base[:40]...)
		pkt[6] = first
		pkt = append(append(pkt, chain...), base[40:]...)
		binary.BigEndian.PutUint16(pkt[4:], uint16(len(pkt)-40))
		samePaths(t, pkt, layers.LinkTypeRaw)
	})
}
