package ulinkrpc

import (
	"github.com/usmnscope/usmnscope/decode/transport/lp"
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

// FrameInfo says where a frame came from in its direction's byte stream:
// Offset is that of its 4-byte length prefix.
type FrameInfo = lp.FrameInfo

// StreamStats counts what a Stream did with its bytes. At any time
// Fed == Framed + Skipped + Dropped + Closes×4 + Buffered.
type StreamStats = lp.Stats

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
	// Budget, when not nil, is the capture-wide allowance the partial
	// frame's buffer draws from: a partial frame whose growth takes the
	// total past it is dropped, and the rest of that frame skipped as it
	// arrives, framing synchronised on the frame after it.
	Budget *Budget
}

// Stream cuts one direction's `[length u32 BE][frame]` byte stream into
// frames (ulinkrpc.md 2), whatever the transport that carried it: the
// shared length-prefixed framer (lp.Framer) with ULinkRPC's rule. It takes
// the stream in chunks of any size; a prefix or a frame may straddle
// chunks. It starts synchronised; StartUnsynced and Gap make it
// resynchronise, and so does an invalid length. A zero length is a close:
// counted and noted, not yielded.
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
	*lp.Framer
}

// NewStream returns a synchronised Stream.
func NewStream(cfg StreamConfig) *Stream {
	maxLen := cfg.MaxLen
	if maxLen <= 0 || maxLen > MaxFrameLen {
		maxLen = MaxFrameLen
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
	rule := lp.Rule{Width: 4, Limit: min(limit, maxLen), Whole: resyncFrames, EndWhole: 1, Valid: valid}
	lc := lp.Config{Width: 4, MaxLen: maxLen, Rule: rule, ZeroClose: true, KeepBody: 1 << 20,
		Frame: "frame", Header: "prefix", Invalid: "invalid "}
	if cfg.Budget != nil {
		lc.Budget = cfg.Budget
	}
	return &Stream{lp.New(lc)}
}
