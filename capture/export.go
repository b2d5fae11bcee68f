package capture

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Exporting a selection of messages (the TUI's w, dump -w) is two reads
// of the capture file, with the protocol knowledge between them kept out
// of this package: ReadFlows gives the connections' bytes (each TCP
// direction's stream by sequence number, each UDP datagram); the caller
// decides which stream bytes to keep and what each datagram becomes (a
// Trim), and Flows.Export writes the packets again with only those bytes
// (docs/cli.md "Writing a selection"):
//   - a TCP connection keeps its SYN, SYN-ACK and the ACK that completes
//     the handshake, and its FIN and RST packets; every other packet keeps
//     the kept bytes of its payload and is dropped when none is left; the
//     sequence and acknowledgement numbers are renumbered so that each
//     direction's stream is the kept bytes, without holes but those the
//     capture had: kept bytes that no packet carried (a capture gap the
//     caller keeps) stay a sequence jump, and then every packet of the
//     connection is written, those left without bytes as bare ACKs, so
//     that a re-read gives the gap up at the same packet;
//   - a UDP datagram of a listed flow becomes the payload the Trim gives,
//     or is dropped;
//   - packets of connections not listed are not written.
//
// A packet keeps its time, its link header and its IP header (lengths
// and checksums made again).

// ExportFlow names a connection of the capture to read or write.
type ExportFlow struct {
	Flow Flow // client → server
	// UDP: the connection is datagrams (KCP): every UDP datagram from or
	// to Flow.Client belongs to it, whatever the server port (a KCP
	// session may move to another port).
	UDP bool
}

// Datagram is one UDP datagram of an ExportFlow.
type Datagram struct {
	Frame      int
	Time       time.Time
	FromServer bool
	Payload    []byte
}

// FlowData is what ReadFlows read of one connection.
type FlowData struct {
	// Stream holds the client→server and server→client bytes of a TCP
	// connection at their offset from the first byte after the SYN (or
	// from the first byte seen when the SYN was not captured); bytes not
	// captured are zero.
	Stream    [2][]byte
	Datagrams []Datagram
	base      [2]uint32
	known     [2]bool
	// got holds, per direction, the stream ranges some packet carried
	// (sorted, disjoint once ReadFlows returns): the rest of Stream is
	// bytes the capture lost.
	got [2][]Range
}

// Captured reports whether every byte of [from, to) of direction dir (0
// client→server, 1 server→client) was carried by a captured packet: a
// lost byte reads as zero in Stream, and a message placed over one could
// not be written again (issue 30: transport-mess lost the first byte of a
// length header, which is zero in that copy and in the next one alike).
func (d *FlowData) Captured(dir int, from, to int64) bool {
	if from >= to {
		return true
	}
	g := d.got[dir]
	i := sort.Search(len(g), func(i int) bool { return g[i].To > from })
	return i < len(g) && g[i].From <= from && g[i].To >= to
}

// Range is a half-open range of stream offsets.
type Range struct{ From, To int64 }

// Trim is what Flows.Export keeps.
type Trim struct {
	// Streams gives, per TCP connection, the stream bytes to keep in each
	// direction (0 client→server, 1 server→client): sorted, disjoint.
	Streams map[Flow][2][]Range
	// Datagrams gives the new payload of a UDP datagram by its frame
	// number; a datagram of a UDP flow that is not here is dropped.
	Datagrams map[int][]byte
}

// Flows is the result of ReadFlows: the connections asked for, read.
type Flows struct {
	path  string
	flows []ExportFlow
	Data  map[Flow]*FlowData
}

// maxExportStream bounds one direction's stream held by ReadFlows.
const maxExportStream = 1 << 30

// ReadFlows reads the connections flows of the capture file at path.
func ReadFlows(path string, flows []ExportFlow) (*Flows, error) {
	fs := &Flows{path: path, flows: flows, Data: map[Flow]*FlowData{}}
	for _, f := range flows {
		fs.Data[f.Flow] = &FlowData{}
	}
	err := fs.each(func(p *exportPacket) error {
		d := fs.Data[p.flow]
		if p.udp != nil {
			d.Datagrams = append(d.Datagrams, Datagram{Frame: p.frame, Time: p.ci.Timestamp, FromServer: p.dir == 1, Payload: append([]byte(nil), p.udp.Payload...)})
			return nil
		}
		off, ok := d.track(p)
		if !ok || len(p.tcp.Payload) == 0 || off < 0 {
			return nil
		}
		end := off + int64(len(p.tcp.Payload))
		if end > maxExportStream {
			return fmt.Errorf("export: %s: a stream of %s longer than %d bytes", path, p.flow, maxExportStream)
		}
		s := d.Stream[p.dir]
		if int64(len(s)) < end {
			s = append(s, make([]byte, end-int64(len(s)))...)
		}
		copy(s[off:], p.tcp.Payload)
		d.Stream[p.dir] = s
		if g := d.got[p.dir]; len(g) > 0 && g[len(g)-1].From <= off && off <= g[len(g)-1].To {
			g[len(g)-1].To = max(g[len(g)-1].To, end) // the usual case: in order
		} else {
			d.got[p.dir] = append(g, Range{From: off, To: end})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, d := range fs.Data {
		for i := range d.got {
			d.got[i] = JoinRanges(d.got[i])
		}
	}
	return fs, nil
}

// track follows a TCP packet's direction: the base its sequence numbers
// count from, and the packet's payload offset.
func (d *FlowData) track(p *exportPacket) (int64, bool) {
	t := p.tcp
	if t.SYN {
		d.base[p.dir], d.known[p.dir] = t.Seq+1, true
		return 0, false
	}
	if !d.known[p.dir] {
		if len(t.Payload) == 0 && !t.FIN {
			return 0, false
		}
		d.base[p.dir], d.known[p.dir] = t.Seq, true
	}
	return int64(int32(t.Seq - d.base[p.dir])), true
}

// keepsLost reports whether the kept ranges r of direction dir hold a byte
// the capture lost.
func (d *FlowData) keepsLost(dir int, r []Range) bool {
	for _, x := range r {
		if !d.Captured(dir, x.From, x.To) {
			return true
		}
	}
	return false
}

// Lost returns the ranges of direction dir's stream that no captured
// packet carried (sorted, disjoint), up to the last byte captured.
func (d *FlowData) Lost(dir int) []Range {
	var out []Range
	at := int64(0)
	for _, g := range d.got[dir] {
		if g.From > at {
			out = append(out, Range{From: at, To: g.From})
		}
		at = max(at, g.To)
	}
	return out
}

// JoinRanges sorts rs and merges the ranges that overlap or touch.
func JoinRanges(rs []Range) []Range {
	sort.Slice(rs, func(i, j int) bool { return rs[i].From < rs[j].From })
	var out []Range
	for _, r := range rs {
		if n := len(out); n > 0 && r.From <= out[n-1].To {
			out[n-1].To = max(out[n-1].To, r.To)
			continue
		}
		out = append(out, r)
	}
	return out
}

// kept is one direction's kept ranges with their running totals.
type kept struct {
	r   []Range
	sum []int64 // sum[i]: kept bytes before r[i]
}

func newKept(r []Range) kept {
	k := kept{r: r, sum: make([]int64, len(r)+1)}
	for i, x := range r {
		k.sum[i+1] = k.sum[i] + x.To - x.From
	}
	return k
}

// at maps an offset of the captured stream to the trimmed one: the kept
// bytes before it.
func (k kept) at(off int64) int64 {
	i := sort.Search(len(k.r), func(i int) bool { return k.r[i].To > off })
	if i == len(k.r) {
		return k.sum[len(k.r)]
	}
	return k.sum[i] + max(0, off-k.r[i].From)
}

// cut returns the kept bytes of payload, which starts at off.
func (k kept) cut(off int64, payload []byte) []byte {
	var out []byte
	end := off + int64(len(payload))
	i := sort.Search(len(k.r), func(i int) bool { return k.r[i].To > off })
	for ; i < len(k.r) && k.r[i].From < end; i++ {
		a, b := max(k.r[i].From, off), min(k.r[i].To, end)
		out = append(out, payload[a-off:b-off]...)
	}
	return out
}

// Export writes to path a pcapng of the flows' packets, trimmed by t, and
// returns how many packets it wrote.
func (fs *Flows) Export(t Trim, path string) (int, error) {
	ks := map[Flow]*[2]kept{}
	jumps := map[Flow]bool{} // the flows whose written streams keep a capture gap
	for f, r := range t.Streams {
		ks[f] = &[2]kept{newKept(r[0]), newKept(r[1])}
		if d := fs.Data[f]; d != nil && (d.keepsLost(0, r[0]) || d.keepsLost(1, r[1])) {
			jumps[f] = true
		}
	}
	fresh := map[Flow]*FlowData{}
	acked := map[Flow]bool{}
	_, link, c, err := openPackets(fs.path)
	if err != nil {
		return 0, err
	}
	c.Close()
	var out bytes.Buffer
	w, err := pcapgo.NewNgWriter(&out, link)
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	n := 0
	write := func(ci gopacket.CaptureInfo, data []byte) error {
		ci.InterfaceIndex, ci.CaptureLength, ci.Length = 0, len(data), len(data)
		n++
		return w.WritePacket(ci, data)
	}
	err = fs.each(func(p *exportPacket) error {
		if p.udp != nil {
			payload, ok := t.Datagrams[p.frame]
			if !ok {
				return nil
			}
			data, err := p.rebuild(payload)
			if err != nil {
				return err
			}
			return write(p.ci, data)
		}
		d := fresh[p.flow]
		if d == nil {
			d = &FlowData{}
			fresh[p.flow] = d
		}
		off, ok := d.track(p)
		k := ks[p.flow]
		tc := p.tcp
		if k == nil {
			return nil
		}
		if tc.SYN {
			return write(p.ci, p.data)
		}
		payload := tc.Payload
		if ok {
			if off < 0 {
				payload = nil
			} else {
				payload = k[p.dir].cut(off, tc.Payload)
			}
		}
		handshakeACK := p.dir == 0 && len(tc.Payload) == 0 && tc.ACK && !acked[p.flow] && d.known[1] && (!ok || off == 0)
		if len(payload) == 0 && !tc.FIN && !tc.RST && !handshakeACK && !jumps[p.flow] {
			return nil
		}
		acked[p.flow] = true
		seq, ack := tc.Seq, tc.Ack
		if ok && off >= 0 {
			seq = d.base[p.dir] + uint32(k[p.dir].at(off))
		}
		if tc.ACK && d.known[1-p.dir] {
			if aoff := int64(int32(tc.Ack - d.base[1-p.dir])); aoff >= 0 {
				ack = d.base[1-p.dir] + uint32(k[1-p.dir].at(aoff))
			}
		}
		if seq == tc.Seq && ack == tc.Ack && len(payload) == len(tc.Payload) {
			return write(p.ci, p.data)
		}
		tc.Seq, tc.Ack = seq, ack
		data, err := p.rebuild(payload)
		if err != nil {
			return err
		}
		return write(p.ci, data)
	})
	if err != nil {
		return 0, err
	}
	if err := w.Flush(); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	return n, nil
}

// exportPacket is one packet of a listed flow, decoded.
type exportPacket struct {
	frame int
	ci    gopacket.CaptureInfo
	data  []byte
	pkt   gopacket.Packet
	flow  Flow
	dir   int // 0 client→server, 1 server→client
	tcp   *layers.TCP
	udp   *layers.UDP
}

// each calls fn for every packet of the listed flows, in file order.
func (fs *Flows) each(fn func(*exportPacket) error) error {
	tcp := map[Flow]bool{}
	udp := map[netip.AddrPort]Flow{}
	for _, f := range fs.flows {
		if f.UDP {
			udp[f.Flow.Client] = f.Flow
		} else {
			tcp[f.Flow] = true
		}
	}
	read, link, closer, err := openPackets(fs.path)
	if err != nil {
		return err
	}
	defer closer.Close()
	for frame := 1; ; frame++ {
		data, ci, err := read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("export: %s frame %d: %w", fs.path, frame, err)
		}
		pkt := gopacket.NewPacket(data, link, gopacket.NoCopy)
		nl := pkt.NetworkLayer()
		if nl == nil {
			continue
		}
		src, _ := netip.AddrFromSlice(nl.NetworkFlow().Src().Raw())
		dst, _ := netip.AddrFromSlice(nl.NetworkFlow().Dst().Raw())
		p := &exportPacket{frame: frame, ci: ci, data: data, pkt: pkt}
		switch tl := pkt.TransportLayer().(type) {
		case *layers.TCP:
			a, b := netip.AddrPortFrom(src.Unmap(), uint16(tl.SrcPort)), netip.AddrPortFrom(dst.Unmap(), uint16(tl.DstPort))
			switch {
			case tcp[Flow{a, b}]:
				p.flow = Flow{a, b}
			case tcp[Flow{b, a}]:
				p.flow, p.dir = Flow{b, a}, 1
			default:
				continue
			}
			p.tcp = tl
		case *layers.UDP:
			a, b := netip.AddrPortFrom(src.Unmap(), uint16(tl.SrcPort)), netip.AddrPortFrom(dst.Unmap(), uint16(tl.DstPort))
			if f, ok := udp[a]; ok {
				p.flow = f
			} else if f, ok := udp[b]; ok {
				p.flow, p.dir = f, 1
			} else {
				continue
			}
			p.udp = tl
		default:
			continue
		}
		if err := fn(p); err != nil {
			return err
		}
	}
}

// rebuild writes the packet again with payload as its transport payload
// (and the TCP layer's fields as they are now): the link header as
// captured, the IP and transport headers serialized with their lengths and
// checksums made again.
func (p *exportPacket) rebuild(payload []byte) ([]byte, error) {
	var (
		ls     []gopacket.SerializableLayer
		prefix int
		netw   gopacket.NetworkLayer
	)
	inNet := false
	for _, l := range p.pkt.Layers() {
		switch l := l.(type) {
		case *layers.TCP:
			if err := l.SetNetworkLayerForChecksum(netw); err != nil {
				return nil, fmt.Errorf("export: frame %d: %w", p.frame, err)
			}
			ls = append(ls, l, gopacket.Payload(payload))
		case *layers.UDP:
			if err := l.SetNetworkLayerForChecksum(netw); err != nil {
				return nil, fmt.Errorf("export: frame %d: %w", p.frame, err)
			}
			ls = append(ls, l, gopacket.Payload(payload))
		case gopacket.NetworkLayer:
			inNet, netw = true, l
			sl, ok := l.(gopacket.SerializableLayer)
			if !ok {
				return nil, fmt.Errorf("export: frame %d: cannot write a %s header again", p.frame, l.LayerType())
			}
			ls = append(ls, sl)
		default:
			if !inNet {
				prefix += len(l.LayerContents())
				continue
			}
			sl, ok := l.(gopacket.SerializableLayer)
			if !ok {
				return nil, fmt.Errorf("export: frame %d: cannot write a %s header again", p.frame, l.LayerType())
			}
			ls = append(ls, sl)
		}
		if len(ls) > 0 {
			if _, ok := ls[len(ls)-1].(gopacket.Payload); ok {
				break
			}
		}
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		return nil, fmt.Errorf("export: frame %d: %w", p.frame, err)
	}
	return append(append([]byte(nil), p.data[:prefix]...), buf.Bytes()...), nil
}

// openPackets opens a pcap or pcapng file for reading packet by packet.
func openPackets(path string) (func() ([]byte, gopacket.CaptureInfo, error), layers.LinkType, io.Closer, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("export: %w", err)
	}
	br := bufio.NewReader(in)
	magic, err := br.Peek(4)
	if err != nil {
		in.Close()
		return nil, 0, nil, fmt.Errorf("export: %s: %w", path, err)
	}
	if bytes.Equal(magic, []byte{0x0a, 0x0d, 0x0d, 0x0a}) {
		r, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			in.Close()
			return nil, 0, nil, fmt.Errorf("export: %s: %w", path, err)
		}
		return r.ReadPacketData, r.LinkType(), in, nil
	}
	r, err := pcapgo.NewReader(br)
	if err != nil {
		in.Close()
		return nil, 0, nil, fmt.Errorf("export: %s: %w", path, err)
	}
	return r.ReadPacketData, r.LinkType(), in, nil
}

// ExportPath is the name the TUI's w offers: beside the capture, named
// for it (the views ask, and never replace a file without a yes).
func ExportPath(capture string) string {
	dir, base := filepath.Split(capture)
	for _, ext := range []string{".pcapng", ".pcap"} {
		if len(base) > len(ext) && strings.HasSuffix(base, ext) {
			base = strings.TrimSuffix(base, ext)
		}
	}
	return filepath.Join(dir, base+"-filtered.pcapng")
}
