// Command shapes writes the hostile capture shapes of issue 17 ("Bounded
// under attack") for bench/attack.sh. It is yardstick code, not product
// code: it writes the pcap bytes itself (classic pcap with microsecond
// timestamps, Ethernet/IPv4 to the game port; IPv4 header checksums are
// right, TCP and UDP checksums zero) and imports nothing from the
// repository, so that it builds while the product packages are being
// changed.
//
//	shapes -shape NAME -n N [-cycles K] -o FILE
//
// Shapes (N is the size parameter of each):
//
//	zero       after a handshake, N client packets of 1,100 bytes, each 100 ×
//	           (00 01 02 × 3 + 00 00): three 1-byte messages and one
//	           zero-length frame per cycle; -cycles K writes K cycles instead
//	           (100 to a packet, the last packet holding the rest)
//	gaps       after a handshake, N client packets of 6 bytes (00 01 02 00 01
//	           02), each starting one byte past the expected sequence number,
//	           3 s of capture time apart
//	a2s        N A2S_INFO replies from one UDP source (port 27015), the server
//	           name alternating between two values
//	ifaces     pcapng: N interface description blocks, each followed by one
//	           packet on it (a handshake, then 3-byte messages)
//	udp        one UDP datagram to port 27016 from each of N distinct source
//	           addresses and ports
//	partial    N handshaked flows, each sending ff ff and then 64,998 bytes in
//	           1,400-byte segments, round-robin over the flows, both
//	           directions
//	gzip       gzip-compressed: one flow of N packets of 00 01 02 × 21,000
//	frag       after a handshake, N client data segments of 100 × 00 01 02,
//	           each sent as three IPv4 fragments (every other datagram's in
//	           reverse order)
//
// The ULinkRPC shapes of issue 29 (the ULinkRPC port, 20000):
//
//	rpcgzip    one TCP flow of N frames [flags 01][gzip of a 64 MiB
//	           envelope of zeros], each about 65 KB (a gzip bomb under the
//	           per-frame inflate cap)
//	rpcgzipcap one TCP flow of N frames [flags 01][gzip of an envelope of
//	           1 MiB - 64 bytes], each about 1 KB: every frame inflates to
//	           just under the display cap (max_inflate), so each record
//	           keeps its envelope (records waiting to be printed, the TUI's
//	           kept records)
//	rpcpartial 8 TCP flows, each sending the length prefix of a frame of
//	           N MiB + 1,000 bytes and then N MiB of it, never completing
//	rpckcp     6 UDP flows of KCP, each 16 conversations holding N/16 MiB of
//	           segments (1,376 bytes each) behind a missing sn 1
//	config     not a capture: a schema TOML of one N-byte nested inline table
//	configkey  not a capture: a schema TOML of one N-byte dotted key
//
// One line on standard error says what was written, including the number
// of messages the data holds when framed whole (an upper bound on what a
// decoder indexes), which bench/attack.sh uses for the per-message index
// allowance of issue 17.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

const (
	gamePort  = 27016
	queryPort = 27015

	flagFIN = 0x01
	flagSYN = 0x02
	flagPSH = 0x08
	flagACK = 0x10

	snapLen   = 65535
	packetGap = 10 * time.Microsecond
)

var (
	macClient = []byte{0x02, 0, 0, 0, 0, 0x02}
	macServer = []byte{0x02, 0, 0, 0, 0, 0x01}
	server    = [4]byte{10, 0, 0, 1}
	client    = [4]byte{10, 0, 0, 2}
	start     = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
)

func main() {
	shape := flag.String("shape", "", "zero, gaps, a2s, ifaces, udp, partial, gzip, frag, rpcgzip, rpcgzipcap, rpcpartial, rpckcp, config or configkey")
	n := flag.Int("n", 0, "size: packets, replies, interfaces, peers, flows or segments (see the package comment)")
	cycles := flag.Int("cycles", 0, "zero only: write this many cycles instead of N packets of 100")
	out := flag.String("o", "", "output file")
	flag.Parse()
	if *shape == "" || *out == "" || *n <= 0 && *cycles <= 0 {
		fmt.Fprintln(os.Stderr, "usage: shapes -shape NAME -n N [-cycles K] -o FILE")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shapes:", err)
		os.Exit(1)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var w io.Writer = bw
	var gz *gzip.Writer
	if *shape == "gzip" {
		gz, _ = gzip.NewWriterLevel(bw, gzip.BestCompression)
		w = gz
	}
	g := &gen{w: w, now: start}
	switch *shape {
	case "zero":
		g.zero(*n, *cycles)
	case "gaps":
		g.gaps(*n)
	case "a2s":
		g.a2s(*n)
	case "ifaces":
		g.ifaces(*n)
	case "udp":
		g.udp(*n)
	case "partial":
		g.partial(*n)
	case "gzip":
		g.gzip(*n)
	case "frag":
		g.frag(*n)
	case "rpcgzip":
		g.rpcGzip(*n)
	case "rpcgzipcap":
		g.rpcGzipCap(*n)
	case "rpcpartial":
		g.rpcPartial(*n)
	case "rpckcp":
		g.rpcKCP(*n)
	case "config", "configkey":
		g.config(*shape, *n)
	default:
		fmt.Fprintf(os.Stderr, "shapes: unknown shape %q\n", *shape)
		os.Exit(2)
	}
	if gz != nil && g.err == nil {
		g.err = gz.Close()
	}
	if g.err == nil {
		g.err = bw.Flush()
	}
	if err := f.Close(); g.err == nil {
		g.err = err
	}
	if g.err != nil {
		fmt.Fprintln(os.Stderr, "shapes:", g.err)
		os.Exit(1)
	}
	st, _ := os.Stat(*out)
	fmt.Fprintf(os.Stderr, "shapes: %s: %s, %d packets, %d bytes of packets, %d messages when framed whole, file %d bytes\n",
		*out, *shape, g.packets, g.bytes, g.messages, st.Size())
}

// gen writes one capture. The first write error sticks and ends the
// output.
type gen struct {
	w        io.Writer
	now      time.Time
	buf, hdr []byte
	err      error
	ng       bool // pcapng, a new interface for every packet; else classic pcap
	started  bool
	packets  int64
	bytes    int64
	messages int64
}

func (g *gen) write(b []byte) {
	if g.err == nil {
		_, g.err = g.w.Write(b)
	}
}

// pcapHeader writes the classic pcap file header (microseconds, Ethernet).
func (g *gen) pcapHeader() {
	h := make([]byte, 0, 24)
	h = binary.LittleEndian.AppendUint32(h, 0xa1b2c3d4)
	h = binary.LittleEndian.AppendUint16(h, 2)
	h = binary.LittleEndian.AppendUint16(h, 4)
	h = binary.LittleEndian.AppendUint32(h, 0) // thiszone
	h = binary.LittleEndian.AppendUint32(h, 0) // sigfigs
	h = binary.LittleEndian.AppendUint32(h, snapLen)
	h = binary.LittleEndian.AppendUint32(h, 1) // LINKTYPE_ETHERNET
	g.write(h)
}

// pcapngHeader writes a pcapng section header block (little-endian,
// section length unknown, no options).
func (g *gen) pcapngHeader() {
	h := make([]byte, 0, 28)
	h = binary.LittleEndian.AppendUint32(h, 0x0a0d0d0a)
	h = binary.LittleEndian.AppendUint32(h, 28)
	h = binary.LittleEndian.AppendUint32(h, 0x1a2b3c4d)
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint16(h, 0)
	h = binary.LittleEndian.AppendUint64(h, ^uint64(0))
	h = binary.LittleEndian.AppendUint32(h, 28)
	g.write(h)
}

// ngPacket writes an interface description block (Ethernet, microsecond
// timestamps) and one enhanced packet block on that interface.
func (g *gen) ngPacket(frame []byte) {
	h := g.hdr[:0]
	h = binary.LittleEndian.AppendUint32(h, 1)
	h = binary.LittleEndian.AppendUint32(h, 20)
	h = binary.LittleEndian.AppendUint16(h, 1) // LINKTYPE_ETHERNET
	h = binary.LittleEndian.AppendUint16(h, 0)
	h = binary.LittleEndian.AppendUint32(h, snapLen)
	h = binary.LittleEndian.AppendUint32(h, 20)
	pad := (4 - len(frame)%4) % 4
	total := uint32(32 + len(frame) + pad)
	us := uint64(g.now.UnixMicro())
	h = binary.LittleEndian.AppendUint32(h, 6)
	h = binary.LittleEndian.AppendUint32(h, total)
	h = binary.LittleEndian.AppendUint32(h, uint32(g.packets)) // this packet's interface
	h = binary.LittleEndian.AppendUint32(h, uint32(us>>32))
	h = binary.LittleEndian.AppendUint32(h, uint32(us))
	h = binary.LittleEndian.AppendUint32(h, uint32(len(frame)))
	h = binary.LittleEndian.AppendUint32(h, uint32(len(frame)))
	g.hdr = h
	g.write(h)
	g.write(frame)
	var tail [8]byte
	binary.LittleEndian.PutUint32(tail[pad:], total)
	g.write(tail[:pad+4])
}

// packet writes one frame at the current time and advances the clock.
func (g *gen) packet(frame []byte) {
	if !g.started {
		g.started = true
		if g.ng {
			g.pcapngHeader()
		} else {
			g.pcapHeader()
		}
	}
	if g.ng {
		g.ngPacket(frame)
		g.packets++
		g.bytes += int64(len(frame))
		g.now = g.now.Add(packetGap)
		return
	}
	us := g.now.UnixMicro()
	h := g.hdr[:0]
	h = binary.LittleEndian.AppendUint32(h, uint32(us/1e6))
	h = binary.LittleEndian.AppendUint32(h, uint32(us%1e6))
	h = binary.LittleEndian.AppendUint32(h, uint32(len(frame)))
	h = binary.LittleEndian.AppendUint32(h, uint32(len(frame)))
	g.hdr = h
	g.write(h)
	g.write(frame)
	g.packets++
	g.bytes += int64(len(frame))
	g.now = g.now.Add(packetGap)
}

// ether appends an Ethernet header for IPv4.
func ether(b []byte, fromClient bool) []byte {
	src, dst := macClient, macServer
	if !fromClient {
		src, dst = dst, src
	}
	b = append(append(b, dst...), src...)
	return binary.BigEndian.AppendUint16(b, 0x0800)
}

// ipv4 appends an IPv4 header for a datagram (or fragment) of payload
// bytes: frag is the flags-and-offset field (0x4000 DF, 0x2000 MF, offset
// in 8-byte units).
func ipv4(b []byte, src, dst [4]byte, proto byte, id, frag uint16, payload int) []byte {
	ip := len(b)
	b = append(b, 0x45, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(20+payload))
	b = binary.BigEndian.AppendUint16(b, id)
	b = binary.BigEndian.AppendUint16(b, frag)
	b = append(b, 64, proto, 0, 0)
	b = append(append(b, src[:]...), dst[:]...)
	var sum uint32
	for i := ip; i < ip+20; i += 2 {
		sum += uint32(b[i])<<8 | uint32(b[i+1])
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	binary.BigEndian.PutUint16(b[ip+10:], ^uint16(sum))
	return b
}

// tcpHeader appends a 20-byte TCP header, checksum zero.
func tcpHeader(b []byte, sport, dport uint16, seq, ack uint32, flags byte) []byte {
	b = binary.BigEndian.AppendUint16(b, sport)
	b = binary.BigEndian.AppendUint16(b, dport)
	b = binary.BigEndian.AppendUint32(b, seq)
	b = binary.BigEndian.AppendUint32(b, ack)
	return append(b, 5<<4, flags, 0xff, 0xff, 0, 0, 0, 0)
}

// flow is one TCP connection from client:port to server:27016.
type flow struct {
	cli  [4]byte
	port uint16
	seq  [2]uint32 // next sequence number of the client (0) and server (1)
	id   [2]uint16
	srv  uint16 // the server's port; 0 is the game port
}

func newFlow(cli [4]byte, port uint16) *flow {
	return &flow{cli: cli, port: port, seq: [2]uint32{1000000, 2000000}}
}

// segment builds the frame of one segment from side d (0 client, 1
// server) with sequence number seq.
func (f *flow) segment(b []byte, d int, flags byte, seq uint32, payload []byte) []byte {
	src, dst, sport, dport := f.cli, server, f.port, uint16(gamePort)
	if f.srv != 0 {
		dport = f.srv
	}
	if d == 1 {
		src, dst, sport, dport = dst, src, dport, sport
	}
	ack := f.seq[1-d]
	if flags == flagSYN {
		ack = 0
	}
	b = ether(b, d == 0)
	b = ipv4(b, src, dst, 6, f.id[d], 0x4000, 20+len(payload))
	f.id[d]++
	b = tcpHeader(b, sport, dport, seq, ack, flags)
	return append(b, payload...)
}

// handshake writes SYN, SYN-ACK, ACK.
func (g *gen) handshake(f *flow) {
	g.buf = f.segment(g.buf[:0], 0, flagSYN, f.seq[0], nil)
	f.seq[0]++
	g.packet(g.buf)
	g.buf = f.segment(g.buf[:0], 1, flagSYN|flagACK, f.seq[1], nil)
	f.seq[1]++
	g.packet(g.buf)
	g.buf = f.segment(g.buf[:0], 0, flagACK, f.seq[0], nil)
	g.packet(g.buf)
}

// data writes payload from side d at the expected sequence number.
func (g *gen) data(f *flow, d int, payload []byte) {
	g.buf = f.segment(g.buf[:0], d, flagACK|flagPSH, f.seq[d], payload)
	f.seq[d] += uint32(len(payload))
	g.packet(g.buf)
}

// fin closes a flow from the client side.
func (g *gen) fin(f *flow) {
	g.buf = f.segment(g.buf[:0], 0, flagFIN|flagACK, f.seq[0], nil)
	f.seq[0]++
	g.packet(g.buf)
	g.buf = f.segment(g.buf[:0], 1, flagFIN|flagACK, f.seq[1], nil)
	f.seq[1]++
	g.packet(g.buf)
	g.buf = f.segment(g.buf[:0], 0, flagACK, f.seq[0], nil)
	g.packet(g.buf)
}

// repeat returns unit n times.
func repeat(unit []byte, n int) []byte {
	b := make([]byte, 0, len(unit)*n)
	for range n {
		b = append(b, unit...)
	}
	return b
}

var oneByte = []byte{0x00, 0x01, 0x02} // a SystemSockets frame of one byte

// zero: 100 cycles of three 1-byte messages and a zero-length frame to a
// packet.
func (g *gen) zero(n, cycles int) {
	cycle := append(repeat(oneByte, 3), 0x00, 0x00)
	if cycles <= 0 {
		cycles = n * 100
	}
	f := newFlow(client, 40000)
	g.handshake(f)
	full := repeat(cycle, 100)
	for left := cycles; left > 0; left -= 100 {
		k := min(left, 100)
		g.data(f, 0, full[:k*len(cycle)])
		g.messages += 3 * int64(k)
	}
}

// gaps: each 6-byte packet starts one byte past the expected sequence
// number, 3 s apart.
func (g *gen) gaps(n int) {
	payload := append(append([]byte{}, oneByte...), oneByte...)
	f := newFlow(client, 40001)
	g.handshake(f)
	for range n {
		g.now = g.now.Add(3 * time.Second)
		f.seq[0]++ // the byte never sent
		g.data(f, 0, payload)
		g.messages += 2
	}
}

// a2sReply is a single-packet A2S_INFO reply (Valve's Server Queries)
// with the keywords that carry Unturned's transport tag.
func a2sReply(name string) []byte {
	b := []byte{0xff, 0xff, 0xff, 0xff, 'I', 17}
	for _, s := range []string{name, "PEI", "unturned", "Unturned"} {
		b = append(append(b, s...), 0)
	}
	b = binary.LittleEndian.AppendUint16(b, 0) // app ID
	b = append(b, 3, 24, 0, 'd', 'l', 0, 1)    // players, max, bots, type, environment, visibility, VAC
	b = append(append(b, "3.24.0.0"...), 0)
	b = append(b, 0x20) // extra data: keywords only
	return append(append(b, "<net>SystemSockets</net>,gm:survival"...), 0)
}

// udpFrame builds one UDP datagram's frame, checksum zero.
func udpFrame(b []byte, src, dst [4]byte, sport, dport uint16, id uint16, fromClient bool, payload []byte) []byte {
	b = ether(b, fromClient)
	b = ipv4(b, src, dst, 17, id, 0x4000, 8+len(payload))
	b = binary.BigEndian.AppendUint16(b, sport)
	b = binary.BigEndian.AppendUint16(b, dport)
	b = binary.BigEndian.AppendUint16(b, uint16(8+len(payload)))
	b = append(b, 0, 0)
	return append(b, payload...)
}

// a2s: N replies from server:27015, the name alternating.
func (g *gen) a2s(n int) {
	replies := [2][]byte{a2sReply("usmnscope bench server A"), a2sReply("usmnscope bench server B")}
	for i := range n {
		g.buf = udpFrame(g.buf[:0], server, client, queryPort, 50000, uint16(i), false, replies[i%2])
		g.packet(g.buf)
	}
}

// ifaces: pcapng, N interface description blocks each followed by one
// packet on it: a handshake, then one 1-byte message a packet.
func (g *gen) ifaces(n int) {
	g.ng = true
	f := newFlow(client, 40004)
	g.handshake(f)
	for g.packets < int64(n) {
		g.data(f, 0, oneByte)
		g.messages++
	}
}

// peer returns the i-th distinct client address and port: 60,000 ports to
// an address, addresses counting up from 172.16.0.0.
func peer(i int) ([4]byte, uint16) {
	a := 172<<24 | 16<<16 + uint32(i/60000)
	return [4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}, uint16(1024 + i%60000)
}

// udp: one datagram to the game port from each of N peers.
func (g *gen) udp(n int) {
	payload := []byte{0x20, 0, 0, 0, 0, 0, 0, 0}
	for i := range n {
		src, port := peer(i)
		g.buf = udpFrame(g.buf[:0], src, server, port, gamePort, uint16(i), true, payload)
		g.packet(g.buf)
	}
}

// partial: N flows, each side sending a frame header of 65,535 and then
// 64,998 bytes of it, in 1,400-byte segments, round-robin.
func (g *gen) partial(n int) {
	const total, seg = 2 + 64998, 1400
	stream := make([]byte, total)
	stream[0], stream[1] = 0xff, 0xff
	flows := make([]*flow, n)
	for i := range flows {
		src, port := peer(i)
		flows[i] = newFlow(src, port)
		g.handshake(flows[i])
	}
	for off := 0; off < total; off += seg {
		chunk := stream[off:min(off+seg, total)]
		for _, f := range flows {
			g.data(f, 0, chunk)
			g.data(f, 1, chunk)
		}
	}
}

// gzip: one flow of N packets of 21,000 1-byte messages (the output is
// gzip-compressed by main).
func (g *gen) gzip(n int) {
	payload := repeat(oneByte, 21000)
	f := newFlow(client, 40002)
	g.handshake(f)
	for range n {
		g.data(f, 0, payload)
		g.messages += 21000
	}
	g.fin(f)
}

// frag: N data segments of 100 1-byte messages, each IPv4 datagram cut
// into three fragments (104, 104 and 112 bytes of the 320-byte TCP
// segment); every other datagram's fragments are written last first.
func (g *gen) frag(n int) {
	payload := repeat(oneByte, 100)
	f := newFlow(client, 40003)
	g.handshake(f)
	var seg []byte
	cuts := []int{0, 104, 208, 20 + len(payload)}
	frames := make([][]byte, 3)
	for i := range n {
		seg = tcpHeader(seg[:0], f.port, gamePort, f.seq[0], f.seq[1], flagACK|flagPSH)
		seg = append(seg, payload...)
		f.seq[0] += uint32(len(payload))
		id := f.id[0]
		f.id[0]++
		for k := range 3 {
			fo := uint16(cuts[k] / 8)
			if k < 2 {
				fo |= 0x2000 // more fragments
			}
			b := ether(frames[k][:0], true)
			b = ipv4(b, f.cli, server, 6, id, fo, cuts[k+1]-cuts[k])
			frames[k] = append(b, seg[cuts[k]:cuts[k+1]]...)
		}
		if i%2 == 0 {
			for k := range 3 {
				g.packet(frames[k])
			}
		} else {
			for k := 2; k >= 0; k-- {
				g.packet(frames[k])
			}
		}
		g.messages += 100
	}
	g.fin(f)
}

// rpcPort is ULinkRPC's default port (the profile's [ulinkrpc] ports).
const rpcPort = 20000

// stream writes payload from the client of f in 1,400-byte segments.
func (g *gen) stream(f *flow, payload []byte) {
	for off := 0; off < len(payload); off += 1400 {
		g.data(f, 0, payload[off:min(off+1400, len(payload))])
	}
}

// rpcGzip: N frames [flags 01][gzip of 64 MiB of zeros] on one TCP flow.
func (g *gen) rpcGzip(n int) {
	var body bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&body, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	for range 64 {
		zw.Write(zero)
	}
	zw.Close()
	frame := binary.BigEndian.AppendUint32(nil, uint32(1+body.Len()))
	frame = append(frame, 0x01)
	frame = append(frame, body.Bytes()...)
	f := newFlow(client, 40003)
	f.srv = rpcPort
	g.handshake(f)
	for range n {
		g.stream(f, frame)
		g.messages++
	}
	g.fin(f)
}

// rpcGzipCap: one TCP flow of N frames each inflating to an envelope of
// 1 MiB - 64 bytes (a Request of zeros), just under the display cap.
func (g *gen) rpcGzipCap(n int) {
	env := make([]byte, 1<<20-64)
	env[0] = 1 // Request: type, request id, service, method, payload length
	binary.BigEndian.PutUint32(env[13:], uint32(len(env)-17))
	var body bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&body, gzip.BestCompression)
	zw.Write(env)
	zw.Close()
	frame := binary.BigEndian.AppendUint32(nil, uint32(1+body.Len()))
	frame = append(frame, 0x01)
	frame = append(frame, body.Bytes()...)
	f := newFlow(client, 40004)
	f.srv = rpcPort
	g.handshake(f)
	for range n {
		g.stream(f, frame)
		g.messages++
	}
	g.fin(f)
}

// rpcPartial: 8 TCP flows, each a frame of N MiB + 1,000 bytes of which N
// MiB arrive, round-robin.
func (g *gen) rpcPartial(n int) {
	size := n << 20
	flows := make([]*flow, 8)
	for i := range flows {
		src, port := peer(i)
		flows[i] = newFlow(src, port)
		flows[i].srv = rpcPort
		g.handshake(flows[i])
		g.data(flows[i], 0, binary.BigEndian.AppendUint32(nil, uint32(size+1000)))
	}
	chunk := make([]byte, 1400)
	for off := 0; off < size; off += len(chunk) {
		for _, f := range flows {
			g.data(f, 0, chunk[:min(len(chunk), size-off)])
		}
	}
}

// rpcKCP: 6 UDP flows, each 16 KCP conversations holding N/16 MiB of
// segments behind a missing sn 1 (sn 0 arrives, so each is started).
func (g *gen) rpcKCP(n int) {
	const convs, segLen = 16, 1376
	perConv := (n << 20) / convs / segLen
	data := make([]byte, segLen)
	seg := func(conv, sn uint32) []byte {
		b := binary.LittleEndian.AppendUint32(nil, conv)
		b = append(b, 81, 0) // PUSH, frg 0
		b = binary.LittleEndian.AppendUint16(b, 128)
		b = binary.LittleEndian.AppendUint32(b, sn) // ts
		b = binary.LittleEndian.AppendUint32(b, sn)
		b = binary.LittleEndian.AppendUint32(b, 0) // una
		b = binary.LittleEndian.AppendUint32(b, segLen)
		return append(b, data...)
	}
	id := uint16(0)
	for sn := uint32(0); sn < uint32(perConv)+2; sn++ {
		if sn == 1 {
			continue // the missing sn
		}
		for fl := range 6 {
			src, port := peer(fl)
			for c := range uint32(convs) {
				g.buf = udpFrame(g.buf[:0], src, server, port, rpcPort, id, true, seg(0x1000+c, sn))
				id++
				g.packet(g.buf)
			}
		}
	}
}

// config writes a hostile schema TOML of about n bytes instead of a
// capture: one nested inline table, or one dotted key.
func (g *gen) config(shape string, n int) {
	var b []byte
	if shape == "config" {
		depth := n / 4
		b = append(b, "[[listener]]\ntype = "...)
		b = append(b, bytes.Repeat([]byte("{a="), depth)...)
		b = append(b, '1')
		b = append(b, bytes.Repeat([]byte("}"), depth)...)
	} else {
		b = append(b, bytes.Repeat([]byte("a."), n/2)...)
		b = append(b, "b = 1"...)
	}
	b = append(b, '\n')
	g.write(b)
}
