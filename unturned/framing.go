package unturned

import (
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/resync"
)

// MaxFrameLen is the largest SystemSockets message: the length header is a
// 16-bit big-endian count (wire.md 2).
const MaxFrameLen = 65535

// Resynchronisation rules (wire.md 2: "find an offset from which consecutive
// length headers chain consistently").
const (
	// resyncHeaders is how many consecutive length headers must chain from a
	// candidate offset before the framer trusts it: the first two messages
	// are walked over whole and the third header must be a valid length.
	resyncHeaders = 3
	// endMessages is the shorter chain accepted at the end of the stream,
	// where no more data can arrive: this many whole messages ending exactly
	// on the last byte.
	endMessages = 2
	// ResyncMaxLen caps the lengths a candidate chain may have while
	// resynchronising (not while synchronised). With the full 16-bit range
	// every non-zero pair of bytes is a possible length, so chaining alone
	// would accept almost any offset of a message body; game messages are
	// mostly 10–200 bytes, and a length above 4096 found by searching is far
	// more likely message bytes than a header. The price: a chain through a
	// larger real message is passed over, and those bytes are reported as
	// skipped.
	ResyncMaxLen = 4096
)

// FrameInfo says where a message came from in its direction's byte stream.
type FrameInfo struct {
	Offset   int64 // stream offset of the message's 2-byte length header (lost bytes count)
	Skipped  int   // bytes skipped by resynchronisation just before this header, 0 normally
	Resynced bool  // the first message after a resynchronisation (start mid-stream, gap, corrupt length)
}

// FrameStats counts what a Framer did with its bytes. At any time
// Fed == Framed + Skipped + Dropped + Buffered.
type FrameStats struct {
	Fed      int64 // bytes given to Feed
	Lost     int64 // bytes announced lost by Gap
	Messages int64 // messages yielded
	Framed   int64 // bytes of yielded messages, their headers included
	Skipped  int64 // bytes skipped while resynchronising
	Dropped  int64 // bytes of partial messages dropped at a gap or at the end
	Buffered int64 // bytes held now: a partial message, or data awaiting resynchronisation
}

// Framer cuts one direction's SystemSockets byte stream into messages
// (wire.md 2). It takes the stream in chunks of any size; a length header or
// a body may straddle chunks. A Framer starts synchronised, at a message
// boundary, as after a captured SYN; StartUnsynced and Gap make it
// resynchronise.
//
// Findings about the stream (skipped bytes, corrupt lengths, dropped partial
// messages) collect inside the Framer; Findings drains them, End returns the
// rest. They are connection-level findings: Bit is -1.
//
// While synchronised a Framer holds at most one partial message; a message
// that lies wholly in a chunk is yielded without copying. While resynchronising
// it holds at most 2·(2+min(maxLen, ResyncMaxLen))+2 bytes, the most that
// deciding one candidate offset can need.
type Framer struct {
	maxLen int
	rule   resync.Rule // the resynchronisation search (wire.md 2)
	off    int64       // stream offset of the next byte to arrive
	synced bool

	// Synchronised: the partial message, if any.
	hdr    [2]byte
	hdrN   int // header bytes held; 2 once the body is being collected
	need   int // body length, valid when hdrN == 2
	body   []byte
	msgOff int64 // stream offset of the partial message's header
	// discard is the rest of a partial message dropped by DropPartial,
	// still to arrive: those bytes are counted as dropped, not framed.
	discard int

	// Resynchronising: the bytes of rbuf[rstart:] end at off.
	rbuf   []byte
	rstart int

	resynced bool  // the next message is the first after a resynchronisation
	skipped  int   // bytes skipped since the last message, contiguous
	skipOff  int64 // stream offset of the first of them

	findings []dissect.Finding
	stats    FrameStats
}

// NewFramer returns a Framer that accepts messages of 1..maxLen bytes. A
// length above maxLen is a resource bound, not a protocol rule: it is
// treated as corruption and the framer resynchronises. maxLen outside
// 1..MaxFrameLen means MaxFrameLen.
//
// Resynchronisation accepts only lengths up to min(maxLen, ResyncMaxLen).
func NewFramer(maxLen int) *Framer {
	if maxLen < 1 || maxLen > MaxFrameLen {
		maxLen = MaxFrameLen
	}
	return &Framer{maxLen: maxLen, synced: true, rule: resyncRule(maxLen)}
}

// resyncRule is wire.md 2's search: from a candidate offset, resyncHeaders
// 2-byte big-endian lengths of 1..min(maxLen, ResyncMaxLen) chain (the
// first messages walked over whole, the last header only read); at the end
// of the stream, endMessages whole messages ending on the last byte.
func resyncRule(maxLen int) resync.Rule {
	return resync.Rule{Width: 2, Limit: min(maxLen, ResyncMaxLen), Whole: resyncHeaders - 1, Header: true, EndWhole: endMessages}
}

// Synced reports whether the framer is at a known message boundary or inside
// a message it is collecting, as opposed to resynchronising.
func (f *Framer) Synced() bool { return f.synced }

// Offset is the stream offset of the next byte to arrive: bytes fed plus
// bytes lost.
func (f *Framer) Offset() int64 { return f.off }

// Stats returns the framer's counters.
func (f *Framer) Stats() FrameStats {
	s := f.stats
	s.Buffered = int64(f.buffered())
	return s
}

func (f *Framer) buffered() int {
	if !f.synced {
		return len(f.rbuf) - f.rstart
	}
	if f.hdrN == 2 {
		return 2 + len(f.body)
	}
	return f.hdrN
}

// Feed consumes a chunk of the stream. For each message it completes it
// calls yield with the message bytes (without the length header) and where
// they came from. msg aliases chunk when the message lies wholly in it, else
// an internal buffer; it is valid only during the call. yield may be nil.
func (f *Framer) Feed(chunk []byte, yield func(msg []byte, info FrameInfo)) {
	f.stats.Fed += int64(len(chunk))
	for len(chunk) > 0 {
		if f.synced {
			chunk = f.feedSynced(chunk, yield)
		} else {
			chunk = f.feedUnsynced(chunk, yield)
		}
	}
}

// feedSynced frames c from a message boundary or a partial message. It
// returns nil once c is consumed, or the rest of c from the first byte of a
// corrupt length header, leaving the framer unsynchronised.
func (f *Framer) feedSynced(c []byte, yield func([]byte, FrameInfo)) []byte {
	for len(c) > 0 {
		if f.discard > 0 {
			k := min(f.discard, len(c))
			f.discard -= k
			f.stats.Dropped += int64(k)
			f.off += int64(k)
			c = c[k:]
			continue
		}
		if f.hdrN == 0 {
			// The hot path: whole messages inside the chunk, no copying.
			for len(c) >= 2 {
				n := int(c[0])<<8 | int(c[1])
				if n == 0 || n > f.maxLen {
					f.corrupt(n, f.off)
					return c
				}
				if len(c) < 2+n {
					break
				}
				f.emit(c[2:2+n], f.off, yield)
				f.off += int64(2 + n)
				c = c[2+n:]
			}
			if len(c) == 0 {
				return nil
			}
			f.msgOff = f.off
		}
		if f.hdrN < 2 {
			// wire.md 2: the header may straddle segments, so it is read
			// byte by byte.
			f.hdr[f.hdrN] = c[0]
			f.hdrN++
			if f.hdrN < 2 {
				f.off++
				c = c[1:]
				continue
			}
			n := int(f.hdr[0])<<8 | int(f.hdr[1])
			if n == 0 || n > f.maxLen {
				// The first header byte arrived in an earlier chunk and is
				// gone; as the start of a corrupt header it would be the
				// first candidate rejected, so it is skipped outright and
				// resynchronisation starts at the second byte, still in c.
				f.hdrN = 0
				f.corrupt(n, f.msgOff)
				f.skip(1, f.msgOff)
				return c
			}
			f.off++
			c = c[1:]
			f.need = n
			f.body = f.body[:0]
			continue
		}
		k := min(f.need-len(f.body), len(c))
		if len(f.body)+k > cap(f.body) {
			// Grow as append would, but never past the message: the
			// buffer is what Held counts.
			nb := make([]byte, len(f.body), min(f.need, max(2*cap(f.body), len(f.body)+k, 512)))
			copy(nb, f.body)
			f.body = nb
		}
		f.body = append(f.body, c[:k]...)
		f.off += int64(k)
		c = c[k:]
		if len(f.body) == f.need {
			f.hdrN = 0
			f.emit(f.body, f.msgOff, yield)
			if cap(f.body) > keepBody {
				// An idle direction keeps no large buffer: across
				// thousands of connections they would add up (Held).
				f.body = nil
			}
		}
	}
	return nil
}

// emit yields one message and settles the counters.
func (f *Framer) emit(msg []byte, off int64, yield func([]byte, FrameInfo)) {
	info := FrameInfo{Offset: off, Skipped: f.skipped, Resynced: f.resynced}
	f.skipped, f.resynced = 0, false
	f.stats.Messages++
	f.stats.Framed += int64(2 + len(msg))
	if yield != nil {
		yield(msg, info)
	}
}

// corrupt records an impossible length header and leaves the framer
// resynchronising from that header.
func (f *Framer) corrupt(n int, off int64) {
	text := fmt.Sprintf("framing: length 0 at stream offset %d", off)
	if n != 0 {
		text = fmt.Sprintf("framing: length %d above the limit %d at stream offset %d", n, f.maxLen, off)
	}
	f.findings = append(f.findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: text, Bit: -1})
	f.unsync()
}

func (f *Framer) unsync() {
	f.synced = false
	f.hdrN = 0
	f.rbuf = f.rbuf[:0]
	f.rstart = 0
}

// skip counts n bytes at stream offset off as skipped.
func (f *Framer) skip(n int, off int64) {
	if f.skipped == 0 {
		f.skipOff = off
	}
	f.skipped += n
	f.stats.Skipped += int64(n)
}

// reportSkip turns the bytes skipped so far into a finding; why, if not
// empty, says what cut the resynchronisation short.
func (f *Framer) reportSkip(why string) {
	if f.skipped == 0 {
		return
	}
	text := fmt.Sprintf("resync: skipped %s at stream offset %d", dissect.Count(f.skipped, "byte"), f.skipOff)
	if why != "" {
		text += " " + why
	}
	f.findings = append(f.findings, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Text: text, Bit: -1})
}

// bound is the most bytes that deciding one candidate offset can need:
// two whole messages of the resynchronisation limit and a third header.
func (f *Framer) bound() int { return f.rule.Bound() }

// feedUnsynced buffers c while resynchronising and returns the part of c not
// yet consumed once the framer is synchronised again (nil if all of c went
// into the buffer).
func (f *Framer) feedUnsynced(c []byte, yield func([]byte, FrameInfo)) []byte {
	for len(c) > 0 && !f.synced {
		active := len(f.rbuf) - f.rstart
		take := min(f.bound()-active, len(c))
		if f.rstart > 0 && len(f.rbuf)+take > cap(f.rbuf) {
			copy(f.rbuf, f.rbuf[f.rstart:])
			f.rbuf = f.rbuf[:active]
			f.rstart = 0
		}
		f.rbuf = append(f.rbuf, c[:take]...)
		f.off += int64(take)
		c = c[take:]
		f.scan(yield)
	}
	return c
}

// scan rejects candidate offsets at the front of the buffer until one is
// accepted, then frames the buffer from there; it stops when the front
// candidate needs more data.
func (f *Framer) scan(yield func([]byte, FrameInfo)) {
	for !f.synced {
		if !f.search(false) {
			return
		}
		f.resyncAt(f.rbuf[f.rstart:], yield)
	}
}

// search skips the rejected candidates at the front of the buffer and
// reports whether the one after them is accepted (final: by the end rule).
func (f *Framer) search(final bool) bool {
	d := f.rbuf[f.rstart:]
	n, found := f.rule.Search(d, final)
	if n > 0 {
		f.skip(n, f.off-int64(len(d)))
		f.rstart += n
	}
	return found
}

// resyncAt synchronises on d[0], the front of the buffer, and frames d.
func (f *Framer) resyncAt(d []byte, yield func([]byte, FrameInfo)) {
	end, total := f.off, len(f.rbuf)
	f.reportSkip("")
	f.synced, f.resynced = true, true
	f.off = end - int64(len(d))
	rest := f.feedSynced(d, yield)
	if f.synced {
		f.rbuf, f.rstart = f.rbuf[:0], 0
		return
	}
	// A length after the accepted chain was corrupt: keep resynchronising
	// over the rest of d, a tail of rbuf. corrupt reset rbuf's length, not
	// its bytes.
	f.rbuf = f.rbuf[:total]
	f.rstart = total - len(rest)
	f.off = end
}

// Gap tells the framer that n bytes of the stream were lost (a capture
// gap). A partial message is dropped, bytes awaiting resynchronisation are
// skipped (both reported as findings), and the framer resynchronises on the
// bytes that follow.
func (f *Framer) Gap(n int) {
	f.cut("before a gap of " + dissect.Count(n, "byte"))
	if n > 0 {
		f.off += int64(n)
		f.stats.Lost += int64(n)
	}
	f.unsync()
}

// StartUnsynced says the stream was joined mid-connection (no SYN seen), so
// the next byte need not start a message: the framer resynchronises from it.
// Called mid-stream, it drops a partial message as Gap(0) does.
func (f *Framer) StartUnsynced() {
	f.cut("before a restart mid-stream")
	f.unsync()
}

// cut ends the current stretch of contiguous stream: a partial message is
// dropped, buffered resynchronisation bytes are skipped.
func (f *Framer) cut(why string) {
	f.discard = 0
	if f.synced {
		if held := f.buffered(); held > 0 {
			text := fmt.Sprintf("framing: dropped a partial message at stream offset %d: had %d of 2 header bytes %s", f.msgOff, held, why)
			if f.hdrN == 2 {
				text = fmt.Sprintf("framing: dropped a partial message at stream offset %d: had %d of %d bytes %s", f.msgOff, held, 2+f.need, why)
			}
			f.findings = append(f.findings, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Text: text, Bit: -1})
			f.stats.Dropped += int64(held)
			f.hdrN = 0
		}
	} else if active := len(f.rbuf) - f.rstart; active > 0 {
		f.skip(active, f.off-int64(active))
		f.rbuf, f.rstart = f.rbuf[:0], 0
	}
	f.reportSkip(why)
	f.skipped, f.resynced = 0, false
}

// Abandon gives up waiting for more bytes while resynchronising: the
// buffered bytes get End's last chance (a chain of at least two whole
// messages ending exactly on the last byte is framed and yielded), the rest
// are skipped and reported with why, and the framer keeps resynchronising on
// the bytes that follow. A synchronised framer is left as it is.
func (f *Framer) Abandon(why string, yield func(msg []byte, info FrameInfo)) {
	if !f.synced && len(f.rbuf) > f.rstart && f.search(true) {
		f.resyncAt(f.rbuf[f.rstart:], yield)
		return
	}
	if !f.synced {
		f.reportSkip(why)
		f.skipped = 0
		f.rbuf, f.rstart = f.rbuf[:0], 0
	}
}

// keepBody is the largest partial-message buffer a Framer keeps between
// messages.
const keepBody = 4096

// Held returns the bytes of memory the framer's buffers hold: the partial
// message's buffer and the resynchronisation buffer, by capacity. A caller
// that runs many framers sums them to bound the total (SECURITY.md,
// max_total_buffer) and calls DropPartial on the largest past the bound.
func (f *Framer) Held() int { return cap(f.body) + cap(f.rbuf) }

// DropPartial frees the framer's buffers. A partial message is dropped with
// a finding that says why; the rest of it is dropped as it arrives, so the
// framer stays synchronised on the message after it. Bytes awaiting
// resynchronisation are skipped, and resynchronisation goes on with the
// bytes that follow. It returns the bytes freed (Held before the call).
func (f *Framer) DropPartial(why string) int {
	held := f.Held()
	if f.synced && f.hdrN == 2 {
		text := fmt.Sprintf("framing: dropped a partial message at stream offset %d: had %d of %d bytes %s; its other %d bytes are dropped as they arrive",
			f.msgOff, 2+len(f.body), 2+f.need, why, f.need-len(f.body))
		f.findings = append(f.findings, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Text: text, Bit: -1})
		f.stats.Dropped += int64(2 + len(f.body))
		f.discard = f.need - len(f.body)
		f.hdrN = 0
	} else if !f.synced {
		if active := len(f.rbuf) - f.rstart; active > 0 {
			// Skipped like any byte passed over while resynchronising,
			// so the next message's Skipped and the resync finding
			// count them too.
			f.skip(active, f.off-int64(active))
			f.findings = append(f.findings, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Bit: -1,
				Text: fmt.Sprintf("framing: dropped %d bytes awaiting resynchronisation at stream offset %d %s", active, f.off-int64(active), why)})
		}
	}
	f.body, f.rbuf, f.rstart = nil, nil, 0
	return held
}

// Findings returns the findings collected since the last call and forgets
// them.
func (f *Framer) Findings() []dissect.Finding {
	fs := f.findings
	f.findings = nil
	return fs
}

// End ends the stream. While resynchronising, the buffered bytes get one
// last chance under a shorter rule: a candidate offset from which at least
// two whole messages chain exactly to the last byte is accepted and its
// messages are yielded (yield may be nil: then they count as skipped). A
// partial message is dropped. End returns every finding not yet drained.
// Bytes fed after End are framed from a message boundary.
func (f *Framer) End(yield func(msg []byte, info FrameInfo)) []dissect.Finding {
	if !f.synced && yield != nil && len(f.rbuf) > f.rstart && f.search(true) {
		f.resyncAt(f.rbuf[f.rstart:], yield)
	}
	f.cut("at the end of the stream")
	f.unsync()
	f.synced = true
	return f.Findings()
}

// Flush is End without a yield: it ends the stream, drops a partial message,
// counts bytes awaiting resynchronisation as skipped and returns every
// finding not yet drained.
func (f *Framer) Flush() []dissect.Finding { return f.End(nil) }
