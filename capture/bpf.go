package capture

import (
	"fmt"
	"math"
	"slices"

	"github.com/gopacket/gopacket/layers"
	"golang.org/x/net/bpf"
)

// The kernel filter runs on cooked (SOCK_DGRAM) packets, which start at the
// IP header. It is `tcp port (P or T…) or udp port (P or Q or U…)` for IPv4
// and IPv6 (after up to maxIP6Ext extension headers, first fragments only,
// as ip6Ext in link.go follows them), keeping snap bytes of what matches: P
// the transport port, Q the query port, T LiveOptions.TCPPorts, U
// Options.DatagramPorts (kernelPorts). A consumer that looks at every UDP
// flow (Options.ProbeDatagrams) gets all UDP, one that finds TCP by
// content (LiveOptions.AllTCP) all TCP. A later IPv4 fragment of TCP or UDP
// carries no ports, so every one is kept for the engine to join with its
// first fragment (frag.go); those of other ports never complete and expire
// there.
//
// Every conditional jump goes at most a few dozen instructions forward
// (classic BPF's reach is 255): the port lists, of any length, are checked
// last, each match returning on the spot, and reached by unconditional
// jumps.

// prog assembles classic BPF with symbolic jump targets.
type prog struct {
	ins    []bpf.Instruction
	labels map[string]int
	jumps  []jump
}

type jump struct {
	at      int
	always  bool // an unconditional jump to yes
	cond    bpf.JumpTest
	val     uint32
	yes, no string // "" falls through
}

func (p *prog) op(i bpf.Instruction) { p.ins = append(p.ins, i) }

func (p *prog) label(name string) { p.labels[name] = len(p.ins) }

func (p *prog) jif(cond bpf.JumpTest, val uint32, yes, no string) {
	p.jumps = append(p.jumps, jump{at: len(p.ins), cond: cond, val: val, yes: yes, no: no})
	p.ins = append(p.ins, nil)
}

// jmp jumps to a label unconditionally.
func (p *prog) jmp(to string) {
	p.jumps = append(p.jumps, jump{at: len(p.ins), always: true, yes: to})
	p.ins = append(p.ins, nil)
}

func (p *prog) assemble() []bpf.RawInstruction {
	// Jumps go forward, a conditional one by at most 255 instructions: the
	// program is fixed, so a jump out of reach is a bug in this file.
	skip := func(from int, to string, most int) int {
		if to == "" {
			return 0
		}
		n, ok := p.labels[to]
		if !ok || n <= from || n-from-1 > most {
			panic(fmt.Sprintf("capture: bpf: jump from %d to %q (%d) out of reach", from, to, n))
		}
		return n - from - 1
	}
	cond := func(from int, to string) uint8 { return uint8(skip(from, to, 255)) }
	for _, j := range p.jumps {
		if j.always {
			p.ins[j.at] = bpf.Jump{Skip: uint32(skip(j.at, j.yes, math.MaxInt32))}
			continue
		}
		p.ins[j.at] = bpf.JumpIf{Cond: j.cond, Val: j.val, SkipTrue: cond(j.at, j.yes), SkipFalse: cond(j.at, j.no)}
	}
	raw, err := bpf.Assemble(p.ins)
	if err != nil {
		// The program is fixed; an error is a bug in this file.
		panic("capture: bpf: " + err.Error())
	}
	return raw
}

// packetOutgoing is the kernel's PACKET_OUTGOING packet type.
const packetOutgoing = 4

// loopbackOnce drops the outgoing copy of packets on the loopback interface
// lo (an interface index; 0 when unknown), which AF_PACKET delivers once
// leaving and once arriving (libpcap drops it the same way).
func loopbackOnce(p *prog, lo int) {
	if lo <= 0 {
		return
	}
	p.op(bpf.LoadExtension{Num: bpf.ExtType})
	p.jif(bpf.JumpEqual, packetOutgoing, "", "start")
	p.op(bpf.LoadExtension{Num: bpf.ExtInterfaceIndex})
	p.jif(bpf.JumpEqual, uint32(lo), "", "start")
	p.op(bpf.RetConstant{Val: 0})
	p.label("start")
}

// keptPorts are the ports the kernel filter keeps, or all of a protocol.
type keptPorts struct {
	tcp, udp       []uint16
	allTCP, allUDP bool
}

// maxFilterPorts bounds the ports checked per protocol; past it the filter
// keeps all of that protocol (4 instructions a port, within classic BPF's
// 4096 for both protocols).
const maxFilterPorts = 256

// kernelPorts are the ports opt's consumer needs: TCP on the transport port
// and TCPPorts, UDP on the transport, query and datagram ports; all UDP
// when other UDP flows are probed (Options.ProbeDatagrams), since a flow's
// first datagram may come on any port; all TCP with AllTCP.
func kernelPorts(opt LiveOptions) keptPorts {
	o := opt.withDefaults()
	k := keptPorts{allTCP: opt.AllTCP, allUDP: o.ProbeDatagrams > 0}
	k.tcp = portSet(append([]uint16{o.TransportPort}, opt.TCPPorts...))
	k.udp = portSet(append([]uint16{o.TransportPort, o.QueryPort}, o.DatagramPorts[:]...))
	if len(k.tcp) > maxFilterPorts {
		k.allTCP = true
	}
	if len(k.udp) > maxFilterPorts {
		k.allUDP = true
	}
	return k
}

// portSet is ports without 0 and repeats, in order of first appearance.
func portSet(ports []uint16) []uint16 {
	var out []uint16
	for _, p := range ports {
		if p != 0 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// portFilter returns the kernel filter keeping the ports k.
func portFilter(k keptPorts, snap, lo int) []bpf.RawInstruction {
	p := &prog{labels: map[string]int{}}
	loopbackOnce(p, lo)
	// version nibble
	p.op(bpf.LoadAbsolute{Off: 0, Size: 1})
	p.op(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: 0xf0})
	p.jif(bpf.JumpEqual, 0x40, "ip4", "")
	p.jif(bpf.JumpEqual, 0x60, "ip6", "")
	p.op(bpf.RetConstant{Val: 0})

	p.label("ip4")
	p.op(bpf.LoadAbsolute{Off: 6, Size: 2}) // flags + fragment offset
	p.jif(bpf.JumpBitsSet, 0x1fff, "later4", "")
	p.op(bpf.LoadMemShift{Off: 0}) // X = IPv4 header length
	p.op(bpf.LoadAbsolute{Off: 9, Size: 1})
	p.jif(bpf.JumpEqual, 6, "tcp4", "")
	p.jif(bpf.JumpEqual, 17, "udp4", "")
	p.op(bpf.RetConstant{Val: 0})
	p.label("tcp4")
	p.jmp("tcp")
	p.label("udp4")
	p.jmp("udp")
	p.label("later4")
	p.op(bpf.LoadAbsolute{Off: 9, Size: 1})
	p.jif(bpf.JumpEqual, 6, "keep4", "")
	p.jif(bpf.JumpEqual, 17, "keep4", "")
	p.op(bpf.RetConstant{Val: 0})
	p.label("keep4")
	p.op(bpf.RetConstant{Val: uint32(snap)})

	// IPv6: X is the offset of the header whose type A holds. Classic BPF
	// has no loops, so the extension headers are unrolled.
	p.label("ip6")
	p.op(bpf.LoadConstant{Dst: bpf.RegX, Val: 40})
	p.op(bpf.LoadAbsolute{Off: 6, Size: 1}) // next header
	for i := 0; i <= maxIP6Ext; i++ {
		ext, frag, next := fmt.Sprint("ext", i), fmt.Sprint("frag", i), fmt.Sprint("hdr", i+1)
		p.label(fmt.Sprint("hdr", i))
		p.jif(bpf.JumpEqual, 6, "tcp6", "")
		if i == maxIP6Ext {
			p.jif(bpf.JumpEqual, 17, "udp6", "drop6")
			break
		}
		p.jif(bpf.JumpEqual, 17, "udp6", "")
		p.jif(bpf.JumpEqual, uint32(layers.IPProtocolIPv6Fragment), frag, "")
		p.jif(bpf.JumpEqual, uint32(layers.IPProtocolIPv6HopByHop), ext, "")
		p.jif(bpf.JumpEqual, uint32(layers.IPProtocolIPv6Routing), ext, "")
		p.jif(bpf.JumpEqual, uint32(layers.IPProtocolIPv6Destination), ext, "drop6")
		// routing, destination options, hop-by-hop: (length+1)·8 bytes
		p.label(ext)
		p.op(bpf.LoadIndirect{Off: 0, Size: 1})
		p.op(bpf.StoreScratch{Src: bpf.RegA, N: 0})
		p.op(bpf.LoadIndirect{Off: 1, Size: 1})
		p.op(bpf.ALUOpConstant{Op: bpf.ALUOpAdd, Val: 1})
		p.op(bpf.ALUOpConstant{Op: bpf.ALUOpShiftLeft, Val: 3})
		p.op(bpf.ALUOpX{Op: bpf.ALUOpAdd})
		p.op(bpf.TAX{})
		p.op(bpf.LoadScratch{Dst: bpf.RegA, N: 0})
		p.jmp(next)
		// fragment: 8 bytes; a later fragment has no transport header
		p.label(frag)
		p.op(bpf.LoadIndirect{Off: 2, Size: 2})
		p.jif(bpf.JumpBitsSet, 0xfff8, "drop6", "")
		p.op(bpf.LoadIndirect{Off: 0, Size: 1})
		p.op(bpf.StoreScratch{Src: bpf.RegA, N: 0})
		p.op(bpf.TXA{})
		p.op(bpf.ALUOpConstant{Op: bpf.ALUOpAdd, Val: 8})
		p.op(bpf.TAX{})
		p.op(bpf.LoadScratch{Dst: bpf.RegA, N: 0})
		p.jmp(next)
	}
	p.label("drop6")
	p.op(bpf.RetConstant{Val: 0})
	p.label("tcp6")
	p.jmp("tcp")
	p.label("udp6")
	p.jmp("udp")

	// X is the offset of the TCP or UDP header, whose first two words are
	// the source and destination ports.
	p.label("tcp")
	portsKept(p, "tcp", k.tcp, k.allTCP, snap)
	p.label("udp")
	portsKept(p, "udp", k.udp, k.allUDP, snap)
	return p.assemble()
}

// portsKept keeps a TCP or UDP packet (X: its header's offset) whose
// source or destination port is one of ports, or any with all, and drops
// the rest. Each match returns at once: no jump reaches past the next
// instruction, however many ports there are.
func portsKept(p *prog, proto string, ports []uint16, all bool, snap int) {
	if all {
		p.op(bpf.RetConstant{Val: uint32(snap)})
		return
	}
	for _, off := range []uint32{0, 2} {
		p.op(bpf.LoadIndirect{Off: off, Size: 2})
		for i, port := range ports {
			miss := fmt.Sprint(proto, off, "miss", i)
			p.jif(bpf.JumpEqual, uint32(port), "", miss)
			p.op(bpf.RetConstant{Val: uint32(snap)})
			p.label(miss)
		}
	}
	p.op(bpf.RetConstant{Val: 0})
}

// acceptAll keeps every packet, cut to snap bytes.
func acceptAll(snap, lo int) []bpf.RawInstruction {
	p := &prog{labels: map[string]int{}}
	loopbackOnce(p, lo)
	p.op(bpf.RetConstant{Val: uint32(snap)})
	return p.assemble()
}
