package capture

import "github.com/gopacket/gopacket"

// LiveOptions configure OpenLive.
type LiveOptions struct {
	Options
	Interface   string // network interface; "any" (or empty) captures on all, "lo" the loopback
	SnapLen     int    // bytes kept per packet; 262144 when 0
	Promiscuous bool   // off by default; ignored for "any"
	Write       string // when set, every captured packet is also saved to this pcapng file
	// BPF attaches the kernel filter `tcp port (P or T…) or udp port (P
	// or Q or U…)` (P the transport port, Q the query port, T TCPPorts, U
	// Options.DatagramPorts) so that only the traffic asked for reaches
	// user space; with Options.ProbeDatagrams it keeps all UDP (a probed
	// flow may start on any port), with AllTCP all TCP. DefaultLiveOptions
	// turns it on; without it every packet of the interface is read.
	BPF bool
	// TCPPorts are more TCP ports the kernel filter keeps besides the
	// transport port: the ports --decode-as names (wire.md 2), ULinkRPC's
	// (ulinkrpc.md 1). Files and standard input read every port anyway.
	TCPPorts []uint16
	// AllTCP keeps TCP on every port in the kernel filter, for a consumer
	// that recognises connections by their first bytes on any port.
	AllTCP bool
	// Ring, when set, is read instead of an AF_PACKET socket (Interface
	// then only names the capture; no kernel filter, no root needed): a
	// test hook that puts packets from elsewhere through everything else
	// a live capture does, Write's saving and offsets included.
	Ring Ring
}

// Ring is a source of packets for LiveOptions.Ring, as the cooked packet
// socket gives them: each from its network-layer (IPv4 or IPv6) header on,
// with its capture time and lengths. The bytes need only stay valid until
// the next call; io.EOF ends the capture.
type Ring interface {
	ReadPacket() ([]byte, gopacket.CaptureInfo, error)
}

// DefaultLiveOptions returns the options of a plain `-i iface`: the kernel
// filter on, default snap length, promiscuous off.
func DefaultLiveOptions(iface string) LiveOptions {
	return LiveOptions{Interface: iface, SnapLen: DefaultSnapLen, BPF: true}
}

// DefaultSnapLen is libpcap's MAXIMUM_SNAPLEN: loopback and GRO deliver TCP
// segments far beyond the MTU.
const DefaultSnapLen = 262144
