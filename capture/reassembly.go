package capture

import (
	"cmp"
	"encoding/binary"
	"net/netip"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"
)

// Reassembly has two paths (see the package comment, "Reassembly"):
//
//   - the fast path handles a flow while each direction's segments arrive in
//     order, or repeat bytes already delivered (retransmissions and overlaps
//     with the past are trimmed). It hands the frame's own payload on with no
//     copy and no allocation;
//   - the first segment that lands ahead of the expected sequence number (a
//     reordering or a loss) moves the whole flow to gopacket/reassembly for
//     the rest of its life. The assembler is primed with a synthetic SYN per
//     known direction so that it continues at the byte the fast path reached.

// pageBytes is gopacket/reassembly's page size, to turn byte caps into pages.
const pageBytes = 1900

// flushAge is how long (capture time) out-of-order data waits for a missing
// segment before the gap is reported and the data behind it delivered.
const flushAge = 2 * time.Second

type half struct {
	next  uint32 // next expected sequence number
	known bool
	fin   bool
}

// conn is one TCP flow. It is also the gopacket reassembly.Stream of the flow
// once the flow is on the slow path.
type conn struct {
	e    *engine
	flow Flow
	id   uint32 // Event.ID
	rule ServerRule
	h    [2]half // [0] client → server, [1] server → client

	slow   bool // on gopacket/reassembly
	closed bool

	asmFirstFromServer bool // direction of the packet that created the assembler's connection
}

type flowKey struct{ a, b netip.AddrPort }

// tuple is a directed 4-tuple in raw form (an IPv4 pair fills a alone):
// cheaper to build from the frame's bytes and to compare than two
// netip.AddrPorts. pv holds the ports and, in bit 32, IPv6.
type tuple struct{ a, b, c, d, pv uint64 }

// rawTuple returns the parts of d's directed 4-tuple as values, not as a
// tuple: a struct of this size lives in memory, and building it field by
// field then copying it whole stalled the store buffer on every segment
// (about 9% of tables --json, issue 18).
func rawTuple(d *linkDecoder) (a, b, c, dd, pv uint64) {
	pv = uint64(d.tcp.SrcPort)<<16 | uint64(d.tcp.DstPort)
	if d.isIP6 {
		pv |= 1 << 32
	}
	switch {
	case len(d.src) == 4 && len(d.dst) == 4:
		a = uint64(binary.BigEndian.Uint32(d.src))<<32 | uint64(binary.BigEndian.Uint32(d.dst))
	case len(d.src) == 16 && len(d.dst) == 16:
		a, b = binary.BigEndian.Uint64(d.src), binary.BigEndian.Uint64(d.src[8:])
		c, dd = binary.BigEndian.Uint64(d.dst), binary.BigEndian.Uint64(d.dst[8:])
	default:
		a, pv = ^uint64(0), pv|1<<32 // no such address: never matches a real tuple
	}
	return a, b, c, dd, pv
}

func (t *tuple) is(a, b, c, d, pv uint64) bool {
	return t.a == a && t.b == b && t.c == c && t.d == d && t.pv == pv
}

// cacheSlot remembers the flow and direction of one directed 4-tuple; a
// closed flow in the cache is looked up again (its tuple may have a new
// flow).
type cacheSlot struct {
	t          tuple
	c          *conn
	fromServer bool
}

type tcpState struct {
	e     *engine
	flows map[flowKey]*conn
	last  *conn // the flow of the segment being handled
	cache [256]cacheSlot

	pool   *reassembly.StreamPool
	asm    *reassembly.Assembler
	slow   int    // flows on the slow path
	active int    // flows not closed
	ids    uint32 // the last Event.ID given

	fromServer bool // direction of the segment being assembled
	flushing   bool // inside a flush: skips are timeouts, not cap hits
	finishing  bool // at end of input: no close events
	lastFlush  time.Time

	prime layers.TCP
}

func (t *tcpState) init(e *engine) {
	t.e = e
	t.flows = map[flowKey]*conn{}
}

func (t *tcpState) assembler() *reassembly.Assembler {
	if t.asm == nil {
		t.pool = reassembly.NewStreamPool(t)
		t.asm = reassembly.NewAssembler(t.pool)
		t.asm.MaxBufferedPagesPerConnection = max(1, t.e.opt.MaxBufferedPerFlow/pageBytes)
		t.asm.MaxBufferedPagesTotal = max(1, t.e.opt.MaxBufferedTotal/pageBytes)
	}
	return t.asm
}

// New implements reassembly.StreamFactory: the stream is the conn being
// moved to the slow path.
func (t *tcpState) New(_, _ gopacket.Flow, _ *layers.TCP, _ reassembly.AssemblerContext) reassembly.Stream {
	c := t.last
	c.asmFirstFromServer = t.fromServer
	return c
}

func key(src, dst netip.AddrPort) flowKey {
	if src.Addr().Less(dst.Addr()) || src.Addr() == dst.Addr() && src.Port() < dst.Port() {
		return flowKey{src, dst}
	}
	return flowKey{dst, src}
}

func (t *tcpState) segment(d *linkDecoder) {
	e := t.e
	tcp := &d.tcp
	e.stats.TCPGame++
	t.flush()
	// A direct-mapped cache of directed 4-tuples saves building the
	// addresses, the ordered key and the map lookup for most segments
	// (BenchmarkReadReassemble).
	a, b, cc, dd, pv := rawTuple(d)
	slot := &t.cache[(uint(tcp.SrcPort)*31+uint(tcp.DstPort))%uint(len(t.cache))]
	c, fromServer := slot.c, slot.fromServer
	if c == nil || c.closed || !slot.t.is(a, b, cc, dd, pv) {
		src, dst := addrPort(d.src, uint16(tcp.SrcPort)), addrPort(d.dst, uint16(tcp.DstPort))
		k := key(src, dst)
		c = t.flows[k]
		if c == nil || c.closed && tcp.SYN && !tcp.ACK {
			// A new flow, or a new connection on the 4-tuple of a closed one.
			if c = t.open(k, src, dst, tcp); c == nil {
				return
			}
		}
		fromServer = src == c.flow.Server
		slot.t, slot.c, slot.fromServer = tuple{a, b, cc, dd, pv}, c, fromServer
	}
	t.last = c // the stream New hands the assembler
	if c.closed {
		// The last ACKs and retransmissions after FIN or RST.
		return
	}
	if c.slow {
		t.assemble(c, d, fromServer)
		return
	}
	if !t.fast(c, tcp, fromServer) {
		t.toSlow(c, d, fromServer)
		t.assemble(c, d, fromServer)
	}
}

// open starts a flow and decides its server side (package comment, "Which
// side is the server").
func (t *tcpState) open(k flowKey, src, dst netip.AddrPort, tcp *layers.TCP) *conn {
	e := t.e
	// Only a table holding closed flows has anything to purge: without
	// this check every packet of an ignored flow scanned the whole table
	// (100,000 open connections took minutes, issue 8).
	if len(t.flows) >= e.opt.MaxFlows && len(t.flows) > t.active {
		t.purge()
	}
	if t.active >= e.opt.MaxFlows {
		e.note("maxflows", Flow{}, LevelWarn, "more than %d TCP flows at once: new flows are ignored until some close", e.opt.MaxFlows)
		return nil
	}
	t.ids++
	if t.ids == 0 {
		t.ids++ // 0 is no flow's
	}
	c := &conn{e: e, id: t.ids}
	port := e.opt.TransportPort
	switch {
	case tcp.SYN && !tcp.ACK:
		c.flow, c.rule = Flow{Client: src, Server: dst}, RuleSYN
	case tcp.SYN && tcp.ACK:
		c.flow, c.rule = Flow{Client: dst, Server: src}, RuleSYN
	case dst.Port() == port && src.Port() != port:
		c.flow, c.rule = Flow{Client: src, Server: dst}, RulePort
	case src.Port() == port && dst.Port() != port:
		c.flow, c.rule = Flow{Client: dst, Server: src}, RulePort
	case src.Port() < dst.Port() || src.Port() == dst.Port() && k.a == src:
		c.flow, c.rule = Flow{Client: dst, Server: src}, RuleLowerPort
	default:
		c.flow, c.rule = Flow{Client: src, Server: dst}, RuleLowerPort
	}
	if old := t.flows[k]; old == nil || old.closed {
		t.active++
	}
	t.flows[k] = c
	e.stats.Flows++
	e.emit(Event{Kind: EventOpen, Flow: c.flow, ID: c.id, Rule: c.rule})
	return c
}

func dirIndex(fromServer bool) int {
	if fromServer {
		return 1
	}
	return 0
}

// fast handles a segment of a flow still on the fast path; false means the
// segment needs the assembler.
func (t *tcpState) fast(c *conn, tcp *layers.TCP, fromServer bool) bool {
	h := &c.h[dirIndex(fromServer)]
	if c.closed {
		return true
	}
	seq, payload := tcp.Seq, tcp.Payload
	if tcp.SYN {
		if len(payload) > 0 || tcp.FIN || tcp.RST {
			return false
		}
		h.next, h.known = seq+1, true
		return true
	}
	if !h.known {
		// Seen mid-way: this direction starts here (wire.md §2: framing
		// resynchronises).
		h.next, h.known = seq, true
	}
	diff := int32(seq - h.next)
	if diff > 0 {
		return false
	}
	if diff < 0 {
		old := int(-diff)
		if old >= len(payload) {
			if len(payload) > 0 {
				t.e.stats.Retransmits++
			}
			payload = nil
		} else {
			payload = payload[old:]
		}
	}
	if len(payload) > 0 {
		ev := t.e.add()
		ev.Kind, ev.Flow, ev.ID, ev.FromServer, ev.Data, ev.Offset = EventData, c.flow, c.id, fromServer, payload, t.e.offset(payload)
		h.next += uint32(len(payload))
	}
	if tcp.RST {
		t.close(c)
		return true
	}
	if tcp.FIN && int32(seq+uint32(len(tcp.Payload))-h.next) <= 0 && !h.fin {
		h.fin = true
		h.next++
		if c.h[0].fin && c.h[1].fin {
			t.close(c)
		}
	}
	return true
}

func (t *tcpState) close(c *conn) {
	if c.closed {
		return
	}
	c.closed = true
	t.e.emit(Event{Kind: EventClose, Flow: c.flow, ID: c.id})
	// The closed flow stays in the table so that its last ACKs do not open
	// a new one; purge drops such entries when the table is full.
	t.active--
	if c.slow {
		t.slow--
	}
}

// purge forgets closed flows.
func (t *tcpState) purge() {
	for k, c := range t.flows {
		if c.closed {
			delete(t.flows, k)
		}
	}
	t.last = nil
}

// toSlow moves a flow to the assembler, priming each direction the fast path
// has seen with a synthetic SYN one before the next expected byte.
func (t *tcpState) toSlow(c *conn, d *linkDecoder, fromServer bool) {
	c.slow = true
	t.slow++
	asm := t.assembler()
	for i, fs := range [2]bool{fromServer, !fromServer} {
		h := &c.h[dirIndex(fs)]
		if !h.known {
			continue
		}
		nf := d.netFlow()
		sp, dp := d.tcp.SrcPort, d.tcp.DstPort
		if i == 1 {
			nf = nf.Reverse()
			sp, dp = dp, sp
		}
		var hdr [20]byte
		binary.BigEndian.PutUint16(hdr[0:], uint16(sp))
		binary.BigEndian.PutUint16(hdr[2:], uint16(dp))
		binary.BigEndian.PutUint32(hdr[4:], h.next-1)
		hdr[12] = 5 << 4
		hdr[13] = 0x02 // SYN
		if err := t.prime.DecodeFromBytes(hdr[:], gopacket.NilDecodeFeedback); err != nil {
			continue
		}
		t.fromServer = fs
		asm.AssembleWithContext(nf, &t.prime, t.e.asmCtx())
	}
}

func (t *tcpState) assemble(c *conn, d *linkDecoder, fromServer bool) {
	t.fromServer = fromServer
	rst := d.tcp.RST
	t.assembler().AssembleWithContext(d.netFlow(), d.fullTCP(), t.e.asmCtx())
	if rst {
		t.close(c)
	}
}

// flush reports gaps whose missing segment has not come for flushAge.
func (t *tcpState) flush() {
	if t.slow == 0 || t.e.age(t.lastFlush) < flushAge/2 {
		return
	}
	t.lastFlush = t.e.ts
	t.flushing = true
	start := len(t.e.queue)
	t.asm.FlushWithOptions(reassembly.FlushOptions{T: t.e.ts.Add(-flushAge)})
	t.inFlowOrder(start)
	t.flushing = false
}

// inFlowOrder puts the events a flush queued from start on in the order the
// flows were opened. The assembler walks its connections in Go map order,
// which changes from run to run; each connection's own events keep their
// order (the sort is stable), so the output no longer depends on the map
// (issue 29: the same bytes on every run).
func (t *tcpState) inFlowOrder(start int) {
	q := t.e.queue[start:]
	if len(q) < 2 {
		return
	}
	slices.SortStableFunc(q, func(a, b Event) int { return cmp.Compare(a.ID, b.ID) })
}

func (t *tcpState) finish() {
	if t.asm == nil {
		return
	}
	t.flushing, t.finishing = true, true
	start := len(t.e.queue)
	t.asm.FlushAll()
	t.inFlowOrder(start)
}

// Accept implements reassembly.Stream: a direction never seen before starts
// wherever it is first seen, as on the fast path.
func (c *conn) Accept(_ *layers.TCP, _ gopacket.CaptureInfo, _ reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, _ reassembly.AssemblerContext) bool {
	if nextSeq == -1 {
		*start = true
	}
	return !c.closed
}

// ReassembledSG implements reassembly.Stream.
func (c *conn) ReassembledSG(sg reassembly.ScatterGather, _ reassembly.AssemblerContext) {
	e := c.e
	dir, _, end, skip := sg.Info()
	fromServer := c.asmFirstFromServer
	if dir != reassembly.TCPDirClientToServer {
		fromServer = !fromServer
	}
	if skip > 0 {
		e.stats.Gaps++
		e.stats.LostBytes += int64(skip)
		if !e.tcp.flushing {
			e.stats.BufferCapHit++
			e.noteOf(noteBufferCap, "", c.flow, LevelWarn, "out-of-order buffer cap hit on %s (%d bytes per flow, %d in all): skipping %d missing bytes",
				c.flow, e.opt.MaxBufferedPerFlow, e.opt.MaxBufferedTotal, skip)
		}
		e.emit(Event{Kind: EventGap, Flow: c.flow, ID: c.id, FromServer: fromServer, Lost: skip})
	}
	n, _ := sg.Lengths()
	if n > 0 {
		start := len(e.arena)
		e.arena = append(e.arena, sg.Fetch(n)...)
		e.emit(Event{Kind: EventData, Flow: c.flow, ID: c.id, FromServer: fromServer, Data: e.arena[start:len(e.arena):len(e.arena)]})
	}
	if end {
		h := &c.h[dirIndex(fromServer)]
		h.fin = true
		if c.h[0].fin && c.h[1].fin {
			e.tcp.close(c)
		}
	}
}

// ReassemblyComplete implements reassembly.Stream.
// At the end of input the assembler completes every stream: those are not
// closes seen on the wire.
func (c *conn) ReassemblyComplete(reassembly.AssemblerContext) bool {
	if !c.e.tcp.finishing {
		c.e.tcp.close(c)
	}
	return true
}
