package capture

// LiveOptions configure OpenLive.
type LiveOptions struct {
	Options
	Interface   string // network interface; "any" (or empty) captures on all, "lo" the loopback
	SnapLen     int    // bytes kept per packet; 262144 when 0
	Promiscuous bool   // off by default; ignored for "any"
	Write       string // when set, every captured packet is also saved to this pcapng file
	// BPF attaches the kernel filter `tcp port P or udp port P or udp port
	// Q` (P the transport port, Q the query port) so that only game traffic
	// reaches user space. DefaultLiveOptions turns it on; without it every
	// packet of the interface is read.
	BPF bool
	// TCPPorts are more TCP ports the kernel filter keeps besides the
	// transport port: the ports --decode-as names (wire.md 2). Files and
	// standard input read every port anyway.
	TCPPorts []uint16
}

// DefaultLiveOptions returns the options of a plain `-i iface`: the kernel
// filter on, default snap length, promiscuous off.
func DefaultLiveOptions(iface string) LiveOptions {
	return LiveOptions{Interface: iface, SnapLen: DefaultSnapLen, BPF: true}
}

// DefaultSnapLen is libpcap's MAXIMUM_SNAPLEN: loopback and GRO deliver TCP
// segments far beyond the MTU.
const DefaultSnapLen = 262144
