package capture

import (
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// filterVM runs the kernel filter for game port 27016 and query port
// 27015, with a snap length of 1000, in x/net/bpf's VM.
func filterVM(t *testing.T) *bpf.VM {
	t.Helper()
	raw := portFilter(27016, 27015, 1000, 0)
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

func TestPortFilter(t *testing.T) {
	vm := filterVM(t)
	rawIP := frameOpts{link: layers.LinkTypeRaw}
	udp := func(src, dst string) []byte {
		s, d := mustAP(src), mustAP(dst)
		return udpFrame(t, s, d, []byte("q"))[14:] // drop the Ethernet header
	}
	frag := func(proto layers.IPProtocol) []byte {
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: proto, SrcIP: cli4.Addr().AsSlice(), DstIP: srv4.Addr().AsSlice(), FragOffset: 100}
		return serialize(t, rawIP, layers.EthernetTypeIPv4, 0, ip, gopacket.Payload("\x69\x88\x69\x88 not a tcp header"))
	}
	tests := []struct {
		name string
		pkt  []byte
		keep bool
	}{
		{"tcp4 to game port", frame(t, rawIP, plain, seg{false, 1, "PA", "x"}), true},
		{"tcp4 from game port", frame(t, rawIP, plain, seg{true, 1, "PA", "x"}), true},
		{"tcp6 to game port", frame(t, rawIP, conv{cli6, srv6}, seg{false, 1, "PA", "x"}), true},
		{"tcp6 from game port", frame(t, rawIP, conv{cli6, srv6}, seg{true, 1, "PA", "x"}), true},
		{"tcp4 other port", frame(t, rawIP, conv{cli4, mustAP("10.0.0.1:80")}, seg{false, 1, "PA", "x"}), false},
		{"tcp4 on query port", frame(t, rawIP, conv{cli4, mustAP("10.0.0.1:27015")}, seg{false, 1, "PA", "x"}), false},
		{"tcp6 other port", frame(t, rawIP, conv{cli6, mustAP("[2001:db8::1]:443")}, seg{false, 1, "PA", "x"}), false},
		{"udp4 game port", udp("10.0.0.2:5000", "10.0.0.1:27016"), true},
		{"udp4 query port reply", udp("10.0.0.1:27015", "10.0.0.2:5000"), true},
		{"udp4 query port", udp("10.0.0.2:5000", "10.0.0.1:27015"), true},
		{"udp4 other", udp("10.0.0.2:5000", "10.0.0.1:53"), false},
		{"ipv4 later fragment of tcp", frag(layers.IPProtocolTCP), true}, // no ports to judge: joined, then judged
		{"ipv4 later fragment of icmp", frag(layers.IPProtocolICMPv4), false},
		{"not ip", []byte{0x00, 1, 2, 3}, false},
	}
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

// TestPortFilterDecodeAs: the ports --decode-as names (Options.TCPPorts)
// are kept over TCP, both ways and over IPv4 and IPv6; others still are not.
func TestPortFilterDecodeAs(t *testing.T) {
	raw := portFilter(27016, 27015, 1000, 0, 28015, 6633)
	ins := make([]bpf.Instruction, len(raw))
	for i, r := range raw {
		ins[i] = r.Disassemble()
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatalf("NewVM: %v", err)
	}
	rawIP := frameOpts{link: layers.LinkTypeRaw}
	tests := []struct {
		name string
		pkt  []byte
		keep bool
	}{
		{"tcp4 to game port", frame(t, rawIP, plain, seg{false, 1, "PA", "x"}), true},
		{"tcp4 to 28015", frame(t, rawIP, conv{cli4, mustAP("10.0.0.1:28015")}, seg{false, 1, "PA", "x"}), true},
		{"tcp4 from 6633", frame(t, rawIP, conv{cli4, mustAP("10.0.0.1:6633")}, seg{true, 1, "PA", "x"}), true},
		{"tcp6 to 28015", frame(t, rawIP, conv{cli6, mustAP("[2001:db8::1]:28015")}, seg{false, 1, "PA", "x"}), true},
		{"tcp6 from 6633", frame(t, rawIP, conv{cli6, mustAP("[2001:db8::1]:6633")}, seg{true, 1, "PA", "x"}), true},
		{"tcp4 other port", frame(t, rawIP, conv{cli4, mustAP("10.0.0.1:80")}, seg{false, 1, "PA", "x"}), false},
		{"tcp6 other port", frame(t, rawIP, conv{cli6, mustAP("[2001:db8::1]:443")}, seg{false, 1, "PA", "x"}), false},
	}
	for _, tt := range tests {
		n, err := vm.Run(tt.pkt)
		if err != nil {
			t.Fatalf("%s: Run: %v", tt.name, err)
		}
		if got := n > 0; got != tt.keep {
			t.Errorf("filter(%s) = keep %v; want %v", tt.name, got, tt.keep)
		}
	}
}
