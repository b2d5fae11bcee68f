package websocket

import (
	"errors"
	"fmt"

	"github.com/usmnscope/usmnscope/decode/transport"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// EventKind says what an Event is.
type EventKind uint8

const (
	EventData    EventKind = iota // data bytes for the protocol's stream
	EventGap                      // data bytes lost
	EventUpgrade                  // the HTTP upgrade head
	EventPing
	EventPong
	EventClose
)

var eventNames = [...]string{EventData: "data", EventGap: "gap", EventUpgrade: "upgrade", EventPing: "ping", EventPong: "pong", EventClose: "close"}

func (k EventKind) String() string { return enum.Name(eventNames[:], uint64(k)) }

// Event is what a Decoder hands on: data for the protocol's byte stream,
// or a connection event (control frames are events, never data).
type Event struct {
	Kind    EventKind
	Offset  int64    // stream offset of the frame (or head) the event comes from
	Data    []byte   // EventData: unmasked data, valid during the call; ping/pong: their payload
	Gap     int      // EventGap: bytes lost
	Upgrade *Upgrade // EventUpgrade
	Code    int      // EventClose: status code, 0 when absent
	Reason  string   // EventClose: the reason, UTF-8 by the RFC (escape before showing)
	// DataOffset is EventData's stream offset of Data[0] (Data[i] is at
	// DataOffset+i): by it a host finds the chunk that brought each byte,
	// and stamps the frames they end with it.
	DataOffset int64
}

// Config sets up a Decoder for one direction, and gives it the protocol's
// test and words.
type Config struct {
	// Upgrade says the stream starts with the HTTP head (the connection's
	// start was captured); false starts at a frame boundary.
	Upgrade bool
	// Masked is whether this direction's frames must be masked (client to
	// server); nil learns it from the first frame.
	Masked *bool
	// MidStream says the connection was joined mid-stream, its HTTP
	// upgrade not captured (Upgrade is then false): the first byte need not
	// start a frame, so the decoder starts by resynchronising on frame
	// headers, with Judge's evidence when there is one, and says so (on
	// the masked side, or either when Masked is nil).
	MidStream bool
	// Judge is the protocol's test of the data frames a MidStream decoder
	// resynchronises on before its first frame boundary (Search). nil
	// trusts two frame headers that chain.
	Judge Judge

	// The protocol's words in the decoder's findings:
	//
	// ErrorPrefix goes before the text of a parse error ("ulinkrpc "
	// makes ULinkRPC's read "ulinkrpc websocket: ...").
	ErrorPrefix string
	// Inferred says, in the note of a MidStream decoder, what the framing
	// is inferred to be ("binary frames each holding one ULinkRPC frame,
	// masked from the client only"); "" says nothing more.
	Inferred string
	// Binary names the protocol when it sends binary messages only: the
	// first text message is noted, its bytes handed on all the same. ""
	// notes none.
	Binary string
}

type state uint8

const (
	stateHTTP state = iota
	stateHeader
	statePayload
	stateLost // resynchronising on frame headers after a gap
	stateDead // not a WebSocket (a refused upgrade, garbage head)
)

// Decoder decodes one direction of a WebSocket connection: the HTTP
// upgrade head, then RFC 6455 frames, unmasked, their data bytes handed on
// whatever the message and frame boundaries (a protocol whose receiver
// frames the bytes of every message alike, as ULinkRPC's does, frames
// them itself). It streams: a data frame's payload is never buffered
// whole, so memory is bounded by the head (MaxUpgradeLen), a control frame
// (125 bytes) and the resynchronisation buffer (Bound).
//
// Findings about the stream (a refused upgrade, bad headers, bytes skipped
// while resynchronising, gaps, closes) collect inside; Findings drains
// them, End returns the rest. They are connection findings: Bit is -1.
type Decoder struct {
	cfg    Config
	state  state
	masked *bool
	off    int64

	head   []byte // stateHTTP: the head so far; stateHeader: the frame header so far
	hdr    Header
	hdrOff int64
	left   uint64 // payload bytes still to come
	at     int    // payload bytes seen (the mask's phase)
	ctrl   []byte // a control frame's payload
	scr    []byte // unmasking scratch

	inMessage bool // a data message is open (a frame without FIN seen)
	midStart  bool // joined mid-stream, not yet synchronised: resync with the Judge
	textSeen  bool

	rbuf    []byte // stateLost: bytes from rbufOff on
	rbufOff int64
	skipped int // bytes skipped while resynchronising, not yet reported
	// let is how many bytes of the frame header being collected Abandon let
	// go: they are not Held any more.
	let int

	findings []dissect.Finding
}

// New returns a decoder for one direction.
func New(cfg Config) *Decoder {
	w := &Decoder{cfg: cfg, state: stateHeader, masked: cfg.Masked}
	switch {
	case cfg.Upgrade:
		w.state = stateHTTP
	case cfg.MidStream:
		// One note per connection: on the client side, whose frames are
		// masked.
		if cfg.Masked == nil || *cfg.Masked {
			text := "websocket: the HTTP upgrade was not captured: WebSocket framing inferred from the bytes"
			if cfg.Inferred != "" {
				text += " (" + cfg.Inferred + ")"
			}
			w.find(dissect.Note, dissect.Inference, text+"; resynchronising on frame headers")
		}
		w.midStart = true
		w.lose(0, nil)
	}
	return w
}

// Findings returns the findings collected since the last call and forgets
// them. They are connection findings (Bit -1).
func (w *Decoder) Findings() []dissect.Finding {
	fs := w.findings
	w.findings = nil
	return fs
}

func (w *Decoder) find(sev dissect.Severity, group dissect.Group, text string) {
	w.findings = append(w.findings, dissect.Finding{Severity: sev, Group: group, Text: text, Bit: -1})
}

func (w *Decoder) findf(sev dissect.Severity, group dissect.Group, format string, args ...any) {
	w.find(sev, group, fmt.Sprintf(format, args...))
}

// Feed consumes a chunk of the TCP stream, calling ev for each event.
func (w *Decoder) Feed(chunk []byte, ev func(Event)) {
	for len(chunk) > 0 {
		switch w.state {
		case stateHTTP:
			chunk = w.feedHTTP(chunk, ev)
		case stateHeader:
			chunk = w.feedHeader(chunk, ev)
		case statePayload:
			chunk = w.feedPayload(chunk, ev)
		case stateLost:
			chunk = w.feedLost(chunk, ev)
		default:
			w.off += int64(len(chunk))
			return
		}
	}
}

func (w *Decoder) feedHTTP(c []byte, ev func(Event)) []byte {
	k := min(len(c), MaxUpgradeLen-len(w.head))
	start := len(w.head)
	w.head = append(w.head, c[:k]...)
	u, err := ParseUpgrade(w.head)
	if errors.Is(err, transport.ErrShort) {
		if len(w.head) >= MaxUpgradeLen {
			w.findf(dissect.Error, dissect.Malformed, "websocket: no end of the HTTP head within %d bytes", MaxUpgradeLen)
			w.state = stateDead
		}
		w.off += int64(k)
		return c[k:]
	}
	used := u.Len - start
	w.off += int64(used)
	w.head = w.head[:0]
	if err != nil {
		w.find(dissect.Error, dissect.Malformed, w.cfg.ErrorPrefix+err.Error())
		w.state = stateDead
		return c[used:]
	}
	ev(Event{Kind: EventUpgrade, Offset: w.off - int64(u.Len), Upgrade: &u})
	switch {
	case u.Request && !u.WebSocket():
		w.findf(dissect.Warn, dissect.Protocol, "websocket: %s %s is not an upgrade request", u.Method, u.Target)
		w.state = stateDead
	case !u.Request && !u.WebSocket():
		w.findf(dissect.Note, dissect.Protocol, "websocket: upgrade refused: %d %s", u.Status, u.Reason)
		w.state = stateDead
	default:
		if u.Header("Sec-WebSocket-Extensions") != "" && !u.Request {
			w.findf(dissect.Warn, dissect.Undecoded, "websocket: extensions negotiated (%s): frames with reserved bits cannot be decoded", u.Header("Sec-WebSocket-Extensions"))
		}
		w.state = stateHeader
	}
	return c[used:]
}

// feedHeader collects a frame header (2..14 bytes) and checks it.
func (w *Decoder) feedHeader(c []byte, ev func(Event)) []byte {
	if len(w.head) == 0 {
		w.hdrOff, w.let = w.off, 0
	}
	for len(c) > 0 {
		k := min(headerSize(w.head)-len(w.head), len(c))
		w.head = append(w.head, c[:k]...)
		c = c[k:]
		w.off += int64(k)
		if len(w.head) < headerSize(w.head) {
			continue
		}
		h, err := ParseHeader(w.head)
		if err != nil {
			w.findf(dissect.Error, dissect.Malformed, "%s%v (frame at stream offset %d)", w.cfg.ErrorPrefix, err, w.hdrOff)
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

func (w *Decoder) frameStart(h Header, ev func(Event)) {
	w.hdr, w.left, w.at = h, h.Len, 0
	w.ctrl = w.ctrl[:0]
	if w.masked == nil {
		m := h.Masked
		w.masked = &m
	} else if *w.masked != h.Masked {
		w.findf(dissect.Warn, dissect.Protocol, "websocket: %s frame at stream offset %d: masked %v, this direction's frames are masked %v", h.Opcode, w.hdrOff, h.Masked, *w.masked)
	}
	if !h.Opcode.Control() {
		switch {
		case h.Opcode == OpContinuation && !w.inMessage:
			w.findf(dissect.Warn, dissect.Sequence, "websocket: continuation frame at stream offset %d with no message open", w.hdrOff)
		case h.Opcode != OpContinuation && w.inMessage:
			w.findf(dissect.Warn, dissect.Sequence, "websocket: new %s message at stream offset %d before the last one ended", h.Opcode, w.hdrOff)
		}
		if h.Opcode == OpText && !w.textSeen {
			w.textSeen = true
			if w.cfg.Binary != "" {
				w.findf(dissect.Note, dissect.Protocol, "websocket: text message at stream offset %d (%s sends binary); its bytes are framed all the same", w.hdrOff, w.cfg.Binary)
			}
		}
		w.inMessage = !h.Fin
	}
	w.state = statePayload
	if w.left == 0 {
		w.frameEnd(ev)
	}
}

func (w *Decoder) feedPayload(c []byte, ev func(Event)) []byte {
	k := int(min(uint64(len(c)), w.left))
	p := c[:k]
	if w.hdr.Masked {
		w.scr = append(w.scr[:0], p...)
		p = w.scr
		Unmask(p, w.hdr.Key, w.at)
	}
	if w.hdr.Opcode.Control() {
		w.ctrl = append(w.ctrl, p...)
	} else if k > 0 {
		ev(Event{Kind: EventData, Offset: w.hdrOff, Data: p, DataOffset: w.off})
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
func (w *Decoder) frameEnd(ev func(Event)) {
	w.state = stateHeader
	if !w.hdr.Opcode.Control() {
		return
	}
	e := Event{Offset: w.hdrOff, Data: w.ctrl}
	switch w.hdr.Opcode {
	case OpPing:
		e.Kind = EventPing
	case OpPong:
		e.Kind = EventPong
	default:
		e.Kind = EventClose
		code, reason, err := CloseBody(w.ctrl)
		if err != nil {
			w.find(dissect.Error, dissect.Malformed, w.cfg.ErrorPrefix+err.Error())
		}
		e.Code, e.Reason = code, reason
		w.findf(dissect.Note, dissect.Protocol, "websocket: close at stream offset %d, code %d, reason %q", w.hdrOff, code, reason)
	}
	ev(e)
}

// Gap says n bytes of the TCP stream were lost. Inside a data frame's
// payload the frame goes on (the mask's phase is known) and ev gets an
// EventGap; across a frame boundary the decoder resynchronises on frame
// headers.
func (w *Decoder) Gap(n int, ev func(Event)) {
	if n <= 0 {
		return
	}
	switch {
	case w.state == stateDead:
	case w.state == statePayload && !w.hdr.Opcode.Control() && uint64(n) <= w.left:
		ev(Event{Kind: EventGap, Offset: w.hdrOff, Gap: n})
		w.left -= uint64(n)
		w.at += n
		if w.left == 0 {
			w.frameEnd(ev)
		}
	case w.state == stateHTTP:
		w.findf(dissect.Error, dissect.Sequence, "websocket: gap of %s in the HTTP head", dissect.Count(n, "byte"))
		w.state = stateDead
	default:
		ev(Event{Kind: EventGap, Offset: w.off, Gap: n})
		if w.state == stateLost {
			w.skipped += len(w.rbuf)
		}
		w.findf(dissect.Warn, dissect.Sequence, "websocket: gap of %s at stream offset %d across a frame boundary: resynchronising", dissect.Count(n, "byte"), w.off)
		w.head = w.head[:0]
		w.lose(w.off+int64(n), nil)
	}
	w.off += int64(n)
}

// End ends the stream and returns the findings not yet drained: a partial
// frame, bytes skipped while resynchronising (after one last try: frames
// that chain exactly to the last byte are decoded).
func (w *Decoder) End(ev func(Event)) []dissect.Finding {
	switch w.state {
	case stateLost:
		w.scan(ev, true)
		if w.state == stateLost {
			w.skipped += len(w.rbuf)
			w.rbuf = w.rbuf[:0]
		}
		w.reportSkip(" at the end of the stream")
	case stateHTTP:
		if len(w.head) > 0 {
			w.findf(dissect.Warn, dissect.Sequence, "websocket: the stream ended inside the HTTP head (%d bytes)", len(w.head))
		}
	}
	if w.state == statePayload || w.state == stateHeader && len(w.head) > 0 {
		w.findf(dissect.Warn, dissect.Sequence, "websocket: the stream ended inside a frame at stream offset %d", w.hdrOff)
	}
	w.head = w.head[:0]
	w.state = stateHeader
	w.reportSkip(" at the end of the stream")
	return w.Findings()
}
