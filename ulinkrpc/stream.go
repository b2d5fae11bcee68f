package ulinkrpc

import (
	"encoding/binary"
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/resync"
)

// Resynchronisation rules (ulinkrpc.md 2: "the smallest offset from which
// consecutive length prefixes chain and each frame parses exactly (three in
// a row, or up to the end of what was captured)").
const (
	// resyncFrames is how many consecutive frames must chain, each valid,
	// from a candidate offset before the stream trusts it.
	resyncFrames = 3
	// ResyncMaxLen caps the frame lengths a candidate chain may hold while
	// resynchronising (not while synchronised). Frames may be 64 MiB, but
	// holding three of those to decide one offset is not a bound worth
	// having; RPC frames are mostly small, and a chain through a larger real
	// frame is passed over, its bytes reported as skipped.
	ResyncMaxLen = 64 << 10
)

// FrameInfo says where a frame came from in its direction's byte stream.
type FrameInfo struct {
	Offset   int64 // stream offset of the frame's 4-byte length prefix (lost bytes count)
	Skipped  int   // bytes skipped by resynchronisation just before this prefix, 0 normally
	Resynced bool  // the first frame after a resynchronisation
}

// StreamStats counts what a Stream did with its bytes. At any time
// Fed == Framed + Skipped + Dropped + Closes×4 + Buffered.
type StreamStats struct {
	Fed      int64 // bytes given to Feed
	Lost     int64 // bytes announced lost by Gap
	Frames   int64 // frames yielded
	Framed   int64 // bytes of yielded frames, their prefixes included
	Closes   int64 // zero-length frames (a close, ulinkrpc.md 2)
	Skipped  int64 // bytes skipped while resynchronising
	Dropped  int64 // bytes of partial frames dropped at a gap or at the end
	Buffered int64 // bytes held now
}

// StreamConfig sets a Stream's bounds and its test of a frame.
type StreamConfig struct {
	// MaxLen is the per-frame cap: a longer length prefix is an invalid
	// length and the stream resynchronises. 0 or above MaxFrameLen means
	// MaxFrameLen, the real receiver's limit.
	MaxLen int
	// ResyncMaxLen caps frame lengths while resynchronising; 0 means
	// ResyncMaxLen.
	ResyncMaxLen int
	// Valid says whether a frame parses exactly, for resynchronisation. nil
	// means Plausible: a plain envelope or a transformed frame's shape.
	Valid func(frame []byte) bool
}

// Stream cuts one direction's `[length u32 BE][frame]` byte stream into
// frames (ulinkrpc.md 2), whatever the transport that carried it. It takes
// the stream in chunks of any size; a prefix or a frame may straddle
// chunks. It starts synchronised; StartUnsynced and Gap make it
// resynchronise, and so does an invalid length.
//
// Findings about the stream (invalid lengths, skipped bytes, dropped partial
// frames, closes) collect inside; Findings drains them, End returns the
// rest. They are connection findings: Bit is -1.
//
// While synchronised a Stream holds at most one partial frame, grown as its
// bytes arrive (never allocated from the length prefix alone), at most
// MaxLen bytes. While resynchronising it holds at most
// 3·(4+ResyncMaxLen)+4 bytes.
type Stream struct {
	maxLen int
	rule   resync.Rule // the resynchronisation search (ulinkrpc.md 2)

	off    int64 // stream offset of the next byte to arrive
	synced bool

	// Synchronised: the partial frame's prefix bytes, then its body.
	hdr    [4]byte
	hdrN   int
	need   int
	body   []byte
	msgOff int64

	// Resynchronising: the bytes of rbuf[rstart:] end at off.
	rbuf   []byte
	rstart int

	resynced bool
	skipped  int
	skipOff  int64

	findings []dissect.Finding
	stats    StreamStats
}

// NewStream returns a synchronised Stream.
func NewStream(cfg StreamConfig) *Stream {
	s := &Stream{maxLen: cfg.MaxLen, synced: true}
	if s.maxLen <= 0 || s.maxLen > MaxFrameLen {
		s.maxLen = MaxFrameLen
	}
	limit := cfg.ResyncMaxLen
	if limit <= 0 {
		limit = ResyncMaxLen
	}
	valid := cfg.Valid
	if valid == nil {
		valid = Plausible
	}
	// resyncFrames whole frames of 1..limit bytes, each valid, each prefix
	// where the previous frame ends; at the end, at least one frame ending
	// exactly on the last byte.
	s.rule = resync.Rule{Width: 4, Limit: min(limit, s.maxLen), Whole: resyncFrames, EndWhole: 1, Valid: valid}
	return s
}

// Synced reports whether the stream is at a frame boundary or inside a
// frame it is collecting, as opposed to resynchronising.
func (s *Stream) Synced() bool { return s.synced }

// Offset is the stream offset of the next byte: bytes fed plus bytes lost.
func (s *Stream) Offset() int64 { return s.off }

// Stats returns the counters.
func (s *Stream) Stats() StreamStats {
	st := s.stats
	st.Buffered = int64(s.buffered())
	return st
}

func (s *Stream) buffered() int {
	if !s.synced {
		return len(s.rbuf) - s.rstart
	}
	if s.hdrN == 4 {
		return 4 + len(s.body)
	}
	return s.hdrN
}

// Feed consumes a chunk. For each frame it completes it calls yield with the
// frame (without its prefix) and where it came from; frame aliases chunk or
// an internal buffer and is valid only during the call. yield may be nil.
func (s *Stream) Feed(chunk []byte, yield func(frame []byte, info FrameInfo)) {
	s.stats.Fed += int64(len(chunk))
	for len(chunk) > 0 {
		if s.synced {
			chunk = s.feedSynced(chunk, yield)
		} else {
			chunk = s.feedUnsynced(chunk, yield)
		}
	}
}

// lengthOK checks a prefix while synchronised; a 0 is a close, counted and
// noted but not yielded.
func (s *Stream) lengthOK(n uint32, off int64) bool {
	if n == 0 {
		s.stats.Closes++
		s.findings = append(s.findings, note(dissect.Protocol, -1, "framing: zero-length frame (a close) at stream offset %d", off))
		return true
	}
	if n > uint32(s.maxLen) {
		s.findings = append(s.findings, errf(dissect.Malformed, -1, "framing: invalid length %d above the limit %d at stream offset %d", n, s.maxLen, off))
		s.unsync()
		return false
	}
	return true
}

// feedSynced frames c from a frame boundary or a partial frame. It returns
// nil once c is consumed, or the rest of c from the byte after which the
// stream lost synchronisation.
func (s *Stream) feedSynced(c []byte, yield func([]byte, FrameInfo)) []byte {
	for len(c) > 0 {
		if s.hdrN == 0 {
			for len(c) >= 4 {
				n := binary.BigEndian.Uint32(c)
				if !s.lengthOK(n, s.off) {
					return c
				}
				if len(c)-4 < int(n) {
					break
				}
				if n > 0 {
					s.emit(c[4:4+n], s.off, yield)
				}
				s.off += int64(4 + n)
				c = c[4+n:]
			}
			if len(c) == 0 {
				return nil
			}
			s.msgOff = s.off
		}
		if s.hdrN < 4 {
			s.hdr[s.hdrN] = c[0]
			s.hdrN++
			if s.hdrN < 4 {
				s.off++
				c = c[1:]
				continue
			}
			n := binary.BigEndian.Uint32(s.hdr[:])
			if !s.lengthOK(n, s.msgOff) {
				// The prefix's first three bytes came before c and are held
				// in hdr: resynchronisation restarts at the second one, as
				// if the prefix had arrived in one piece.
				s.skip(1, s.msgOff)
				s.rbuf = append(s.rbuf, s.hdr[1:3]...)
				return c
			}
			s.off++
			c = c[1:]
			if n == 0 {
				s.hdrN = 0
				continue
			}
			s.need = int(n)
			s.body = s.body[:0]
			continue
		}
		k := min(s.need-len(s.body), len(c))
		s.body = append(s.body, c[:k]...)
		s.off += int64(k)
		c = c[k:]
		if len(s.body) == s.need {
			s.hdrN = 0
			s.emit(s.body, s.msgOff, yield)
			if cap(s.body) > 1<<20 {
				s.body = nil // do not keep a large frame's buffer
			}
		}
	}
	return nil
}

func (s *Stream) emit(frame []byte, off int64, yield func([]byte, FrameInfo)) {
	info := FrameInfo{Offset: off, Skipped: s.skipped, Resynced: s.resynced}
	s.skipped, s.resynced = 0, false
	s.stats.Frames++
	s.stats.Framed += int64(4 + len(frame))
	if yield != nil {
		yield(frame, info)
	}
}

func (s *Stream) unsync() {
	s.synced = false
	s.hdrN = 0
	s.body = s.body[:0]
	s.rbuf = s.rbuf[:0]
	s.rstart = 0
}

func (s *Stream) skip(n int, off int64) {
	if s.skipped == 0 {
		s.skipOff = off
	}
	s.skipped += n
	s.stats.Skipped += int64(n)
}

func (s *Stream) reportSkip(why string) {
	if s.skipped == 0 {
		return
	}
	text := fmt.Sprintf("resync: skipped %s at stream offset %d", dissect.Count(s.skipped, "byte"), s.skipOff)
	if why != "" {
		text += " " + why
	}
	s.findings = append(s.findings, warn(dissect.Sequence, -1, "%s", text))
}

// bound is the most bytes deciding one candidate offset can need.
func (s *Stream) bound() int { return s.rule.Bound() }

func (s *Stream) feedUnsynced(c []byte, yield func([]byte, FrameInfo)) []byte {
	for len(c) > 0 && !s.synced {
		active := len(s.rbuf) - s.rstart
		take := min(s.bound()-active, len(c))
		if s.rstart > 0 && len(s.rbuf)+take > cap(s.rbuf) {
			copy(s.rbuf, s.rbuf[s.rstart:])
			s.rbuf = s.rbuf[:active]
			s.rstart = 0
		}
		s.rbuf = append(s.rbuf, c[:take]...)
		s.off += int64(take)
		c = c[take:]
		s.scan(yield)
	}
	return c
}

func (s *Stream) scan(yield func([]byte, FrameInfo)) {
	for !s.synced {
		if !s.search(false) {
			return
		}
		s.resyncAt(s.rbuf[s.rstart:], yield)
	}
}

// search skips the rejected candidates at the front of the buffer and
// reports whether the one after them is accepted (final: by the end rule).
func (s *Stream) search(final bool) bool {
	d := s.rbuf[s.rstart:]
	n, found := s.rule.Search(d, final)
	if n > 0 {
		s.skip(n, s.off-int64(len(d)))
		s.rstart += n
	}
	return found
}

// resyncAt synchronises on d[0], the front of the buffer, and frames d.
func (s *Stream) resyncAt(d []byte, yield func([]byte, FrameInfo)) {
	end, total := s.off, len(s.rbuf)
	s.reportSkip("")
	s.synced, s.resynced = true, true
	s.off = end - int64(len(d))
	rest := s.feedSynced(d, yield)
	if s.synced {
		s.rbuf, s.rstart = s.rbuf[:0], 0
		return
	}
	// An invalid length after the accepted chain: keep resynchronising
	// over the rest of d, a tail of rbuf (unsync kept its bytes).
	s.rbuf = s.rbuf[:total]
	s.rstart = total - len(rest)
	s.off = end
}

// Gap says n bytes of the stream were lost. A partial frame is dropped,
// bytes awaiting resynchronisation are skipped (both reported) and the
// stream resynchronises on what follows.
func (s *Stream) Gap(n int) {
	s.cut("before a gap of " + dissect.Count(n, "byte"))
	if n > 0 {
		s.off += int64(n)
		s.stats.Lost += int64(n)
	}
	s.unsync()
}

// StartUnsynced says the stream was joined mid-connection: the next byte
// need not start a frame.
func (s *Stream) StartUnsynced() {
	s.cut("before a restart mid-stream")
	s.unsync()
}

func (s *Stream) cut(why string) {
	if s.synced {
		if held := s.buffered(); held > 0 {
			text := fmt.Sprintf("framing: dropped a partial frame at stream offset %d: had %d of 4 prefix bytes %s", s.msgOff, held, why)
			if s.hdrN == 4 {
				text = fmt.Sprintf("framing: dropped a partial frame at stream offset %d: had %d of %d bytes %s", s.msgOff, held, 4+s.need, why)
			}
			s.findings = append(s.findings, warn(dissect.Sequence, -1, "%s", text))
			s.stats.Dropped += int64(held)
			s.hdrN = 0
			s.body = s.body[:0]
		}
	} else if active := len(s.rbuf) - s.rstart; active > 0 {
		s.skip(active, s.off-int64(active))
		s.rbuf, s.rstart = s.rbuf[:0], 0
	}
	s.reportSkip(why)
	s.skipped, s.resynced = 0, false
}

// Findings returns the findings collected since the last call and forgets
// them.
func (s *Stream) Findings() []dissect.Finding {
	fs := s.findings
	s.findings = nil
	return fs
}

// End ends the stream. While resynchronising, the buffered bytes get one
// last chance: a candidate from which valid frames chain exactly to the last
// byte is accepted and its frames yielded (yield may be nil: then they count
// as skipped). A partial frame is dropped. End returns every finding not yet
// drained; bytes fed after End are framed from a frame boundary.
func (s *Stream) End(yield func(frame []byte, info FrameInfo)) []dissect.Finding {
	if !s.synced && yield != nil && len(s.rbuf) > s.rstart && s.search(true) {
		s.resyncAt(s.rbuf[s.rstart:], yield)
	}
	s.cut("at the end of the stream")
	s.unsync()
	s.synced = true
	return s.Findings()
}
