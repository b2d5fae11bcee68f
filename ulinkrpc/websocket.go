package ulinkrpc

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/usmnscope/usmnscope/decode/transport/lp"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// WSEventKind says what a WSEvent is.
type WSEventKind uint8

const (
	WSData    WSEventKind = iota // data bytes for the frame stream (Stream.Feed)
	WSGap                        // data bytes lost (Stream.Gap)
	WSUpgrade                    // the HTTP upgrade head
	WSPing
	WSPong
	WSClose
)

var wsEventNames = [...]string{WSData: "data", WSGap: "gap", WSUpgrade: "upgrade", WSPing: "ping", WSPong: "pong", WSClose: "close"}

func (k WSEventKind) String() string { return enum.Name(wsEventNames[:], uint64(k)) }

// WSEvent is what a WebSocket decoder hands on: data for the frame stream,
// or a connection event (ulinkrpc.md 2.2: control frames are events, never
// ULinkRPC frames).
type WSEvent struct {
	Kind    WSEventKind
	Offset  int64    // stream offset of the frame (or head) the event comes from
	Data    []byte   // WSData: unmasked data, valid during the call; ping/pong: their payload
	Gap     int      // WSGap: bytes lost
	Upgrade *Upgrade // WSUpgrade
	Code    int      // WSClose: status code, 0 when absent
	Reason  string   // WSClose: the reason, UTF-8 by the RFC (escape before showing)
	// DataOffset is WSData's stream offset of Data[0] (Data[i] is at
	// DataOffset+i): by it a host finds the chunk that brought each byte,
	// and stamps the frames they end with it (outputs.md "Ordering").
	DataOffset int64
}

// WSConfig sets up a WebSocket decoder for one direction.
type WSConfig struct {
	// Upgrade says the stream starts with the HTTP head (the connection's
	// start was captured); false starts at a frame boundary.
	Upgrade bool
	// Masked is whether this direction's frames must be masked (client to
	// server); nil learns it from the first frame.
	Masked *bool
	// MidStream says the connection was joined mid-stream, its HTTP
	// upgrade not captured (Upgrade is then false): the first byte need not
	// start a frame, so the decoder starts by resynchronising on frame
	// headers, and says so.
	MidStream bool
}

type wsState uint8

const (
	wsHTTP wsState = iota
	wsHeader
	wsPayload
	wsLost // resynchronising on frame headers after a gap
	wsDead // not a WebSocket (a refused upgrade, garbage head)
)

// WebSocket decodes one direction of a WebSocket connection: the HTTP
// upgrade head, then RFC 6455 frames, unmasked, their data bytes handed on
// whatever the message and frame boundaries (the receiver's accumulator
// ignores them, ulinkrpc.md 2.2). It streams: a data frame's payload is
// never buffered whole, so memory is bounded by the head (MaxUpgradeLen), a
// control frame (125 bytes) and the resynchronisation buffer.
type WebSocket struct {
	state  wsState
	masked *bool
	off    int64

	head   []byte // wsHTTP: the head so far; wsHeader: the frame header so far
	hdr    WSHeader
	hdrOff int64
	left   uint64 // payload bytes still to come
	at     int    // payload bytes seen (the mask's phase)
	ctrl   []byte // a control frame's payload
	scr    []byte // unmasking scratch

	inMessage bool // a data message is open (a frame without FIN seen)
	midStart  bool // joined mid-stream, not yet synchronised: resync on a ULinkRPC frame
	textSeen  bool

	rbuf    []byte // wsLost: bytes from rbufOff on
	rbufOff int64
	skipped int // bytes skipped while resynchronising, not yet reported
	// let is how many bytes of the frame header being collected Abandon let
	// go: they are not Held any more.
	let int

	findings []dissect.Finding
}

// NewWebSocket returns a decoder for one direction.
func NewWebSocket(cfg WSConfig) *WebSocket {
	w := &WebSocket{state: wsHeader, masked: cfg.Masked}
	switch {
	case cfg.Upgrade:
		w.state = wsHTTP
	case cfg.MidStream:
		// One note per connection: on the client side, whose frames are
		// masked.
		if cfg.Masked == nil || *cfg.Masked {
			w.find(note(dissect.Inference, -1, "websocket: the HTTP upgrade was not captured: WebSocket framing inferred from the bytes (binary frames each holding one ULinkRPC frame, masked from the client only); resynchronising on frame headers"))
		}
		w.midStart = true
		w.lose(0, nil)
	}
	return w
}

// Findings returns the findings collected since the last call and forgets
// them. They are connection findings (Bit -1).
func (w *WebSocket) Findings() []dissect.Finding {
	fs := w.findings
	w.findings = nil
	return fs
}

func (w *WebSocket) find(f dissect.Finding) { w.findings = append(w.findings, f) }

// Feed consumes a chunk of the TCP stream, calling ev for each event.
func (w *WebSocket) Feed(chunk []byte, ev func(WSEvent)) {
	for len(chunk) > 0 {
		switch w.state {
		case wsHTTP:
			chunk = w.feedHTTP(chunk, ev)
		case wsHeader:
			chunk = w.feedHeader(chunk, ev)
		case wsPayload:
			chunk = w.feedPayload(chunk, ev)
		case wsLost:
			chunk = w.feedLost(chunk, ev)
		default:
			w.off += int64(len(chunk))
			return
		}
	}
}

func (w *WebSocket) feedHTTP(c []byte, ev func(WSEvent)) []byte {
	k := min(len(c), MaxUpgradeLen-len(w.head))
	start := len(w.head)
	w.head = append(w.head, c[:k]...)
	u, err := ParseUpgrade(w.head)
	if errors.Is(err, ErrShort) {
		if len(w.head) >= MaxUpgradeLen {
			w.find(errf(dissect.Malformed, -1, "websocket: no end of the HTTP head within %d bytes", MaxUpgradeLen))
			w.state = wsDead
		}
		w.off += int64(k)
		return c[k:]
	}
	used := u.Len - start
	w.off += int64(used)
	w.head = w.head[:0]
	if err != nil {
		w.find(errf(dissect.Malformed, -1, "%v", err))
		w.state = wsDead
		return c[used:]
	}
	ev(WSEvent{Kind: WSUpgrade, Offset: w.off - int64(u.Len), Upgrade: &u})
	switch {
	case u.Request && !u.WebSocket():
		w.find(warn(dissect.Protocol, -1, "websocket: %s %s is not an upgrade request", u.Method, u.Target))
		w.state = wsDead
	case !u.Request && !u.WebSocket():
		w.find(note(dissect.Protocol, -1, "websocket: upgrade refused: %d %s", u.Status, u.Reason))
		w.state = wsDead
	default:
		if u.Header("Sec-WebSocket-Extensions") != "" && !u.Request {
			w.find(warn(dissect.Undecoded, -1, "websocket: extensions negotiated (%s): frames with reserved bits cannot be decoded", u.Header("Sec-WebSocket-Extensions")))
		}
		w.state = wsHeader
	}
	return c[used:]
}

// feedHeader collects a frame header (2..14 bytes) and checks it.
func (w *WebSocket) feedHeader(c []byte, ev func(WSEvent)) []byte {
	if len(w.head) == 0 {
		w.hdrOff, w.let = w.off, 0
	}
	for len(c) > 0 {
		k := min(wsHeaderSize(w.head)-len(w.head), len(c))
		w.head = append(w.head, c[:k]...)
		c = c[k:]
		w.off += int64(k)
		if len(w.head) < wsHeaderSize(w.head) {
			continue
		}
		h, err := ParseWSHeader(w.head)
		if err != nil {
			w.find(errf(dissect.Malformed, -1, "%v (frame at stream offset %d)", err, w.hdrOff))
			// Resynchronise from the byte after the bad header's first.
			w.lose(w.hdrOff+1, w.head[1:])
			w.head = w.head[:0]
			return c
		}
		w.head = w.head[:0]
		w.frameStart(h, ev)
		return c
	}
	return c
}

func (w *WebSocket) frameStart(h WSHeader, ev func(WSEvent)) {
	w.hdr, w.left, w.at = h, h.Len, 0
	w.ctrl = w.ctrl[:0]
	if w.masked == nil {
		m := h.Masked
		w.masked = &m
	} else if *w.masked != h.Masked {
		w.find(warn(dissect.Protocol, -1, "websocket: %s frame at stream offset %d: masked %v, this direction's frames are masked %v", h.Opcode, w.hdrOff, h.Masked, *w.masked))
	}
	if !h.Opcode.Control() {
		switch {
		case h.Opcode == OpContinuation && !w.inMessage:
			w.find(warn(dissect.Sequence, -1, "websocket: continuation frame at stream offset %d with no message open", w.hdrOff))
		case h.Opcode != OpContinuation && w.inMessage:
			w.find(warn(dissect.Sequence, -1, "websocket: new %s message at stream offset %d before the last one ended", h.Opcode, w.hdrOff))
		}
		if h.Opcode == OpText && !w.textSeen {
			w.textSeen = true
			w.find(note(dissect.Protocol, -1, "websocket: text message at stream offset %d (ULinkRPC sends binary); its bytes are framed all the same", w.hdrOff))
		}
		w.inMessage = !h.Fin
	}
	w.state = wsPayload
	if w.left == 0 {
		w.frameEnd(ev)
	}
}

func (w *WebSocket) feedPayload(c []byte, ev func(WSEvent)) []byte {
	k := int(min(uint64(len(c)), w.left))
	p := c[:k]
	if w.hdr.Masked {
		w.scr = append(w.scr[:0], p...)
		p = w.scr
		unmask(p, w.hdr.Key, w.at)
	}
	if w.hdr.Opcode.Control() {
		w.ctrl = append(w.ctrl, p...)
	} else if k > 0 {
		ev(WSEvent{Kind: WSData, Offset: w.hdrOff, Data: p, DataOffset: w.off})
	}
	w.off += int64(k)
	w.at += k
	w.left -= uint64(k)
	if w.left == 0 {
		w.frameEnd(ev)
	}
	return c[k:]
}

// frameEnd finishes a frame: a control frame becomes its event.
func (w *WebSocket) frameEnd(ev func(WSEvent)) {
	w.state = wsHeader
	if !w.hdr.Opcode.Control() {
		return
	}
	e := WSEvent{Offset: w.hdrOff, Data: w.ctrl}
	switch w.hdr.Opcode {
	case OpPing:
		e.Kind = WSPing
	case OpPong:
		e.Kind = WSPong
	default:
		e.Kind = WSClose
		code, reason, err := CloseBody(w.ctrl)
		if err != nil {
			w.find(errf(dissect.Malformed, -1, "%v", err))
		}
		e.Code, e.Reason = code, reason
		w.find(note(dissect.Protocol, -1, "websocket: close at stream offset %d, code %d, reason %q", w.hdrOff, code, reason))
	}
	ev(e)
}

// wsResyncMaxLen caps the payload lengths a resynchronisation chain may
// hold, as ResyncMaxLen does for frames.
const wsResyncMaxLen = 64 << 10

func (w *WebSocket) bound() int { return 2*(14+wsResyncMaxLen) + 14 }

// lose starts resynchronising on frame headers from stream offset off, with
// keep the bytes already consumed from there.
func (w *WebSocket) lose(off int64, keep []byte) {
	w.state = wsLost
	w.rbuf = append(w.rbuf[:0], keep...)
	w.rbufOff = off
	w.inMessage = false
}

// wsChain checks the candidate at d[0]: two frame headers that chain (the
// second where the first frame ends), each valid and masked as this
// direction's are. final: at the end, frames that end exactly on the last
// byte suffice.
func (w *WebSocket) wsChain(d []byte, final bool) lp.Result {
	return wsChainAt(d, w.masked, final, w.midStart)
}

// wsChainMax is how many frames a chain that must show a ULinkRPC frame
// walks looking for a binary one.
const wsChainMax = 8

// wsChainAt checks the candidate at d[0]: at least two frame headers that
// chain, each valid and masked as masked says (nil: either). With rpc the
// evidence is a ULinkRPC frame instead: the chain (control frames, then
// binary ones, at most wsChainMax) must reach a whole binary frame whose
// payload is exactly one [length][frame] with a plausible frame (ulinkrpc.md
// 2.2: each sender write is one binary message holding exactly one
// [length][frame]; a first fragment holds less than its frame, its
// prefix only is checked), which a mask-and-length coincidence inside
// other bytes does not give.
func wsChainAt(d []byte, masked *bool, final, rpc bool) lp.Result {
	more := lp.Undecided
	if final {
		more = lp.Reject
	}
	pos, open := 0, false // open: a fragmented binary message goes on
	for i := 0; ; i++ {
		if !rpc && (i == 2 || final && i > 0 && pos == len(d)) {
			return lp.Accept
		}
		if i == wsChainMax {
			return lp.Reject
		}
		h, err := ParseWSHeader(d[pos:])
		if errors.Is(err, ErrShort) {
			return more
		}
		if err != nil || (masked != nil && *masked != h.Masked) || h.Len > wsResyncMaxLen {
			return lp.Reject
		}
		if rpc && (h.Opcode == OpText || h.Opcode == OpContinuation && !open) {
			// A ULinkRPC peer sends binary messages; a chain that starts
			// in a message's continuation has no [length] to check.
			return lp.Reject
		}
		if h.Opcode == OpContinuation && h.Fin {
			open = false
		}
		body := pos + h.Size
		pos = body + int(h.Len)
		if !rpc || h.Opcode != OpBinary {
			if pos > len(d) {
				return more
			}
			continue
		}
		if h.Len < 5 {
			return lp.Reject
		}
		if len(d) < body+4 {
			return more
		}
		var q [4]byte
		copy(q[:], d[body:])
		if h.Masked {
			unmask(q[:], h.Key, 0)
		}
		n := uint64(binary.BigEndian.Uint32(q[:]))
		if n == 0 || n > MaxFrameLen || h.Fin && 4+n != h.Len || !h.Fin && 4+n <= h.Len {
			return lp.Reject
		}
		if pos > len(d) {
			// The frame (a first fragment included) runs past what is here.
			return more
		}
		if !h.Fin {
			open = true
			continue
		}
		frame := bytes.Clone(d[body+4 : pos])
		if h.Masked {
			unmask(frame, h.Key, 4)
		}
		if !Plausible(frame) {
			return lp.Reject
		}
		return lp.Accept
	}
}

// FindWSFrames looks for WebSocket framing in a direction's first captured
// bytes when the connection's start (its HTTP upgrade) was not captured:
// the smallest offset from which frames chain as a ULinkRPC peer writes
// them (wsChainAt with rpc), masked as masked says. found is true when one
// chains; decided is false while more bytes could still decide (final:
// there are no more).
func FindWSFrames(b []byte, masked, final bool) (off int, found, decided bool) {
	for off = 0; off < len(b); off++ {
		switch wsChainAt(b[off:], &masked, final, true) {
		case lp.Accept:
			return off, true, true
		case lp.Undecided:
			return off, false, false
		}
	}
	return len(b), false, final
}

func (w *WebSocket) feedLost(c []byte, ev func(WSEvent)) []byte {
	for len(c) > 0 && w.state == wsLost {
		take := min(w.bound()-len(w.rbuf), len(c))
		w.rbuf = append(w.rbuf, c[:take]...)
		w.off += int64(take)
		c = c[take:]
		w.scan(ev, false)
	}
	return c
}

// scan drops candidate offsets at the front of rbuf until one is accepted,
// then decodes rbuf from there.
func (w *WebSocket) scan(ev func(WSEvent), final bool) {
	drop := 0
	for drop < len(w.rbuf) {
		switch w.wsChain(w.rbuf[drop:], final) {
		case lp.Undecided:
			w.rbuf = append(w.rbuf[:0], w.rbuf[drop:]...)
			w.rbufOff += int64(drop)
			w.skipped += drop
			return
		case lp.Reject:
			drop++
			continue
		}
		w.skipped += drop
		w.reportSkip("")
		w.midStart = false
		data := append([]byte(nil), w.rbuf[drop:]...)
		w.state, w.off = wsHeader, w.rbufOff+int64(drop)
		w.rbuf = w.rbuf[:0]
		w.Feed(data, ev)
		return
	}
	w.skipped += drop
	w.rbufOff += int64(drop)
	w.rbuf = w.rbuf[:0]
}

// Held is how many of the last bytes fed the decoder holds that it may
// yet hand on as data later than they came, to end frames earlier than
// those handed on meanwhile (a host's ordering waits on them, outputs.md
// "Ordering"): while it resynchronises on frame headers, every byte not
// yet placed; otherwise those of a frame header not yet whole past its
// third byte, unless Abandon let them go. A header that turns out bad is
// resynchronised on from its second byte, so a 2-byte header and its data
// may lie within it.
func (w *WebSocket) Held() int {
	switch w.state {
	case wsLost:
		return len(w.rbuf)
	case wsHeader:
		return max(len(w.head)-max(3, w.let), 0)
	}
	return 0
}

// Offset is the stream offset of the next byte to arrive (lost bytes
// count): the bytes Held are the last Held() before it.
func (w *WebSocket) Offset() int64 { return w.off }

// Abandon gives the bytes held while resynchronising their end-of-stream
// chance (frames that chain exactly to the last byte held are decoded),
// skips them otherwise (reported with why), and goes on resynchronising on
// the bytes that follow. A frame header not yet whole is not waited for
// any more (Held): it goes on, and should it turn out bad, the data within
// it is handed on as of the chunk that shows it bad. For a host whose
// queue of later messages reached its bound.
func (w *WebSocket) Abandon(why string, ev func(WSEvent)) {
	if w.state == wsHeader {
		w.let = len(w.head)
		return
	}
	if w.state != wsLost || len(w.rbuf) == 0 {
		return
	}
	w.scan(ev, true)
	if w.state == wsLost {
		w.skipped += len(w.rbuf)
		w.rbufOff += int64(len(w.rbuf))
		w.rbuf = w.rbuf[:0]
	}
	w.reportSkip(" " + why)
}

func (w *WebSocket) reportSkip(why string) {
	if w.skipped > 0 {
		w.find(warn(dissect.Sequence, -1, "websocket: resync: skipped %s%s", dissect.Count(w.skipped, "byte"), why))
		w.skipped = 0
	}
}

// Gap says n bytes of the TCP stream were lost. Inside a data frame's
// payload the frame goes on (the mask's phase is known) and ev gets a
// WSGap for the frame stream; across a frame boundary the decoder
// resynchronises on frame headers.
func (w *WebSocket) Gap(n int, ev func(WSEvent)) {
	if n <= 0 {
		return
	}
	switch {
	case w.state == wsDead:
	case w.state == wsPayload && !w.hdr.Opcode.Control() && uint64(n) <= w.left:
		ev(WSEvent{Kind: WSGap, Offset: w.hdrOff, Gap: n})
		w.left -= uint64(n)
		w.at += n
		if w.left == 0 {
			w.frameEnd(ev)
		}
	case w.state == wsHTTP:
		w.find(errf(dissect.Sequence, -1, "websocket: gap of %s in the HTTP head", dissect.Count(n, "byte")))
		w.state = wsDead
	default:
		ev(WSEvent{Kind: WSGap, Offset: w.off, Gap: n})
		if w.state == wsLost {
			w.skipped += len(w.rbuf)
		}
		w.find(warn(dissect.Sequence, -1, "websocket: gap of %s at stream offset %d across a frame boundary: resynchronising", dissect.Count(n, "byte"), w.off))
		w.head = w.head[:0]
		w.lose(w.off+int64(n), nil)
	}
	w.off += int64(n)
}

// End ends the stream and returns the findings not yet drained: a partial
// frame, bytes skipped while resynchronising (after one last try: frames
// that chain exactly to the last byte are decoded).
func (w *WebSocket) End(ev func(WSEvent)) []dissect.Finding {
	switch w.state {
	case wsLost:
		w.scan(ev, true)
		if w.state == wsLost {
			w.skipped += len(w.rbuf)
			w.rbuf = w.rbuf[:0]
		}
		w.reportSkip(" at the end of the stream")
	case wsHTTP:
		if len(w.head) > 0 {
			w.find(warn(dissect.Sequence, -1, "websocket: the stream ended inside the HTTP head (%d bytes)", len(w.head)))
		}
	}
	if w.state == wsPayload || w.state == wsHeader && len(w.head) > 0 {
		w.find(warn(dissect.Sequence, -1, "websocket: the stream ended inside a frame at stream offset %d", w.hdrOff))
	}
	w.head = w.head[:0]
	w.state = wsHeader
	w.reportSkip(" at the end of the stream")
	return w.Findings()
}
