package capture

import (
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"

	"github.com/usmnscope/usmnscope/internal/termsafe"
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
	frag  fragState
	notes map[string]bool // notes given once

	// Notes of a kind that can repeat: how many were given and how many
	// suppressed past Options.MaxNotes.
	given, suppressed [numNoteKinds]int64
}

func newEngine(opt Options) *engine {
	e := &engine{opt: opt.withDefaults(), notes: map[string]bool{}}
	e.link.init()
	e.tcp.init(e)
	e.udp.init()
	e.frag.init()
	return e
}

// pending reports whether events are queued; reset drops consumed ones.
func (e *engine) pending() bool { return e.qi < len(e.queue) }

func (e *engine) pop() *Event {
	ev := &e.queue[e.qi]
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

// add queues a zero event of the current packet and returns it to be filled
// in place. The per-segment Data event is built this way: an Event literal
// is built on the stack and copied whole, and that copy stalled the store
// buffer on every segment (issue 18).
func (e *engine) add() *Event {
	if len(e.queue) < cap(e.queue) {
		e.queue = e.queue[:len(e.queue)+1]
	} else {
		e.queue = append(e.queue, Event{})
	}
	ev := &e.queue[len(e.queue)-1]
	*ev = Event{}
	ev.Time, ev.Frame = e.ts, e.frame
	return ev
}

// note emits a note; key, when not empty, makes it once per capture. The
// keys are few by construction: notes that can repeat go through noteOf.
func (e *engine) note(key string, f Flow, lvl Level, format string, args ...any) {
	if key != "" {
		if e.notes[key] {
			return
		}
		e.notes[key] = true
	}
	e.emit(Event{Kind: EventNote, Flow: f, Level: lvl, Text: termsafe.Escaped(fmt.Sprintf(format, args...))})
}

// noteKind names a note that the input can make repeat without bound:
// each kind may give Options.MaxNotes notes, and finish says once how many
// more were suppressed.
type noteKind uint8

const (
	noteA2S       noteKind = iota // an A2S_INFO reply that differs from its source's last
	noteBufferCap                 // an out-of-order buffer cap forced a skip
	noteLink                      // an unsupported link type (once per type)
	notePanic                     // a decoder panic skipped a frame
	noteDrops                     // the kernel dropped packets (live)
	numNoteKinds
)

// suppressedText says, for each kind, what finish counts: notes not shown,
// or for link types (whose notes are once per type) the frames skipped
// without one.
var suppressedText = [numNoteKinds]string{
	noteA2S:       "%d more A2S_INFO notes not shown (after the first %d)",
	noteBufferCap: "%d more out-of-order buffer cap notes not shown (after the first %d; each skip is still a gap)",
	noteLink:      "%d frames of further unsupported link types skipped without a note (after %d notes)",
	notePanic:     "%d more decoder panics not shown (after the first %d; those frames were skipped)",
	noteDrops:     "%d more kernel drop notes not shown (after the first %d; Stats counts every drop)",
}

// noteOf emits a note of a kind that can repeat, while the kind is within
// Options.MaxNotes; past it the note is counted. key is as for note; a
// suppressed note does not record its key, so the key set stays bounded.
func (e *engine) noteOf(kind noteKind, key string, f Flow, lvl Level, format string, args ...any) {
	if key != "" && e.notes[key] {
		return
	}
	if e.given[kind] >= int64(e.opt.MaxNotes) {
		e.suppressed[kind]++
		return
	}
	e.given[kind]++
	e.note(key, f, lvl, format, args...)
}

// noteSuppressed says once, at the end of input, how many notes of each
// kind were held back.
func (e *engine) noteSuppressed() {
	for k, n := range e.suppressed {
		if n > 0 {
			e.note("", Flow{}, LevelWarn, suppressedText[k], n, e.given[k])
			e.suppressed[k] = 0
		}
	}
}

// The times a Time can carry as int64 nanoseconds since 1970 (what
// UnixNano and the decoders use): from 1677-09-21 to 2262-04-11.
var (
	minTime = time.Unix(0, math.MinInt64).UTC()
	maxTime = time.Unix(0, math.MaxInt64).UTC()
)

// clampTime keeps a frame's time within minTime and maxTime, saying once
// when it did not fit (a pcapng timestamp of 2^40 seconds, or of 2^64-1000
// nanoseconds, would otherwise wrap to a time centuries off). The zero
// time of a Simple Packet Block, which has no timestamp, stays zero.
func (e *engine) clampTime(ts time.Time) time.Time {
	// Whole seconds well inside the range decide nearly every frame
	// inline (BenchmarkReadReassemble); the rest are looked at closely.
	const minSec, maxSec = math.MinInt64 / 1_000_000_000, math.MaxInt64 / 1_000_000_000
	if s := ts.Unix(); s > minSec && s < maxSec {
		return ts
	}
	return e.clampEdge(ts)
}

func (e *engine) clampEdge(ts time.Time) time.Time {
	if !ts.Before(minTime) && !ts.After(maxTime) || ts.IsZero() {
		return ts
	}
	e.note("clamp", Flow{}, LevelWarn,
		"frame %d: timestamp %d s from 1970 is outside what 64-bit nanoseconds hold (1677-09-21 to 2262-04-11): it is clamped to the nearer end, as are later ones",
		e.frame, ts.Unix())
	if ts.Before(minTime) {
		return minTime
	}
	return maxTime
}

// packet processes one frame. A panic inside a gopacket layer or in our own
// code becomes a note: bad input never ends the capture.
// off is the file offset of data[0], -1 when the input is not a file.
func (e *engine) packet(data []byte, off int64, ts time.Time, iface int, link layers.LinkType) {
	e.frame++
	e.data, e.off = data, off
	e.ts, e.iface = e.clampTime(ts), iface
	e.stats.Packets++
	e.stats.Bytes += int64(len(data))
	defer func() {
		if r := recover(); r != nil {
			e.stats.Undecodable++
			e.noteOf(notePanic, "", Flow{}, LevelError, "frame %d: decoder panic, frame skipped: %v", e.frame, r)
		}
	}()
	d := &e.link
	switch d.decode(data, link) {
	case linkUnsupported:
		e.stats.Other++
		if link == noIface {
			e.note("noiface", Flow{}, LevelWarn,
				"frame %d is on pcapng interface %d, which its section does not describe (or which is past the cap of %d interfaces): such frames are skipped",
				e.frame, iface, e.opt.MaxInterfaces)
			return
		}
		e.noteOf(noteLink, fmt.Sprintf("link %d", link), Flow{}, LevelWarn,
			"unsupported link type %d (%s), first on interface %d: its frames are skipped", int(link), link, iface)
		return
	case linkBad:
		e.stats.Undecodable++
		return
	case linkOther:
		e.stats.Other++
		return
	}
	e.transport(d)
}

// transport hands a decoded frame on by its transport layer; an IPv4
// fragment is held until its datagram is whole, which then goes on.
func (e *engine) transport(d *linkDecoder) {
	switch {
	case d.hasTCP:
		e.tcp.segment(d)
	case d.hasUDP:
		e.udp.datagram(e, d)
	case d.frag4:
		ip := e.frag.add(e, d.fragHdr, d.fragBody)
		if ip == nil {
			return
		}
		d.frag4 = false
		switch d.datagram(ip) {
		case linkIP:
			e.transport(d)
		case linkBad:
			e.stats.Undecodable++
		default:
			e.stats.Other++
		}
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
	e.frag.finish(e)
	e.noteSuppressed()
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
