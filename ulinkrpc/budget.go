package ulinkrpc

import "fmt"

// Budget is the capture-wide allowance of bytes that ULinkRPC's buffers
// hold at once: the partial frames of every frame Stream (TCP, WebSocket,
// KCP conversations) and the KCP segments held behind a missing sn, with
// the partial messages they make, of every connection. One Budget is
// shared by all the decoders of a capture (rpc.Config.Budget); a nil
// Budget bounds nothing beyond each decoder's own limits.
//
// Per-decoder limits alone let 8 TCP connections each hold a 40 MiB
// partial frame (540-570 MiB peak) and 6 KCP flows each hold 60 MiB of
// segments (436 MiB; issue 29). When a buffer's growth takes the total past
// Max, the decoder growing it drops what it holds (a partial frame, the
// segments behind a gap, a partial message) with a finding that says so.
//
// A Budget is not safe for concurrent use: a capture is decoded on one
// goroutine.
type Budget struct {
	Max  int // bytes; 0 or less bounds nothing
	used int
}

// DefaultMaxBuffer is the default Budget.Max (max_rpc_buffer): 8 TCP
// connections growing 40 MiB partial frames peak at 85 MB of RSS under 32
// MiB (the buffers let go as they double are garbage until collected), at
// 169 MB under 64 MiB; bench/attack.sh's shapes stay under 160 MB.
const DefaultMaxBuffer = 32 << 20

// NewBudget returns a Budget of max bytes.
func NewBudget(max int) *Budget { return &Budget{Max: max} }

// Used is the bytes held now.
func (b *Budget) Used() int {
	if b == nil {
		return 0
	}
	return b.used
}

func (b *Budget) add(n int) {
	if b != nil {
		b.used += n
	}
}

// over reports whether the buffers hold more than Max.
func (b *Budget) over() bool { return b != nil && b.Max > 0 && b.used > b.Max }

// spent is the reason a decoder gives when it drops what it holds.
func (b *Budget) spent() string {
	return fmt.Sprintf("past the capture-wide ULinkRPC buffer budget of %d bytes (max_rpc_buffer)", b.Max)
}

// Adjust is lp.Budget's: it changes the bytes held by n, refusing (false,
// nothing changed) a growth that would take them past Max.
func (b *Budget) Adjust(n int) bool {
	if n > 0 && b.Max > 0 && b.used+n > b.Max {
		return false
	}
	b.used += n
	return true
}

// Over is lp.Budget's: more than Max is held.
func (b *Budget) Over() bool { return b.over() }

// Reason is lp.Budget's: why a buffer was dropped for it.
func (b *Budget) Reason() string { return b.spent() }
