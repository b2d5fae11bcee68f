package websocket

import (
	"errors"

	"github.com/usmnscope/usmnscope/decode/transport"
	"github.com/usmnscope/usmnscope/decode/transport/lp"
	"github.com/usmnscope/usmnscope/dissect"
)

// ResyncMaxLen caps the payload lengths a resynchronisation chain may
// hold: a longer frame is passed over, its bytes reported as skipped.
const ResyncMaxLen = 64 << 10

// chainMax is how many frames a chain that needs the Judge's evidence
// walks looking for a data frame that starts a message.
const chainMax = 8

// Judge is a protocol's test of a data frame that starts a message (text
// or binary), for a decoder joined mid-stream (Config.Judge) and for
// Search: h is its header, p the bytes of its payload at hand, still
// masked (Unmask with h.Key), all of it when len(p) == h.Len. It answers
// lp.Accept when the frame holds what the protocol sends (a first
// fragment, what its messages start with), lp.Reject when it cannot, and
// lp.Undecided while more of the payload could decide. A frame length and
// mask that chain by coincidence inside other bytes seldom also hold what
// a protocol sends.
type Judge func(h Header, p []byte) lp.Result

// chain checks the candidate at d[0]. Without a judge: two frame headers
// that chain (the second where the first frame ends), each valid and
// masked as masked says (nil: either); final: at the end, frames that end
// exactly on the last byte suffice. With one, the evidence is a data frame
// the judge accepts instead: the chain (control frames and the
// continuations of a message it saw start, at most chainMax frames) must
// reach one it accepts that ends its message, and may not start inside a
// message.
func chain(d []byte, masked *bool, final bool, judge Judge) lp.Result {
	more := lp.Undecided
	if final {
		more = lp.Reject
	}
	pos, open := 0, false // open: a fragmented message the judge accepted goes on
	for i := 0; ; i++ {
		if judge == nil && (i == 2 || final && i > 0 && pos == len(d)) {
			return lp.Accept
		}
		if i == chainMax {
			return lp.Reject
		}
		h, err := ParseHeader(d[pos:])
		if errors.Is(err, transport.ErrShort) {
			return more
		}
		if err != nil || (masked != nil && *masked != h.Masked) || h.Len > ResyncMaxLen {
			return lp.Reject
		}
		body := pos + h.Size
		pos = body + int(h.Len)
		switch {
		case judge == nil || h.Opcode.Control():
		case h.Opcode == OpContinuation:
			// A chain that starts in a message's continuation has not
			// seen what the message starts with.
			if !open {
				return lp.Reject
			}
			open = !h.Fin
		default:
			switch judge(h, d[body:min(pos, len(d))]) {
			case lp.Reject:
				return lp.Reject
			case lp.Undecided:
				return more
			}
			if pos > len(d) {
				return more
			}
			if h.Fin {
				return lp.Accept
			}
			open = true
			continue
		}
		if pos > len(d) {
			return more
		}
	}
}

// Search looks for WebSocket framing in a direction's first captured
// bytes when the connection's start (its HTTP upgrade) was not captured:
// the smallest offset from which frames chain, masked as masked says,
// with judge's evidence (nil: two headers that chain). found is true when
// one chains; decided is false while more bytes could still decide
// (final: there are no more).
func Search(b []byte, masked, final bool, judge Judge) (off int, found, decided bool) {
	for off = 0; off < len(b); off++ {
		switch chain(b[off:], &masked, final, judge) {
		case lp.Accept:
			return off, true, true
		case lp.Undecided:
			return off, false, false
		}
	}
	return len(b), false, final
}

// Bound is the most bytes a Decoder holds while it resynchronises.
func (w *Decoder) Bound() int { return 2*(14+ResyncMaxLen) + 14 }

// lose starts resynchronising on frame headers from stream offset off, with
// keep the bytes already consumed from there.
func (w *Decoder) lose(off int64, keep []byte) {
	w.state = stateLost
	w.rbuf = append(w.rbuf[:0], keep...)
	w.rbufOff = off
	w.inMessage = false
}

// chain checks the candidate at d[0] as this decoder resynchronises: with
// the Judge until its first frame boundary after joining mid-stream.
func (w *Decoder) chain(d []byte, final bool) lp.Result {
	var judge Judge
	if w.midStart {
		judge = w.cfg.Judge
	}
	return chain(d, w.masked, final, judge)
}

func (w *Decoder) feedLost(c []byte, ev func(Event)) []byte {
	for len(c) > 0 && w.state == stateLost {
		take := min(w.Bound()-len(w.rbuf), len(c))
		w.rbuf = append(w.rbuf, c[:take]...)
		w.off += int64(take)
		c = c[take:]
		w.scan(ev, false)
	}
	return c
}

// scan drops candidate offsets at the front of rbuf until one is accepted,
// then decodes rbuf from there.
func (w *Decoder) scan(ev func(Event), final bool) {
	drop := 0
	for drop < len(w.rbuf) {
		switch w.chain(w.rbuf[drop:], final) {
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
		w.state, w.off = stateHeader, w.rbufOff+int64(drop)
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
// those handed on meanwhile (a host's ordering waits on them): while it
// resynchronises on frame headers, every byte not yet placed; otherwise
// those of a frame header not yet whole past its third byte, unless
// Abandon let them go. A header that turns out bad is resynchronised on
// from its second byte, so a 2-byte header and its data may lie within
// it.
func (w *Decoder) Held() int {
	switch w.state {
	case stateLost:
		return len(w.rbuf)
	case stateHeader:
		return max(len(w.head)-max(3, w.let), 0)
	}
	return 0
}

// Offset is the stream offset of the next byte to arrive (lost bytes
// count): the bytes Held are the last Held() before it.
func (w *Decoder) Offset() int64 { return w.off }

// Abandon gives the bytes held while resynchronising their end-of-stream
// chance (frames that chain exactly to the last byte held are decoded),
// skips them otherwise (reported with why), and goes on resynchronising on
// the bytes that follow. A frame header not yet whole is not waited for
// any more (Held): it goes on, and should it turn out bad, the data within
// it is handed on as of the chunk that shows it bad. For a host whose
// queue of later messages reached its bound.
func (w *Decoder) Abandon(why string, ev func(Event)) {
	if w.state == stateHeader {
		w.let = len(w.head)
		return
	}
	if w.state != stateLost || len(w.rbuf) == 0 {
		return
	}
	w.scan(ev, true)
	if w.state == stateLost {
		w.skipped += len(w.rbuf)
		w.rbufOff += int64(len(w.rbuf))
		w.rbuf = w.rbuf[:0]
	}
	w.reportSkip(" " + why)
}

func (w *Decoder) reportSkip(why string) {
	if w.skipped > 0 {
		w.findf(dissect.Warn, dissect.Sequence, "websocket: resync: skipped %s%s", dissect.Count(w.skipped, "byte"), why)
		w.skipped = 0
	}
}
