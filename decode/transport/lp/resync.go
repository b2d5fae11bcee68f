// The resynchronisation search (formerly package resync): a Rule says
// what a frame header is and how much evidence a candidate offset needs;
// Search walks candidates over the bytes a Framer holds.

package lp

// Result is what a candidate offset's chain of headers says.
type Result uint8

const (
	Undecided Result = iota // more bytes are needed
	Accept
	Reject
)

// Rule is how a stream's frames chain. The zero value is not useful.
type Rule struct {
	Width  int  // header bytes: 2 or 4
	Little bool // the header is little-endian (big-endian otherwise)
	// Limit is the longest frame a candidate chain may hold: a larger
	// length is taken for frame bytes, not a header.
	Limit int
	// Whole is how many frames must chain whole from a candidate, each of
	// 1..Limit bytes and passing Valid, each header where the previous
	// frame ends; Header asks for one more valid header after them.
	Whole  int
	Header bool
	// EndWhole is the rule at the end of the stream, when no more bytes
	// can come: at least this many whole frames ending exactly on the last
	// byte.
	EndWhole int
	// Valid says whether a frame body parses; nil accepts any.
	Valid func(frame []byte) bool
}

// length reads the header at d[0]; d holds at least Width bytes. It is
// small enough to inline: the search calls it at nearly every offset.
func (r *Rule) length(d []byte) int {
	if r.Width == 2 {
		a, b := d[0], d[1]
		if r.Little {
			a, b = b, a
		}
		return int(a)<<8 | int(b)
	}
	return r.length4(d)
}

func (r *Rule) length4(d []byte) int {
	if r.Little {
		return int(uint32(d[3])<<24 | uint32(d[2])<<16 | uint32(d[1])<<8 | uint32(d[0]))
	}
	return int(uint32(d[0])<<24 | uint32(d[1])<<16 | uint32(d[2])<<8 | uint32(d[3]))
}

// Bound is the most bytes deciding one candidate offset can need: Whole
// frames of Limit bytes and one more header.
func (r *Rule) Bound() int { return r.Whole*(r.Width+r.Limit) + r.Width }

// Chain checks the candidate at d[0] while more bytes may come.
func (r *Rule) Chain(d []byte) Result {
	pos, w, limit := 0, r.Width, r.Limit
	for h := 0; ; h++ {
		if h == r.Whole && !r.Header {
			return Accept
		}
		if len(d)-pos < w {
			return Undecided
		}
		n := r.length(d[pos:])
		if n <= 0 || n > limit {
			return Reject
		}
		if h == r.Whole {
			return Accept
		}
		body := pos + w
		if len(d)-body < n {
			return Undecided
		}
		if r.Valid != nil && !r.Valid(d[body:body+n]) {
			return Reject
		}
		pos = body + n
	}
}

// ChainEnd checks the candidate at d[0] when no more bytes can come: at
// least EndWhole whole, valid frames ending exactly at the end of d.
func (r *Rule) ChainEnd(d []byte) Result {
	pos := 0
	for h := 0; ; h++ {
		if pos == len(d) && h >= r.EndWhole && h > 0 {
			return Accept
		}
		if len(d)-pos < r.Width {
			return Reject
		}
		n := r.length(d[pos:])
		body := pos + r.Width
		if n <= 0 || n > r.Limit || len(d)-body < n {
			return Reject
		}
		if r.Valid != nil && !r.Valid(d[body:body+n]) {
			return Reject
		}
		pos = body + n
	}
}

// Search looks for the smallest candidate offset of d: it returns how many
// leading bytes are rejected, and whether the candidate after them is
// accepted. Not found with skip < len(d) means the candidate at skip needs
// more bytes; final (the stream ended) uses ChainEnd, which always decides.
func (r *Rule) Search(d []byte, final bool) (skip int, found bool) {
	be2 := r.Width == 2 && !r.Little
	for skip < len(d) {
		// Most candidates fail on their first header (random bytes are a
		// length within the limit once in 16 for SystemSockets): reject
		// those here, inline, before a chain is walked.
		if len(d)-skip >= r.Width {
			var n int
			if be2 {
				n = int(d[skip])<<8 | int(d[skip+1])
			} else {
				n = r.length(d[skip:])
			}
			if n <= 0 || n > r.Limit {
				skip++
				continue
			}
		}
		res := Undecided
		if final {
			res = r.ChainEnd(d[skip:])
		} else {
			res = r.Chain(d[skip:])
		}
		switch res {
		case Accept:
			return skip, true
		case Undecided:
			return skip, false
		}
		skip++
	}
	return skip, false
}
