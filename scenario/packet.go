package scenario

import (
	"encoding/binary"
	"net/netip"

	"github.com/gopacket/gopacket/layers"
)

// TCP flags.
const (
	flagFIN = 0x01
	flagSYN = 0x02
	flagPSH = 0x08
	flagACK = 0x10
)

// link is a capture link type: its pcap number and how its header is
// written before the IP packet.
type link struct {
	Type   layers.LinkType
	header func(b []byte, v6, fromClient bool) []byte
}

// Fixed MAC addresses: locally administered, client …02, server …01.
var (
	macClient = []byte{0x02, 0, 0, 0, 0, 0x02}
	macServer = []byte{0x02, 0, 0, 0, 0, 0x01}
)

func etherType(v6 bool) uint16 {
	if v6 {
		return 0x86dd
	}
	return 0x0800
}

func macs(fromClient bool) (src, dst []byte) {
	if fromClient {
		return macClient, macServer
	}
	return macServer, macClient
}

// linkTypes are the link layers a scenario can ask for, by name.
var linkTypes = map[string]link{
	"ethernet": {layers.LinkTypeEthernet, func(b []byte, v6, fc bool) []byte {
		src, dst := macs(fc)
		b = append(append(b, dst...), src...)
		return binary.BigEndian.AppendUint16(b, etherType(v6))
	}},
	"vlan-ethernet": {layers.LinkTypeEthernet, func(b []byte, v6, fc bool) []byte {
		src, dst := macs(fc)
		b = append(append(b, dst...), src...)
		b = binary.BigEndian.AppendUint16(b, 0x8100)
		b = binary.BigEndian.AppendUint16(b, 100) // priority 0, VLAN 100
		return binary.BigEndian.AppendUint16(b, etherType(v6))
	}},
	// Linux cooked capture as seen on the server: packets from the client
	// are PACKET_HOST (0), its own PACKET_OUTGOING (4).
	"sll": {layers.LinkTypeLinuxSLL, func(b []byte, v6, fc bool) []byte {
		src, _ := macs(fc)
		b = binary.BigEndian.AppendUint16(b, pktType(fc))
		b = binary.BigEndian.AppendUint16(b, 1) // ARPHRD_ETHER
		b = binary.BigEndian.AppendUint16(b, 6)
		b = append(append(b, src...), 0, 0)
		return binary.BigEndian.AppendUint16(b, etherType(v6))
	}},
	"sll2": {layers.LinkTypeLinuxSLL2, func(b []byte, v6, fc bool) []byte {
		src, _ := macs(fc)
		b = binary.BigEndian.AppendUint16(b, etherType(v6))
		b = binary.BigEndian.AppendUint16(b, 0)
		b = binary.BigEndian.AppendUint32(b, 2) // interface index
		b = binary.BigEndian.AppendUint16(b, 1) // ARPHRD_ETHER
		b = append(b, byte(pktType(fc)), 6)
		return append(append(b, src...), 0, 0)
	}},
	"raw": {layers.LinkTypeRaw, func(b []byte, v6, fc bool) []byte { return b }},
	// BSD loopback: the address family in host (here little-endian) order;
	// 24 is AF_INET6 on NetBSD and OpenBSD, which readers accept.
	"null": {layers.LinkTypeNull, func(b []byte, v6, fc bool) []byte {
		af := uint32(2)
		if v6 {
			af = 24
		}
		return binary.LittleEndian.AppendUint32(b, af)
	}},
}

func pktType(fromClient bool) uint16 {
	if fromClient {
		return 0
	}
	return 4
}

// segment describes one TCP segment to write.
type segment struct {
	src, dst   netip.AddrPort
	fromClient bool
	seq, ack   uint32
	flags      uint8
	ipID       uint16
	payload    []byte
}

// appendPacket appends the link header, the IPv4 or IPv6 header and the TCP
// header of s with correct lengths and checksums, then its payload.
func appendPacket(b []byte, l link, s *segment) []byte {
	v6 := s.src.Addr().Is6()
	b = l.header(b, v6, s.fromClient)
	tcpLen := 20 + len(s.payload)
	ip := len(b)
	var sum uint32
	if v6 {
		b = append(b, 0x60, 0, 0, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(tcpLen))
		b = append(b, 6, 64) // next header TCP, hop limit
		a, d := s.src.Addr().As16(), s.dst.Addr().As16()
		b = append(append(b, a[:]...), d[:]...)
		sum = sumBytes(0, b[ip+8:ip+40])
	} else {
		b = append(b, 0x45, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(20+tcpLen))
		b = binary.BigEndian.AppendUint16(b, s.ipID)
		b = append(b, 0x40, 0, 64, 6, 0, 0) // DF, TTL 64, TCP, checksum
		a, d := s.src.Addr().As4(), s.dst.Addr().As4()
		b = append(append(b, a[:]...), d[:]...)
		binary.BigEndian.PutUint16(b[ip+10:], fold(sumBytes(0, b[ip:ip+20])))
		sum = sumBytes(0, b[ip+12:ip+20])
	}
	sum += 6 + uint32(tcpLen)
	t := len(b)
	b = binary.BigEndian.AppendUint16(b, s.src.Port())
	b = binary.BigEndian.AppendUint16(b, s.dst.Port())
	b = binary.BigEndian.AppendUint32(b, s.seq)
	b = binary.BigEndian.AppendUint32(b, s.ack)
	b = append(b, 5<<4, s.flags, 0xff, 0xff, 0, 0, 0, 0) // window 65535
	b = append(b, s.payload...)
	binary.BigEndian.PutUint16(b[t+16:], fold(sumBytes(sum, b[t:])))
	return b
}

// sumBytes adds b as big-endian 16-bit words to the one's-complement sum
// of RFC 1071.
func sumBytes(sum uint32, b []byte) uint32 {
	for len(b) >= 2 {
		sum += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	return sum
}

func fold(sum uint32) uint16 {
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}
