package lp

import (
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
)

// Config is a Framer's protocol: its header, its bounds, its search and
// the words of its findings.
type Config struct {
	Width  int  // header bytes: 2 or 4
	Little bool // the header is little-endian (big-endian otherwise)
	// MaxLen is the per-frame cap while synchronised: a longer length is
	// corruption (a finding) and the framer resynchronises.
	MaxLen int
	// Rule is the resynchronisation search; its Width and Little are the
	// header's.
	Rule Rule
	// ZeroClose makes a zero length a close (counted in Closes, noted, not
	// yielded: ulinkrpc.md 2) rather than corruption (wire.md 2).
	ZeroClose bool
	// KeepBody is the largest partial-frame buffer kept between frames.
	KeepBody int
	// Frame and Header name a frame and its length header in findings
	// ("message" and "header"; "frame" and "prefix"); Invalid prefixes a
	// length above MaxLen ("" or "invalid ").
	Frame, Header, Invalid string
	// Budget, when not nil, is a shared allowance the partial frame's
	// buffer draws from (a capture-wide memory budget): a partial frame
	// whose growth the Budget refuses is dropped as DropPartial drops it,
	// with the Budget's reason, and the framer stays synchronised on the
	// frame after it.
	Budget Budget
}

// Budget is a shared allowance of buffer bytes that several framers (and
// other buffers of a protocol) draw from.
type Budget interface {
	// Adjust changes the bytes held by delta. A positive delta that would
	// take the total past the bound is refused: Adjust reports false and
	// changes nothing.
	Adjust(delta int) bool
	// Over reports whether more than the bound is held.
	Over() bool
	// Reason is the why of a finding when a buffer is dropped for it.
	Reason() string
}

// FrameInfo says where a frame came from in its direction's byte stream.
type FrameInfo struct {
	Offset   int64 // stream offset of the frame's length header (lost bytes count)
	Skipped  int   // bytes skipped by resynchronisation just before this header, 0 normally
	Resynced bool  // the first frame after a resynchronisation (start mid-stream, gap, corrupt length)
}

// Stats counts what a Framer did with its bytes. At any time
// Fed == Framed + Skipped + Dropped + Closes×Width + Buffered.
type Stats struct {
	Fed      int64 // bytes given to Feed
	Lost     int64 // bytes announced lost by Gap
	Frames   int64 // frames yielded
	Framed   int64 // bytes of yielded frames, their headers included
	Closes   int64 // zero-length frames read as a close (ZeroClose)
	Skipped  int64 // bytes skipped while resynchronising
	Dropped  int64 // bytes of partial frames dropped at a gap or at the end
	Buffered int64 // bytes held now: a partial frame, or data awaiting resynchronisation
}

// Framer cuts one direction's length-prefixed byte stream into frames. It
// takes the stream in chunks of any size; a header or a body may straddle
// chunks. A Framer starts synchronised, at a frame boundary, as after a
// captured SYN; StartUnsynced and Gap make it resynchronise, and so does a
// length it refuses.
//
// Findings about the stream (skipped bytes, corrupt lengths, dropped
// partial frames, closes) collect inside the Framer; Findings drains
// them, End returns the rest. They are connection-level findings: Bit is
// -1.
type Framer struct {
	cfg    Config
	be2    bool // the 2-byte big-endian header: the hot loop without a switch
	off    int64
	synced bool

	// Synchronised: the partial frame, if any.
	hdr    [4]byte
	hdrN   int // header bytes held; Width once the body is being collected
	need   int // body length, valid when hdrN == Width
	body   []byte
	msgOff int64 // stream offset of the partial frame's header
	// discard is the rest of a partial frame dropped by DropPartial,
	// still to arrive: those bytes are counted as dropped, not framed.
	discard int
	// held is cap(body) as counted in cfg.Budget.
	held int

	// Resynchronising: the bytes of rbuf[rstart:] end at off.
	rbuf   []byte
	rstart int

	resynced bool  // the next frame is the first after a resynchronisation
	skipped  int   // bytes skipped since the last frame, contiguous
	skipOff  int64 // stream offset of the first of them

	findings []dissect.Finding
	stats    Stats
}

// New returns a synchronised Framer of cfg.
func New(cfg Config) *Framer {
	cfg.Rule.Width, cfg.Rule.Little = cfg.Width, cfg.Little
	return &Framer{cfg: cfg, synced: true, be2: cfg.Width == 2 && !cfg.Little}
}

// Synced reports whether the framer is at a known frame boundary or inside
// a frame it is collecting, as opposed to resynchronising.
func (f *Framer) Synced() bool { return f.synced }

// Offset is the stream offset of the next byte to arrive: bytes fed plus
// bytes lost.
func (f *Framer) Offset() int64 { return f.off }

// Stats returns the framer's counters.
func (f *Framer) Stats() Stats {
	s := f.stats
	s.Buffered = int64(f.buffered())
	return s
}

func (f *Framer) buffered() int {
	if !f.synced {
		return len(f.rbuf) - f.rstart
	}
	if f.hdrN == f.cfg.Width {
		return f.cfg.Width + len(f.body)
	}
	return f.hdrN
}

// Feed consumes a chunk of the stream. For each frame it completes it
// calls yield with the frame (without its header) and where it came from.
// frame aliases chunk when it lies wholly in it, else an internal buffer;
// it is valid only during the call. yield may be nil.
func (f *Framer) Feed(chunk []byte, yield func(frame []byte, info FrameInfo)) {
	f.stats.Fed += int64(len(chunk))
	for len(chunk) > 0 {
		if f.synced {
			chunk = f.feedSynced(chunk, yield)
		} else {
			chunk = f.feedUnsynced(chunk, yield)
		}
	}
}

// refused handles a length the synchronised framer does not take as a
// frame (0, or above MaxLen) at stream offset off: a close (ZeroClose:
// counted and noted, true) or corruption (a finding, and the framer
// resynchronises: false).
func (f *Framer) refused(n int, off int64) bool {
	if n == 0 && f.cfg.ZeroClose {
		f.stats.Closes++
		f.findings = append(f.findings, dissect.Finding{Severity: dissect.Note, Group: dissect.Protocol, Bit: -1,
			Text: fmt.Sprintf("framing: zero-length %s (a close) at stream offset %d", f.cfg.Frame, off)})
		return true
	}
	text := fmt.Sprintf("framing: length 0 at stream offset %d", off)
	if n != 0 {
		text = fmt.Sprintf("framing: %slength %d above the limit %d at stream offset %d", f.cfg.Invalid, n, f.cfg.MaxLen, off)
	}
	f.findings = append(f.findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: text, Bit: -1})
	f.unsync()
	return false
}

// whole frames the whole frames at the front of c, from a frame boundary,
// without copying (the hot path), and returns the rest: empty, a partial
// frame, or (the framer then unsynchronised) a refused header.
func (f *Framer) whole(c []byte, yield func([]byte, FrameInfo)) []byte {
	if f.be2 {
		// SystemSockets' header (wire.md 2), read without the general
		// length's switch.
		for len(c) >= 2 {
			n := int(c[0])<<8 | int(c[1])
			if n == 0 || n > f.cfg.MaxLen {
				if !f.refused(n, f.off) {
					return c
				}
				f.off += 2
				c = c[2:]
				continue
			}
			if len(c) < 2+n {
				break
			}
			f.emit(c[2:2+n], f.off, yield)
			f.off += int64(2 + n)
			c = c[2+n:]
		}
		return c
	}
	w := f.cfg.Width
	for len(c) >= w {
		n := f.cfg.Rule.length(c)
		if n == 0 || n > f.cfg.MaxLen {
			if !f.refused(n, f.off) {
				return c
			}
			f.off += int64(w)
			c = c[w:]
			continue
		}
		if len(c)-w < n {
			break
		}
		f.emit(c[w:w+n], f.off, yield)
		f.off += int64(w + n)
		c = c[w+n:]
	}
	return c
}

// feedSynced frames c from a frame boundary or a partial frame. It
// returns nil once c is consumed, or the rest of c from the first byte
// after which the framer lost synchronisation.
func (f *Framer) feedSynced(c []byte, yield func([]byte, FrameInfo)) []byte {
	w := f.cfg.Width
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
			c = f.whole(c, yield)
			if !f.synced {
				return c
			}
			if len(c) == 0 {
				return nil
			}
			f.msgOff = f.off
		}
		if f.hdrN < w {
			// The header may straddle segments, so it is read byte by
			// byte.
			f.hdr[f.hdrN] = c[0]
			f.hdrN++
			if f.hdrN < w {
				f.off++
				c = c[1:]
				continue
			}
			n := f.cfg.Rule.length(f.hdr[:])
			if n == 0 || n > f.cfg.MaxLen {
				if !f.refused(n, f.msgOff) {
					// The header's first bytes arrived before c: its first
					// byte, the first candidate rejected, is skipped, and
					// the search restarts at the second, as if the header
					// had arrived in one piece (the rest of it is in c).
					f.skip(1, f.msgOff)
					f.rbuf = append(f.rbuf, f.hdr[1:w-1]...)
					return c
				}
				f.hdrN = 0
				f.off++
				c = c[1:]
				continue
			}
			f.off++
			c = c[1:]
			f.need = n
			f.body = f.body[:0]
			continue
		}
		k := min(f.need-len(f.body), len(c))
		if len(f.body)+k > cap(f.body) {
			// Grow as append would, but never past the frame: the buffer
			// is what Held counts.
			n := min(f.need, max(2*cap(f.body), len(f.body)+k, 512))
			if f.cfg.Budget != nil {
				if !f.cfg.Budget.Adjust(n - f.held) {
					f.DropPartial(f.cfg.Budget.Reason())
					continue
				}
				f.held = n
			}
			nb := make([]byte, len(f.body), n)
			copy(nb, f.body)
			f.body = nb
		}
		f.body = append(f.body, c[:k]...)
		f.off += int64(k)
		c = c[k:]
		if len(f.body) == f.need {
			f.hdrN = 0
			f.emit(f.body, f.msgOff, yield)
			if cap(f.body) > f.cfg.KeepBody || (f.cfg.Budget != nil && f.cfg.Budget.Over()) {
				// An idle direction keeps no large buffer: across
				// thousands of connections they would add up (Held).
				f.body = nil
				f.account()
			}
		}
	}
	return nil
}

// account settles cap(body) in the Budget after the buffer was let go.
func (f *Framer) account() {
	if f.cfg.Budget != nil {
		f.cfg.Budget.Adjust(cap(f.body) - f.held)
		f.held = cap(f.body)
	}
}

// emit yields one frame and settles the counters.
func (f *Framer) emit(frame []byte, off int64, yield func([]byte, FrameInfo)) {
	info := FrameInfo{Offset: off, Skipped: f.skipped, Resynced: f.resynced}
	f.skipped, f.resynced = 0, false
	f.stats.Frames++
	f.stats.Framed += int64(f.cfg.Width + len(frame))
	if yield != nil {
		yield(frame, info)
	}
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

// feedUnsynced buffers c while resynchronising and returns the part of c
// not yet consumed once the framer is synchronised again (nil if all of c
// went into the buffer).
func (f *Framer) feedUnsynced(c []byte, yield func([]byte, FrameInfo)) []byte {
	for len(c) > 0 && !f.synced {
		active := len(f.rbuf) - f.rstart
		take := min(f.cfg.Rule.Bound()-active, len(c))
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
	n, found := f.cfg.Rule.Search(d, final)
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
	// A length after the accepted chain was refused: keep
	// resynchronising over the rest of d, a tail of rbuf. unsync reset
	// rbuf's length, not its bytes.
	f.rbuf = f.rbuf[:total]
	f.rstart = total - len(rest)
	f.off = end
}

// Gap tells the framer that n bytes of the stream were lost (a capture
// gap). A partial frame is dropped, bytes awaiting resynchronisation are
// skipped (both reported as findings), and the framer resynchronises on
// the bytes that follow.
func (f *Framer) Gap(n int) {
	f.cut("before a gap of " + dissect.Count(n, "byte"))
	if n > 0 {
		f.off += int64(n)
		f.stats.Lost += int64(n)
	}
	f.unsync()
}

// StartUnsynced says the stream was joined mid-connection (no SYN seen),
// so the next byte need not start a frame: the framer resynchronises from
// it. Called mid-stream, it drops a partial frame as Gap(0) does.
func (f *Framer) StartUnsynced() {
	f.cut("before a restart mid-stream")
	f.unsync()
}

// cut ends the current stretch of contiguous stream: a partial frame is
// dropped, buffered resynchronisation bytes are skipped.
func (f *Framer) cut(why string) {
	f.discard = 0
	if f.synced {
		if held := f.buffered(); held > 0 {
			text := fmt.Sprintf("framing: dropped a partial %s at stream offset %d: had %d of %d %s bytes %s", f.cfg.Frame, f.msgOff, held, f.cfg.Width, f.cfg.Header, why)
			if f.hdrN == f.cfg.Width {
				text = fmt.Sprintf("framing: dropped a partial %s at stream offset %d: had %d of %d bytes %s", f.cfg.Frame, f.msgOff, held, f.cfg.Width+f.need, why)
			}
			f.findings = append(f.findings, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Text: text, Bit: -1})
			f.stats.Dropped += int64(held)
			f.hdrN = 0
			if f.cfg.Budget != nil && (cap(f.body) > f.cfg.KeepBody || f.cfg.Budget.Over()) {
				f.body = nil
				f.account()
			}
		}
	} else if active := len(f.rbuf) - f.rstart; active > 0 {
		f.skip(active, f.off-int64(active))
		f.rbuf, f.rstart = f.rbuf[:0], 0
	}
	f.reportSkip(why)
	f.skipped, f.resynced = 0, false
}

// Abandon gives up waiting for more bytes while resynchronising: the
// buffered bytes get End's last chance (the end rule), the rest are
// skipped and reported with why, and the framer keeps resynchronising on
// the bytes that follow. A synchronised framer is left as it is.
func (f *Framer) Abandon(why string, yield func(frame []byte, info FrameInfo)) {
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

// Held returns the bytes of memory the framer's buffers hold: the partial
// frame's buffer and the resynchronisation buffer, by capacity. A caller
// that runs many framers sums them to bound the total (SECURITY.md,
// max_total_buffer) and calls DropPartial on the largest past the bound.
func (f *Framer) Held() int { return cap(f.body) + cap(f.rbuf) }

// DropPartial frees the framer's buffers. A partial frame is dropped with
// a finding that says why; the rest of it is dropped as it arrives, so the
// framer stays synchronised on the frame after it. Bytes awaiting
// resynchronisation are skipped, and resynchronisation goes on with the
// bytes that follow. It returns the bytes freed (Held before the call).
func (f *Framer) DropPartial(why string) int {
	held := f.Held()
	w := f.cfg.Width
	if f.synced && f.hdrN == w {
		text := fmt.Sprintf("framing: dropped a partial %s at stream offset %d: had %d of %d bytes %s; its other %d bytes are dropped as they arrive",
			f.cfg.Frame, f.msgOff, w+len(f.body), w+f.need, why, f.need-len(f.body))
		f.findings = append(f.findings, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Text: text, Bit: -1})
		f.stats.Dropped += int64(w + len(f.body))
		f.discard = f.need - len(f.body)
		f.hdrN = 0
	} else if !f.synced {
		if active := len(f.rbuf) - f.rstart; active > 0 {
			// Skipped like any byte passed over while resynchronising,
			// so the next frame's Skipped and the resync finding count
			// them too.
			f.skip(active, f.off-int64(active))
			f.findings = append(f.findings, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Bit: -1,
				Text: fmt.Sprintf("framing: dropped %d bytes awaiting resynchronisation at stream offset %d %s", active, f.off-int64(active), why)})
		}
	}
	f.body, f.rbuf, f.rstart = nil, nil, 0
	f.account()
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
// last chance under the end rule (Rule.EndWhole frames chaining exactly to
// the last byte) and its frames are yielded (yield may be nil: then they
// count as skipped). A partial frame is dropped. End returns every finding
// not yet drained. Bytes fed after End are framed from a frame boundary.
func (f *Framer) End(yield func(frame []byte, info FrameInfo)) []dissect.Finding {
	if !f.synced && yield != nil && len(f.rbuf) > f.rstart && f.search(true) {
		f.resyncAt(f.rbuf[f.rstart:], yield)
	}
	f.cut("at the end of the stream")
	f.unsync()
	f.synced = true
	return f.Findings()
}

// Buffers returns the capacities of the partial frame's buffer and of the
// resynchronisation buffer (Held is their sum).
func (f *Framer) Buffers() (body, resync int) { return cap(f.body), cap(f.rbuf) }

// Bound is the most bytes resynchronisation holds to decide one candidate
// offset (Rule.Bound).
func (f *Framer) Bound() int { return f.cfg.Rule.Bound() }

// Flush is End without a yield: it ends the stream, drops a partial
// frame, counts bytes awaiting resynchronisation as skipped and returns
// every finding not yet drained.
func (f *Framer) Flush() []dissect.Finding { return f.End(nil) }
