package capture

import (
	"fmt"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// filterVM runs the kernel filter of opt, with a snap length of 1000 and
// loopback index lo, in x/net/bpf's VM.
func filterVM(t *testing.T, opt LiveOptions, lo int) *bpf.VM {
	t.Helper()
	raw := portFilter(kernelPorts(opt), 1000, lo)
	if len(raw) > 4096 {
		t.Fatalf("filter of %d instructions; the kernel takes at most 4096 (BPF_MAXINSNS)", len(raw))
	}
	ins := make([]bpf.Instruction, len(raw))
	for i, r := range raw {
		ins[i] = r.Disassemble()
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatalf("NewVM: %v", err)
	}
	return vm
}

// filterCase is a packet (cooked: from the IP header) and whether the
// filter keeps it.
type filterCase struct {
	name string
	pkt  []byte
	keep bool
}

// runFilter checks every case against vm: kept at the snap length 1000,
// or dropped.
func runFilter(t *testing.T, vm *bpf.VM, tests []filterCase) {
	t.Helper()
	for _, tt := range tests {
		n, err := vm.Run(tt.pkt)
		if err != nil {
			t.Fatalf("%s: Run: %v", tt.name, err)
		}
		if got := n > 0; got != tt.keep {
			t.Errorf("filter(%s) = keep %v; want %v", tt.name, got, tt.keep)
		}
		if n > 0 && n != 1000 {
			// The kernel keeps min(return value, packet length).
			t.Errorf("filter(%s) returned %d; want the snap length 1000", tt.name, n)
		}
	}
}

var rawIP = frameOpts{link: layers.LinkTypeRaw}

// udp4 is a cooked UDP/IPv4 datagram.
func udp4(t *testing.T, src, dst string) []byte {
	s, d := mustAP(src), mustAP(dst)
	return udpFrame(t, s, d, []byte("q"))[14:] // drop the Ethernet header
}

// tcp4 and tcp6 are cooked TCP segments from a client to server (or back).
func tcp4(t *testing.T, server string, fromServer bool) []byte {
	return frame(t, rawIP, conv{cli4, mustAP(server)}, seg{fromServer, 1, "PA", "x"})
}

func tcp6(t *testing.T, server string, fromServer bool) []byte {
	return frame(t, rawIP, conv{cli6, mustAP(server)}, seg{fromServer, 1, "PA", "x"})
}

func TestPortFilter(t *testing.T) {
	vm := filterVM(t, LiveOptions{}, 0)
	frag := func(proto layers.IPProtocol) []byte {
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: proto, SrcIP: cli4.Addr().AsSlice(), DstIP: srv4.Addr().AsSlice(), FragOffset: 100}
		return serialize(t, rawIP, layers.EthernetTypeIPv4, 0, ip, gopacket.Payload("\x69\x88\x69\x88 not a tcp header"))
	}
	runFilter(t, vm, []filterCase{
		{"tcp4 to game port", frame(t, rawIP, plain, seg{false, 1, "PA", "x"}), true},
		{"tcp4 from game port", frame(t, rawIP, plain, seg{true, 1, "PA", "x"}), true},
		{"tcp6 to game port", frame(t, rawIP, conv{cli6, srv6}, seg{false, 1, "PA", "x"}), true},
		{"tcp6 from game port", frame(t, rawIP, conv{cli6, srv6}, seg{true, 1, "PA", "x"}), true},
		{"tcp4 other port", tcp4(t, "10.0.0.1:80", false), false},
		{"tcp4 on query port", tcp4(t, "10.0.0.1:27015", false), false},
		{"tcp6 other port", tcp6(t, "[2001:db8::1]:443", false), false},
		{"udp4 game port", udp4(t, "10.0.0.2:5000", "10.0.0.1:27016"), true},
		{"udp4 query port reply", udp4(t, "10.0.0.1:27015", "10.0.0.2:5000"), true},
		{"udp4 query port", udp4(t, "10.0.0.2:5000", "10.0.0.1:27015"), true},
		{"udp4 other", udp4(t, "10.0.0.2:5000", "10.0.0.1:53"), false},
		{"udp6 query port", udp6(t, mustAP("[2001:db8::2]:5000"), mustAP("[2001:db8::1]:27015")), true},
		{"udp6 other", udp6(t, mustAP("[2001:db8::2]:5000"), mustAP("[2001:db8::1]:53")), false},
		{"ipv4 later fragment of tcp", frag(layers.IPProtocolTCP), true}, // no ports to judge: joined, then judged
		{"ipv4 later fragment of udp", frag(layers.IPProtocolUDP), true},
		{"ipv4 later fragment of icmp", frag(layers.IPProtocolICMPv4), false},
		{"not ip", []byte{0x00, 1, 2, 3}, false},
	})
}

// TestPortFilterDecodeAs: the ports --decode-as names (Options.TCPPorts)
// are kept over TCP, both ways and over IPv4 and IPv6; others still are not.
func TestPortFilterDecodeAs(t *testing.T) {
	vm := filterVM(t, LiveOptions{TCPPorts: []uint16{28015, 6633}}, 0)
	runFilter(t, vm, []filterCase{
		{"tcp4 to game port", frame(t, rawIP, plain, seg{false, 1, "PA", "x"}), true},
		{"tcp4 to 28015", tcp4(t, "10.0.0.1:28015", false), true},
		{"tcp4 from 6633", tcp4(t, "10.0.0.1:6633", true), true},
		{"tcp6 to 28015", tcp6(t, "[2001:db8::1]:28015", false), true},
		{"tcp6 from 6633", tcp6(t, "[2001:db8::1]:6633", true), true},
		{"tcp4 other port", tcp4(t, "10.0.0.1:80", false), false},
		{"tcp6 other port", tcp6(t, "[2001:db8::1]:443", false), false},
		// TCP ports are not UDP ports.
		{"udp4 to 28015", udp4(t, "10.0.0.2:5000", "10.0.0.1:28015"), false},
	})
}

// TestPortFilterDatagramPorts: UDP on Options.DatagramPorts (ULinkRPC's
// KCP, ulinkrpc.md 2.3) is kept both ways over IPv4 and IPv6, beside the
// game and query ports; not over TCP, and no other UDP.
func TestPortFilterDatagramPorts(t *testing.T) {
	var opt LiveOptions
	opt.DatagramPorts = [4]uint16{20000, 20001}
	vm := filterVM(t, opt, 0)
	runFilter(t, vm, []filterCase{
		{"udp4 to 20000", udp4(t, "10.0.0.2:5000", "10.0.0.1:20000"), true},
		{"udp4 from 20001", udp4(t, "10.0.0.1:20001", "10.0.0.2:5000"), true},
		{"udp6 to 20001", udp6(t, mustAP("[2001:db8::2]:5000"), mustAP("[2001:db8::1]:20001")), true},
		{"udp6 from 20000", udp6(t, mustAP("[2001:db8::1]:20000"), mustAP("[2001:db8::2]:5000")), true},
		{"udp4 game port", udp4(t, "10.0.0.2:5000", "10.0.0.1:27016"), true},
		{"udp4 query port", udp4(t, "10.0.0.2:5000", "10.0.0.1:27015"), true},
		{"udp4 other", udp4(t, "10.0.0.2:5000", "10.0.0.1:20002"), false},
		{"udp6 other", udp6(t, mustAP("[2001:db8::2]:5000"), mustAP("[2001:db8::1]:53")), false},
		{"tcp4 to 20000", tcp4(t, "10.0.0.1:20000", false), false},
	})
}

// TestPortFilterAll: probing other UDP flows (Options.ProbeDatagrams) keeps
// all UDP, AllTCP all TCP; each leaves the other protocol to its ports.
func TestPortFilterAll(t *testing.T) {
	var probe LiveOptions
	probe.ProbeDatagrams = 2
	runFilter(t, filterVM(t, probe, 0), []filterCase{
		{"udp4 other", udp4(t, "10.0.0.2:5000", "10.0.0.1:53"), true},
		{"udp6 other", udp6(t, mustAP("[2001:db8::2]:5000"), mustAP("[2001:db8::1]:9")), true},
		{"tcp4 other port", tcp4(t, "10.0.0.1:80", false), false},
		{"tcp4 to game port", frame(t, rawIP, plain, seg{false, 1, "PA", "x"}), true},
	})
	runFilter(t, filterVM(t, LiveOptions{AllTCP: true}, 0), []filterCase{
		{"tcp4 other port", tcp4(t, "10.0.0.1:80", false), true},
		{"tcp6 other port", tcp6(t, "[2001:db8::1]:443", true), true},
		{"udp4 other", udp4(t, "10.0.0.2:5000", "10.0.0.1:53"), false},
		{"udp4 game port", udp4(t, "10.0.0.2:5000", "10.0.0.1:27016"), true},
		{"not ip", []byte{0x00, 1, 2, 3}, false},
	})
}

// TestPortFilterManyPorts: a long port list still assembles (every
// conditional jump within classic BPF's reach of 255) and keeps exactly
// its ports, the last one included; past maxFilterPorts the filter keeps
// all of that protocol rather than fail.
func TestPortFilterManyPorts(t *testing.T) {
	var ports []uint16
	for p := uint16(30000); p < 30000+maxFilterPorts-1; p++ {
		ports = append(ports, p)
	}
	last := ports[len(ports)-1]
	vm := filterVM(t, LiveOptions{TCPPorts: ports}, 0)
	runFilter(t, vm, []filterCase{
		{"tcp4 to the first port", tcp4(t, "10.0.0.1:30000", false), true},
		{"tcp6 from the last port", tcp6(t, fmt.Sprintf("[2001:db8::1]:%d", last), true), true},
		{"tcp4 past the last port", tcp4(t, fmt.Sprintf("10.0.0.1:%d", last+1), false), false},
		{"udp4 on a TCP port", udp4(t, "10.0.0.2:5000", "10.0.0.1:30000"), false},
	})
	if k := kernelPorts(LiveOptions{TCPPorts: ports}); k.allTCP || len(k.tcp) != maxFilterPorts {
		t.Errorf("kernelPorts(%d TCP ports and the game port) = all %v, %d ports; want the %d ports checked", len(ports), k.allTCP, len(k.tcp), maxFilterPorts)
	}
	more := append(ports, last+1)
	if k := kernelPorts(LiveOptions{TCPPorts: more}); !k.allTCP {
		t.Errorf("kernelPorts(%d TCP ports) = %d ports checked; want all TCP kept past %d", len(more)+1, len(k.tcp), maxFilterPorts)
	}
	runFilter(t, filterVM(t, LiveOptions{TCPPorts: more}, 0), []filterCase{
		{"tcp4 anywhere", tcp4(t, "10.0.0.1:80", false), true},
	})
}

// TestKernelPorts: the kept ports are the defaults' and the options',
// without repeats or zeros.
func TestKernelPorts(t *testing.T) {
	var opt LiveOptions
	opt.TransportPort = 27016
	opt.DatagramPorts = [4]uint16{20000, 27016, 0, 20000}
	opt.TCPPorts = []uint16{20000, 27016, 20000}
	k := kernelPorts(opt)
	if got, want := fmt.Sprint(k.tcp, k.udp, k.allTCP, k.allUDP), "[27016 20000] [27016 27015 20000] false false"; got != want {
		t.Errorf("kernelPorts(%+v) = %s; want %s", opt, got, want)
	}
}
