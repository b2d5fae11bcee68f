package ulinkrpc

import (
	"bytes"
	"encoding/binary"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
)

// ULinkRPC over KCP (ulinkrpc.md 2.3) is the shared KCP transport
// (decode/transport/kcp) after ULinkRPC's own handshake (UKCP, UACK): each
// conversation's messages, in sn order, are fed to a frame Stream of its
// own. Callers name the transport's own types (kcp.Segment, kcp.Message,
// ...); what is ULinkRPC's is below.

// NewReassembler returns the KCP reassembler of one direction of a
// ULinkRPC session, bounded by cfg's limits (zero fields take the
// defaults): its parse errors read "ulinkrpc kcp: ...", and when b is not
// nil its buffers draw from that capture-wide Budget with every other
// ULinkRPC buffer.
func NewReassembler(cfg kcp.Config, b *Budget) *kcp.Reassembler {
	cfg.ErrorPrefix = "ulinkrpc "
	if b != nil {
		cfg.Budget = kcpBudget{b}
	}
	return kcp.NewReassembler(cfg)
}

// kcpBudget is a Budget as a KCP reassembler draws from it (kcp.Budget).
type kcpBudget struct{ b *Budget }

func (k kcpBudget) Grow(n int)     { k.b.add(n) }
func (k kcpBudget) Over() bool     { return k.b.over() }
func (k kcpBudget) Reason() string { return k.b.spent() }

// Handshake is the UKCP request or the UACK answer (ulinkrpc.md 2.3).
type Handshake struct {
	Ack         bool
	Conv        uint32
	SessionPort int32 // UACK: the port that carries the session
}

// ParseHandshake recognises "UKCP" + conv (8 bytes, conv non-zero) and
// "UACK" + conv + sessionPort (12 bytes), as the real code checks them.
func ParseHandshake(b []byte) (Handshake, bool) {
	switch {
	case len(b) == 8 && bytes.HasPrefix(b, []byte("UKCP")):
		h := Handshake{Conv: binary.LittleEndian.Uint32(b[4:])}
		return h, h.Conv != 0
	case len(b) == 12 && bytes.HasPrefix(b, []byte("UACK")):
		return Handshake{Ack: true, Conv: binary.LittleEndian.Uint32(b[4:]), SessionPort: int32(binary.LittleEndian.Uint32(b[8:]))}, true
	}
	return Handshake{}, false
}

// EncodeHandshake builds a UKCP or UACK datagram.
func EncodeHandshake(h Handshake) []byte {
	if !h.Ack {
		return binary.LittleEndian.AppendUint32([]byte("UKCP"), h.Conv)
	}
	b := binary.LittleEndian.AppendUint32([]byte("UACK"), h.Conv)
	return binary.LittleEndian.AppendUint32(b, uint32(h.SessionPort))
}
