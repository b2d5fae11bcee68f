package unturned

import (
	"github.com/usmnscope/usmnscope/decode/transport/lp"
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

// FrameInfo says where a message came from in its direction's byte
// stream: Offset is that of its 2-byte length header.
type FrameInfo = lp.FrameInfo

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
// (wire.md 2): the shared length-prefixed framer (lp.Framer) with
// SystemSockets' rule, a 2-byte big-endian length of 1..maxLen (a zero
// length is corruption). It takes the stream in chunks of any size; a
// length header or a body may straddle chunks. A Framer starts
// synchronised, at a message boundary, as after a captured SYN;
// StartUnsynced and Gap make it resynchronise.
//
// Findings about the stream (skipped bytes, corrupt lengths, dropped
// partial messages) collect inside the Framer; Findings drains them, End
// returns the rest. They are connection-level findings: Bit is -1.
//
// While synchronised a Framer holds at most one partial message; a message
// that lies wholly in a chunk is yielded without copying. While
// resynchronising it holds at most 2·(2+min(maxLen, ResyncMaxLen))+2
// bytes, the most that deciding one candidate offset can need.
type Framer struct {
	*lp.Framer
	maxLen int
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
	return &Framer{Framer: lp.New(lp.Config{Width: 2, MaxLen: maxLen, Rule: resyncRule(maxLen), KeepBody: keepBody,
		Frame: "message", Header: "header"}), maxLen: maxLen}
}

// resyncRule is wire.md 2's search: from a candidate offset, resyncHeaders
// 2-byte big-endian lengths of 1..min(maxLen, ResyncMaxLen) chain (the
// first messages walked over whole, the last header only read); at the end
// of the stream, endMessages whole messages ending on the last byte.
func resyncRule(maxLen int) lp.Rule {
	return lp.Rule{Width: 2, Limit: min(maxLen, ResyncMaxLen), Whole: resyncHeaders - 1, Header: true, EndWhole: endMessages}
}

// Stats returns the framer's counters.
func (f *Framer) Stats() FrameStats {
	s := f.Framer.Stats()
	return FrameStats{Fed: s.Fed, Lost: s.Lost, Messages: s.Frames, Framed: s.Framed, Skipped: s.Skipped, Dropped: s.Dropped, Buffered: s.Buffered}
}

// bound is the most bytes that deciding one candidate offset can need:
// two whole messages of the resynchronisation limit and a third header.
func (f *Framer) bound() int { return f.Bound() }

// keepBody is the largest partial-message buffer a Framer keeps between
// messages.
const keepBody = 4096
