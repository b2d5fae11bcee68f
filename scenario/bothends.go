package scenario

import (
	"cmp"
	"io"
	"math/rand/v2"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// BothEnds plays a session's packets as its two ends capture them (issue
// 27): the client's host on the true clock, the server's on a clock
// Offset ahead that runs DriftPPM parts per million fast, over a path of
// Delay plus 0..Jitter each way that keeps each direction's order. Every
// LossEvery-th client data segment (0: none) is lost on the path and sent
// again Retransmit later: the client's capture has both, the server's only
// the second. With DropLastServerSegment the client's capture misses the
// server's last data segment (the capture lost it). The same input and
// Seed give the same captures.
type BothEnds struct {
	Offset                time.Duration
	DriftPPM              float64
	Delay, Jitter         time.Duration
	LossEvery             int
	Retransmit            time.Duration
	DropLastServerSegment bool
	// Stretch multiplies the time between packets (0 or 1: as given), so
	// that a load capture's session lasts long enough for the drift to
	// show.
	Stretch int64
	Seed    uint64
	// NAT, when valid, is the address a NAT between the ends gives the
	// client's UDP flows: the server's capture sees each UDP client end
	// as NAT's address with the client's port plus NAT's port (a KCP
	// conversation then has a different 4-tuple at each end). TCP is
	// not rewritten.
	NAT netip.AddrPort
	// DropInClient, when not 0, is the packet (its index from 1 in the
	// packets given) the client's capture lacks instead of the server's
	// last data segment (a datagram protocol's last one may carry no
	// message).
	DropInClient int
}

// BothEndsTruth is what BothEnds did, by the index (from 1) of each packet
// it was given: the time its sender sent it and the time its receiver's
// TCP delivered its bytes (after any earlier segment of the direction:
// a loss holds up those behind it), on the true clock, ns since the epoch.
type BothEndsTruth struct {
	Sent, Delivered map[int]int64
	// ServerFirst is the true time of the server capture's first packet;
	// LostInClient the packet the client capture lacks (0: none).
	ServerFirst  int64
	LostInClient int
	t0           int64
	offset       int64
	drift        float64
}

// ServerClock is the server host's clock reading at true time t.
func (tr *BothEndsTruth) ServerClock(t int64) int64 {
	return t + tr.offset + int64(tr.drift*float64(t-tr.t0))
}

// Split returns the client's and the server's captures of ps (a
// scenario's packets in capture order on the link lt, the server on TCP
// or UDP port serverPort), each in its own time order, and the truth. A
// UDP datagram is delivered when it arrives (no order is kept across
// datagrams); a lost one is sent again as TCP segments are.
func (b BothEnds) Split(ps []Packet, lt layers.LinkType, serverPort uint16) (client, server []Packet, tr *BothEndsTruth) {
	tr = &BothEndsTruth{Sent: map[int]int64{}, Delivered: map[int]int64{}, offset: int64(b.Offset), drift: b.DriftPPM * 1e-6}
	if len(ps) == 0 {
		return nil, nil, tr
	}
	stretch := max(b.Stretch, 1)
	tr.t0 = ps[0].Time.UnixNano()
	type info struct {
		c2s, data bool
		udp       bool
		port      uint16 // the client's: the connection
	}
	infos := make([]info, len(ps))
	lastS2C := -1
	for k, p := range ps {
		pk := gopacket.NewPacket(p.Data, lt, gopacket.NoCopy)
		if tc, ok := pk.Layer(layers.LayerTypeTCP).(*layers.TCP); ok {
			in := info{c2s: uint16(tc.DstPort) == serverPort, data: len(tc.Payload) > 0, port: uint16(tc.SrcPort)}
			if !in.c2s {
				in.port = uint16(tc.DstPort)
			}
			infos[k] = in
			if in.data && !in.c2s {
				lastS2C = k
			}
		} else if u, ok := pk.Layer(layers.LayerTypeUDP).(*layers.UDP); ok {
			in := info{c2s: uint16(u.DstPort) == serverPort, data: len(u.Payload) > 0, udp: true, port: uint16(u.SrcPort)}
			if !in.c2s {
				in.port = uint16(u.DstPort)
			}
			infos[k] = in
			if in.data && !in.c2s {
				lastS2C = k
			}
		}
	}
	if b.DropLastServerSegment && lastS2C >= 0 {
		tr.LostInClient = lastS2C + 1
	}
	if b.DropInClient > 0 {
		tr.LostInClient = b.DropInClient
	}
	r := rand.New(rand.NewPCG(b.Seed, 0x626f7468))
	type key struct {
		port uint16
		c2s  bool
	}
	fifo, deliv := map[key]int64{}, map[key]int64{}
	at := func(t int64, data []byte) Packet { return Packet{Time: time.Unix(0, t).UTC(), Data: data} }
	dataSeen := 0
	for k, p := range ps {
		in := infos[k]
		t := tr.t0 + (p.Time.UnixNano()-tr.t0)*stretch
		d := int64(b.Delay)
		if b.Jitter > 0 {
			d += r.Int64N(int64(b.Jitter))
		}
		kk := key{in.port, in.c2s}
		arrive := max(t+d, fifo[kk]+1)
		fifo[kk] = arrive
		if in.c2s && in.data {
			dataSeen++
			if b.LossEvery > 0 && dataSeen%b.LossEvery == 0 {
				client = append(client, at(t+int64(b.Retransmit), p.Data))
				arrive = max(t+int64(b.Retransmit)+d, arrive)
			}
		}
		delivered := arrive
		if in.data && !in.udp {
			delivered = max(arrive, deliv[kk])
			deliv[kk] = delivered
		}
		tr.Sent[k+1], tr.Delivered[k+1] = t, delivered
		serverTrue := t
		if in.c2s {
			serverTrue = arrive
			client = append(client, at(t, p.Data))
		} else if k+1 != tr.LostInClient {
			client = append(client, at(arrive, p.Data))
		}
		sd := p.Data
		if in.udp && b.NAT.IsValid() {
			sd = natUDP(sd, lt, b.NAT, in.c2s)
		}
		server = append(server, at(tr.ServerClock(serverTrue), sd))
		if tr.ServerFirst == 0 || serverTrue < tr.ServerFirst {
			tr.ServerFirst = serverTrue
		}
	}
	order := func(a, b Packet) int { return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano()) }
	slices.SortStableFunc(client, order)
	slices.SortStableFunc(server, order)
	return client, server, tr
}

// natUDP is the IPv4 UDP packet data as the server's side of a NAT sees
// it: the client end (the source when c2s, else the destination) is
// nat's address, its port the client's plus nat's; checksums redone.
// Data it cannot rewrite is returned as is.
func natUDP(data []byte, lt layers.LinkType, nat netip.AddrPort, c2s bool) []byte {
	pk := gopacket.NewPacket(data, lt, gopacket.Default)
	ip, ok1 := pk.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	u, ok2 := pk.Layer(layers.LayerTypeUDP).(*layers.UDP)
	if !ok1 || !ok2 || !nat.Addr().Is4() {
		return data
	}
	a := nat.Addr().As4()
	if c2s {
		ip.SrcIP = a[:]
		u.SrcPort += layers.UDPPort(nat.Port())
	} else {
		ip.DstIP = a[:]
		u.DstPort += layers.UDPPort(nat.Port())
	}
	if err := u.SetNetworkLayerForChecksum(ip); err != nil {
		return data
	}
	var ls []gopacket.SerializableLayer
	for _, l := range pk.Layers() {
		if sl, ok := l.(gopacket.SerializableLayer); ok && l.LayerType() != layers.LayerTypeUDP {
			ls = append(ls, sl)
		}
		if l.LayerType() == layers.LayerTypeUDP {
			ls = append(ls, u, gopacket.Payload(u.Payload))
			break
		}
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		return data
	}
	return slices.Clone(buf.Bytes())
}

// WritePackets writes ps as a capture of format f on the named link
// ("ethernet" when empty): BothEnds' captures, for one.
func WritePackets(w io.Writer, f Format, link string, ps []Packet) error {
	if link == "" {
		link = "ethernet"
	}
	return writePackets(w, f, link, ps)
}
