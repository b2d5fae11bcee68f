package capture

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"
)

// engine turns frames into events: link decoding, TCP reassembly and UDP
// classification. Every Source wraps one; it does no IO.
type engine struct {
	opt   Options
	stats Stats

	queue []Event // events of the current frame, handed out by next
	qi    int
	arena []byte // copies of reassembled bytes, reused once queue drains

	frame int
	ts    time.Time // capture time of the current frame
	iface int       // its interface (pcapng)
	data  []byte    // the current frame
	off   int64     // file offset of data[0], -1 when unknown
	actx  asmContext

	link  linkDecoder
	tcp   tcpState
	udp   udpState
	notes map[string]bool // notes given once
}

func newEngine(opt Options) *engine {
	e := &engine{opt: opt.withDefaults(), notes: map[string]bool{}}
	e.link.init()
	e.tcp.init(e)
	e.udp.init()
	return e
}

// pending reports whether events are queued; reset drops consumed ones.
func (e *engine) pending() bool { return e.qi < len(e.queue) }

func (e *engine) pop() Event {
	ev := e.queue[e.qi]
	e.qi++
	return ev
}

func (e *engine) reset() {
	// The queue is not cleared: the buffers its old events point into (the
	// read slab, the arena, the caller's frames, the live ring) live on
	// anyway, and clearing cost more than a tenth of the fast path.
	e.queue = e.queue[:0]
	e.qi = 0
	e.arena = e.arena[:0]
}

// emit queues an event that is not a run of the input file.
func (e *engine) emit(ev Event) {
	ev.Offset = -1
	e.push(ev)
}

// push queues an event whose Offset is already set.
func (e *engine) push(ev Event) {
	ev.Time = e.ts
	ev.Frame = e.frame
	e.queue = append(e.queue, ev)
}

// note emits a note; key, when not empty, makes it once per capture.
func (e *engine) note(key string, f Flow, lvl Level, format string, args ...any) {
	if key != "" {
		if e.notes[key] {
			return
		}
		e.notes[key] = true
	}
	e.emit(Event{Kind: EventNote, Flow: f, Level: lvl, Text: escape(fmt.Sprintf(format, args...))})
}

// packet processes one frame. A panic inside a gopacket layer or in our own
// code becomes a note: bad input never ends the capture.
// off is the file offset of data[0], -1 when the input is not a file.
func (e *engine) packet(data []byte, off int64, ts time.Time, iface int, link layers.LinkType) {
	e.frame++
	e.data, e.off = data, off
	e.ts, e.iface = ts, iface
	e.stats.Packets++
	e.stats.Bytes += int64(len(data))
	defer func() {
		if r := recover(); r != nil {
			e.stats.Undecodable++
			e.note("", Flow{}, LevelError, "frame %d: decoder panic, frame skipped: %v", e.frame, r)
		}
	}()
	d := &e.link
	switch d.decode(data, link) {
	case linkUnsupported:
		e.stats.Other++
		e.note(fmt.Sprintf("link %d/%d", link, iface), Flow{}, LevelWarn,
			"unsupported link type %d (%s) on interface %d: its frames are skipped", int(link), link, iface)
		return
	case linkBad:
		e.stats.Undecodable++
		return
	case linkOther:
		e.stats.Other++
		return
	}
	switch {
	case d.hasTCP:
		e.tcp.segment(d)
	case d.hasUDP:
		e.udp.datagram(e, d)
	default:
		e.stats.Other++
	}
}

// offset returns the file offset of p, a subslice of the current frame, or
// -1. The capacity difference locates p in the frame; the element address
// check makes sure p really is that part of the frame and not a copy.
func (e *engine) offset(p []byte) int64 {
	if e.off < 0 || len(p) == 0 {
		return -1
	}
	i := cap(e.data) - cap(p)
	if i < 0 || i+len(p) > len(e.data) || &e.data[i] != &p[0] {
		return -1
	}
	return e.off + int64(i)
}

// finish ends the input: buffered out-of-order data is pushed out with its
// gaps.
func (e *engine) finish() {
	defer func() {
		if r := recover(); r != nil {
			e.note("", Flow{}, LevelError, "reassembly panic at end of input: %v", r)
		}
	}()
	e.tcp.finish()
	e.udp.finish(e)
}

// asmContext hands the current frame's capture info to the assembler. One
// value serves every call: events carry the frame that completed them.
type asmContext struct{ ci gopacket.CaptureInfo }

// asmCtx fills the assembler's context from the current frame; only the
// slow path needs it, so the fast path does not build a CaptureInfo.
func (e *engine) asmCtx() *asmContext {
	e.actx.ci = gopacket.CaptureInfo{Timestamp: e.ts, CaptureLength: len(e.data), Length: len(e.data), InterfaceIndex: e.iface}
	return &e.actx
}

func (a *asmContext) GetCaptureInfo() gopacket.CaptureInfo { return a.ci }

var _ reassembly.AssemblerContext = (*asmContext)(nil)

func addrPort(ip []byte, port uint16) netip.AddrPort {
	a, _ := netip.AddrFromSlice(ip)
	return netip.AddrPortFrom(a.Unmap(), port)
}

// age returns how long ago, in capture time, t was.
func (e *engine) age(t time.Time) time.Duration { return e.ts.Sub(t) }
