package realnet

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// flowKey names a connection by its client end: the lab gives each
// connection its own client address and port.
type flowKey struct {
	udp    bool
	client netip.AddrPort
}

// connStats counts, per direction, what a connection's capture shows of
// the transport's repairs.
type connStats struct {
	next    [2]uint32 // TCP: the highest sequence number past captured data
	started [2]bool
	sns     [2]map[uint32]bool // KCP PUSH sns seen
	segs    [2]map[uint32]int  // TCP: captured segments' lengths by sequence number
	maxSn   [2]uint32
}

// splitCapture writes each connection's packets of the lab capture to a
// capture of its own (<name>.pcap in dir, the lab's link type and
// timestamps) and counts its packets, retransmissions and reordering.
func splitCapture(path, dir string, conns []*connRecord) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		return err
	}
	type out struct {
		c  *connRecord
		f  *os.File
		w  *pcapgo.Writer
		st connStats
	}
	outs := map[flowKey]*out{}
	defer func() {
		for _, o := range outs {
			o.f.Close()
		}
	}()
	for _, c := range conns {
		ap, err := netip.ParseAddrPort(c.Client)
		if err != nil {
			return err
		}
		c.File = strings.ReplaceAll(c.name(), "/", "-") + ".pcap"
		of, err := os.Create(filepath.Join(dir, c.File))
		if err != nil {
			return err
		}
		w := pcapgo.NewWriterNanos(of)
		if err := w.WriteFileHeader(r.Snaplen(), r.LinkType()); err != nil {
			of.Close()
			return err
		}
		outs[flowKey{c.UDP, ap}] = &out{c: c, f: of, w: w}
	}
	for {
		data, ci, err := r.ReadPacketData()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// tcpdump killed mid-write leaves a cut last record.
			if errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		p := gopacket.NewPacket(data, r.LinkType(), gopacket.DecodeOptions{Lazy: true, NoCopy: true})
		ip, _ := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
		if ip == nil {
			continue
		}
		src, _ := netip.AddrFromSlice(ip.SrcIP.To4())
		dst, _ := netip.AddrFromSlice(ip.DstIP.To4())
		var sp, dp uint16
		var udp bool
		var payload []byte
		var seq uint32
		var fin bool
		switch l := p.TransportLayer().(type) {
		case *layers.TCP:
			sp, dp, payload, seq = uint16(l.SrcPort), uint16(l.DstPort), l.Payload, l.Seq
			if l.SYN {
				seq++
			}
			fin = l.FIN
		case *layers.UDP:
			sp, dp, payload, udp = uint16(l.SrcPort), uint16(l.DstPort), l.Payload, true
		default:
			continue
		}
		d := 0 // c2s
		o := outs[flowKey{udp, netip.AddrPortFrom(src, sp)}]
		if o == nil {
			d = 1
			o = outs[flowKey{udp, netip.AddrPortFrom(dst, dp)}]
		}
		if o == nil {
			continue
		}
		if err := o.w.WritePacket(ci, data); err != nil {
			return err
		}
		o.c.Packets++
		st := &o.st
		if !udp {
			if fin {
				o.c.Fins[d] = true
			}
			switch {
			case !st.started[d]:
				st.started[d], st.next[d] = true, seq+uint32(len(payload))
			case len(payload) > 0 && int32(seq-st.next[d]) < 0:
				o.c.Retrans++
				if int32(seq+uint32(len(payload))-st.next[d]) > 0 {
					o.c.Overlap++
				}
				if l, ok := st.segs[d][seq]; !ok || l != len(payload) {
					o.c.Reseg++
				}
			}
			if len(payload) > 0 {
				if st.segs[d] == nil {
					st.segs[d] = map[uint32]int{}
				}
				st.segs[d][seq] = len(payload)
			}
			if end := seq + uint32(len(payload)); int32(end-st.next[d]) > 0 {
				st.next[d] = end
			}
			continue
		}
		if _, ok := ulinkrpc.ParseHandshake(payload); ok {
			continue
		}
		segs, _ := kcp.ParseDatagram(payload)
		for _, s := range segs {
			if s.Cmd != kcp.CmdPush {
				continue
			}
			if s.Frg > 0 {
				o.c.Fragmented++
			}
			if st.sns[d] == nil {
				st.sns[d] = map[uint32]bool{}
			}
			switch {
			case st.sns[d][s.Sn]:
				o.c.Retrans++
			case s.Sn < st.maxSn[d]:
				o.c.Reordered++
			}
			st.sns[d][s.Sn] = true
			st.maxSn[d] = max(st.maxSn[d], s.Sn)
		}
	}
	return nil
}
