package capture

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// linkResult says how far a frame decoded.
type linkResult uint8

const (
	linkIP          linkResult = iota // IPv4 or IPv6 decoded (TCP or UDP may follow)
	linkOther                         // a valid frame carrying something other than IP
	linkBad                           // the link or IP header is malformed or cut
	linkUnsupported                   // the link type is not one we decode
)

// linkDecoder decodes link, network and transport headers into preallocated
// layers with one DecodingLayerParser per link type, so that the common
// path allocates nothing (gopacket's DecodingLayerParser design).
type linkDecoder struct {
	eth     layers.Ethernet
	dot1q   layers.Dot1Q
	sll     layers.LinuxSLL
	sll2    layers.LinuxSLL2
	lo      layers.Loopback
	ip4     layers.IPv4
	ip6     layers.IPv6
	ip6ext  layers.IPv6ExtensionSkipper // routing, destination options, a later hop-by-hop
	ip6frag layers.IPv6Fragment         // overrides ip6ext for fragment headers
	tcp     layers.TCP
	udp     layers.UDP
	payload gopacket.Payload

	parsers    map[gopacket.LayerType]*gopacket.DecodingLayerParser
	lastFirst  gopacket.LayerType
	lastParser *gopacket.DecodingLayerParser
	lastLink   layers.LinkType
	lastLayer  gopacket.LayerType
	lastOK     bool
	decoded    []gopacket.LayerType

	hasTCP, hasUDP, isIP6 bool
	src, dst              []byte // IP addresses
	body                  []byte // TCP or UDP payload

	// frag4 says the frame is an IPv4 fragment (more fragments, or an
	// offset): fragHdr is its IPv4 header, fragBody its share of the
	// datagram, both in the frame, for the engine to join (frag.go).
	frag4             bool
	fragHdr, fragBody []byte

	// tcpRaw, when set, holds the TCP header and payload of a segment that
	// the fast path decoded only partly (ports, sequence number, flags,
	// payload): fullTCP completes d.tcp for the assembler.
	tcpRaw []byte
}

// netFlow is the IP flow of the frame, for the assembler.
func (d *linkDecoder) netFlow() gopacket.Flow {
	if d.isIP6 {
		return gopacket.NewFlow(layers.EndpointIPv6, d.src, d.dst)
	}
	return gopacket.NewFlow(layers.EndpointIPv4, d.src, d.dst)
}

// fullTCP returns the segment's TCP layer with every field decoded.
func (d *linkDecoder) fullTCP() *layers.TCP {
	if d.tcpRaw != nil {
		// The fast path checked what DecodeFromBytes checks: no error.
		d.tcp.DecodeFromBytes(d.tcpRaw, gopacket.NilDecodeFeedback)
		d.tcpRaw = nil
	}
	return &d.tcp
}

// tcpFast decodes the fields of a TCP segment that the fast path needs,
// accepting exactly what layers.TCP.DecodeFromBytes accepts (a 20-byte
// header, a data offset from 5 to the segment's length; its options never
// fail): the rest waits for fullTCP.
func (d *linkDecoder) tcpFast(b []byte) bool {
	if len(b) < 20 {
		return false
	}
	off := int(b[12]>>4) * 4
	if off < 20 || off > len(b) {
		return false
	}
	t := &d.tcp
	t.SrcPort = layers.TCPPort(binary.BigEndian.Uint16(b[0:]))
	t.DstPort = layers.TCPPort(binary.BigEndian.Uint16(b[2:]))
	t.Seq = binary.BigEndian.Uint32(b[4:])
	f := b[13]
	t.FIN, t.SYN, t.RST, t.ACK = f&0x01 != 0, f&0x02 != 0, f&0x04 != 0, f&0x10 != 0
	t.Payload = b[off:]
	d.tcpRaw = b
	return true
}

// firstLayer maps a link type to the layer its frames start with. Raw IP is
// resolved per frame from the version nibble.
var firstLayer = map[layers.LinkType]gopacket.LayerType{
	layers.LinkTypeEthernet:  layers.LayerTypeEthernet,
	layers.LinkTypeLinuxSLL:  layers.LayerTypeLinuxSLL,
	layers.LinkTypeLinuxSLL2: layers.LayerTypeLinuxSLL2,
	layers.LinkTypeNull:      layers.LayerTypeLoopback,
	layers.LinkTypeLoop:      layers.LayerTypeLoopback,
	layers.LinkTypeIPv4:      layers.LayerTypeIPv4,
	layers.LinkTypeIPv6:      layers.LayerTypeIPv6,
}

// isRaw reports link types that carry bare IP: LINKTYPE_RAW (101) and the
// DLT_RAW values 12 and 14 some systems write in pcap headers.
func isRaw(l layers.LinkType) bool { return l == layers.LinkTypeRaw || l == 12 || l == 14 }

func (d *linkDecoder) init() {
	d.parsers = map[gopacket.LayerType]*gopacket.DecodingLayerParser{}
	d.decoded = make([]gopacket.LayerType, 0, 8)
}

func (d *linkDecoder) parser(first gopacket.LayerType) *gopacket.DecodingLayerParser {
	if first == d.lastFirst && d.lastParser != nil {
		return d.lastParser
	}
	defer func() { d.lastFirst, d.lastParser = first, d.parsers[first] }()
	p := d.parsers[first]
	if p == nil {
		p = gopacket.NewDecodingLayerParser(first)
		// Layers we do not decode (ARP, ICMP, DNS…) end the walk without an
		// error; what decoded so far is in d.decoded.
		p.IgnoreUnsupported = true
		// Layer types are small integers: a slice beats the default map.
		dlc := gopacket.DecodingLayerContainer(gopacket.DecodingLayerSparse(nil))
		// ip6frag comes after ip6ext, which claims every extension type:
		// a fragment header needs its own layer, whose next layer is a
		// Fragment unless the fragment is the whole packet.
		for _, l := range []gopacket.DecodingLayer{&d.eth, &d.dot1q, &d.sll, &d.sll2, &d.lo, &d.ip4, &d.ip6, &d.ip6ext, &d.ip6frag, &d.tcp, &d.udp, &d.payload} {
			dlc = dlc.Put(l)
		}
		p.SetDecodingLayerContainer(dlc)
		d.parsers[first] = p
	}
	return p
}

func (d *linkDecoder) decode(data []byte, link layers.LinkType) linkResult {
	d.hasTCP, d.hasUDP, d.isIP6, d.frag4 = false, false, false, false
	if d.fast(data, link) {
		return linkIP
	}
	return d.parse(data, link)
}

// parse decodes a frame through gopacket's DecodingLayerParser: every
// frame the fast path declines.
func (d *linkDecoder) parse(data []byte, link layers.LinkType) linkResult {
	d.hasTCP, d.hasUDP, d.isIP6, d.frag4 = false, false, false, false
	d.tcpRaw = nil
	first, ok := d.lastLayer, d.lastOK
	if link != d.lastLink || d.parsers == nil || len(d.parsers) == 0 {
		first, ok = firstLayer[link]
		d.lastLink, d.lastLayer, d.lastOK = link, first, ok
	}
	if !ok {
		if !isRaw(link) {
			return linkUnsupported
		}
		if len(data) == 0 {
			return linkBad
		}
		switch data[0] >> 4 {
		case 4:
			first = layers.LayerTypeIPv4
		case 6:
			first = layers.LayerTypeIPv6
		default:
			return linkBad
		}
	}
	err := d.parser(first).DecodeLayers(data, &d.decoded)
	ip := false
	for _, t := range d.decoded {
		switch t {
		case layers.LayerTypeIPv4:
			ip = true
			d.isIP6 = false
			d.src, d.dst = d.ip4.SrcIP, d.ip4.DstIP
			// A fragment ends the walk (its next layer is a Fragment,
			// which the parser does not decode); a later IP layer
			// would name other ends.
			d.frag4 = d.ip4.Flags&layers.IPv4MoreFragments != 0 || d.ip4.FragOffset != 0
			d.fragHdr, d.fragBody = d.ip4.Contents, d.ip4.Payload
		case layers.LayerTypeIPv6:
			ip = true
			d.isIP6, d.frag4 = true, false
			d.src, d.dst = d.ip6.SrcIP, d.ip6.DstIP
		case layers.LayerTypeTCP:
			d.hasTCP = true
			d.body = d.tcp.Payload
		case layers.LayerTypeUDP:
			d.hasUDP = true
			d.body = d.udp.Payload
		}
	}
	if d.hasTCP || d.hasUDP {
		// A transport layer inside an ICMP error or a tunnel is still
		// treated as the frame's own: the last IP layer named the ends.
		d.frag4 = false
		return linkIP
	}
	if err != nil {
		return linkBad
	}
	if ip {
		return linkIP
	}
	return linkOther
}

// fast decodes the common frame shapes by hand: a link header of a fixed
// size (Ethernet with up to two VLAN tags, SLL, SLL2, null/loop, raw), an
// IPv4 header (a fragment is set aside for the engine to join, as parse
// does) or an IPv6 header with the extension headers ip6Ext skips, then
// the transport header through the preallocated gopacket layer.
// Anything else (and every malformed frame) returns false and goes through
// the DecodingLayerParser. The benchmark shows why: the parser's
// per-layer dispatch costs more than the rest of the pipeline.
func (d *linkDecoder) fast(b []byte, link layers.LinkType) bool {
	var et uint16
	switch link {
	case layers.LinkTypeEthernet:
		if len(b) < 14 {
			return false
		}
		et, b = binary.BigEndian.Uint16(b[12:]), b[14:]
		for i := 0; i < 2 && (et == 0x8100 || et == 0x88a8) && len(b) >= 4; i++ {
			et, b = binary.BigEndian.Uint16(b[2:]), b[4:]
		}
	case layers.LinkTypeLinuxSLL:
		if len(b) < 16 {
			return false
		}
		et, b = binary.BigEndian.Uint16(b[14:]), b[16:]
	case layers.LinkTypeLinuxSLL2:
		if len(b) < 20 {
			return false
		}
		et, b = binary.BigEndian.Uint16(b[0:]), b[20:]
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		if len(b) < 4 {
			return false
		}
		b = b[4:]
	case layers.LinkTypeRaw, 12, 14, layers.LinkTypeIPv4, layers.LinkTypeIPv6:
	default:
		return false
	}
	if len(b) == 0 {
		return false
	}
	switch et {
	case 0, 0x0800, 0x86dd:
	default:
		return false
	}
	var proto byte
	switch b[0] >> 4 {
	case 4:
		if et == 0x86dd {
			return false
		}
		ihl := int(b[0]&0x0f) * 4
		if ihl < 20 || len(b) < ihl {
			return false
		}
		total := int(binary.BigEndian.Uint16(b[2:]))
		if total < ihl {
			return false
		}
		proto = b[9]
		d.src, d.dst = b[12:16], b[16:20]
		d.isIP6 = false
		if total < len(b) {
			b = b[:total] // Ethernet padding
		}
		if binary.BigEndian.Uint16(b[6:])&0x3fff != 0 { // MF or fragment offset
			// As layers.IPv4 decodes it: the payload is what the total
			// length covers, or what the frame holds of it.
			d.frag4, d.fragHdr, d.fragBody = true, b[:ihl], b[ihl:]
			return true
		}
		b = b[ihl:]
	case 6:
		if et == 0x0800 || len(b) < 40 {
			return false
		}
		plen := int(binary.BigEndian.Uint16(b[4:]))
		proto = b[6]
		if plen == 0 { // jumbogram: let the parser judge
			return false
		}
		d.src, d.dst = b[8:24], b[24:40]
		d.isIP6 = true
		if 40+plen < len(b) {
			b = b[:40+plen]
		}
		var ok bool
		if proto, b, ok = ip6Ext(proto, b[40:]); !ok {
			return false
		}
	default:
		return false
	}
	return d.transport(proto, b)
}

// transport decodes a TCP or UDP header and payload, b, carried in IP
// protocol proto; false means neither, or a malformed header.
func (d *linkDecoder) transport(proto byte, b []byte) bool {
	switch proto {
	case 6:
		if !d.tcpFast(b) {
			return false
		}
		d.hasTCP, d.body = true, d.tcp.Payload
	case 17:
		if d.udp.DecodeFromBytes(b, gopacket.NilDecodeFeedback) != nil {
			return false
		}
		d.hasUDP, d.body = true, d.udp.Payload
	default:
		return false
	}
	return true
}

// datagram decodes the transport layer of a reassembled IPv4 datagram,
// whose bytes the engine owns: linkIP when it is TCP or UDP, linkBad when
// their header is malformed, linkOther for other protocols.
func (d *linkDecoder) datagram(ip *layers.IPv4) linkResult {
	d.hasTCP, d.hasUDP, d.isIP6, d.frag4 = false, false, false, false
	d.tcpRaw = nil
	d.src, d.dst = ip.SrcIP, ip.DstIP
	switch {
	case d.transport(byte(ip.Protocol), ip.Payload):
		return linkIP
	case ip.Protocol == layers.IPProtocolTCP || ip.Protocol == layers.IPProtocolUDP:
		return linkBad
	}
	return linkOther
}

// maxIP6Ext is how many IPv6 extension headers the fast path and the
// kernel filter (bpf.go) follow: real traffic has one or two (RFC 8200 4.1
// recommends at most one of each kind).
const maxIP6Ext = 4

// ip6Ext skips the IPv6 extension headers before the transport header (RFC
// 8200 4): routing (43), destination options (60), a hop-by-hop header (0)
// after the first position, and a fragment header (44) of an unfragmented
// packet (an atomic fragment, RFC 6946). It returns the transport protocol
// and its bytes, or false for what the parser should judge: a hop-by-hop
// header right after the fixed header (layers.IPv6 checks its options and
// jumbogram length), a real fragment, a header cut short, or more than
// maxIP6Ext headers. The parser skips the same headers (ip6ext, ip6frag),
// so both paths agree.
func ip6Ext(proto byte, b []byte) (byte, []byte, bool) {
	if proto == byte(layers.IPProtocolIPv6HopByHop) {
		return 0, nil, false
	}
	for n := 0; isIP6Ext(proto); n++ {
		if n == maxIP6Ext || len(b) < 8 { // every extension header has 8 bytes or more
			return 0, nil, false
		}
		size := (int(b[1]) + 1) * 8
		if proto == byte(layers.IPProtocolIPv6Fragment) {
			// offset (13 bits), 2 reserved bits, M: a packet of its own
			// only with offset 0 and no more fragments.
			if binary.BigEndian.Uint16(b[2:])&0xfff9 != 0 {
				return 0, nil, false
			}
			size = 8 // its second byte is reserved, not a length
		}
		if len(b) < size {
			return 0, nil, false
		}
		proto, b = b[0], b[size:]
	}
	return proto, b, true
}

// isIP6Ext reports the IPv6 extension headers ip6Ext and the kernel filter
// follow.
func isIP6Ext(proto byte) bool {
	switch layers.IPProtocol(proto) {
	case layers.IPProtocolIPv6HopByHop, layers.IPProtocolIPv6Routing, layers.IPProtocolIPv6Fragment, layers.IPProtocolIPv6Destination:
		return true
	}
	return false
}
