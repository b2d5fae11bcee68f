package ulinkrpc

import (
	"bytes"
	"encoding/binary"

	"github.com/usmnscope/usmnscope/decode/transport/lp"
	"github.com/usmnscope/usmnscope/decode/transport/websocket"
)

// ULinkRPC over WebSocket (ulinkrpc.md 2.2) is the shared WebSocket
// transport (decode/transport/websocket) with ULinkRPC's evidence and
// words: a direction's data bytes, whatever the message and frame
// boundaries, are fed to its frame Stream, as the receiver's accumulator
// feeds them. Callers name the transport's own types (websocket.Decoder,
// websocket.Event, ...); what is ULinkRPC's is below.

// WSConfig sets up a WebSocket decoder for one direction of a ULinkRPC
// connection.
type WSConfig struct {
	// Upgrade says the stream starts with the HTTP head (the connection's
	// start was captured); false starts at a frame boundary.
	Upgrade bool
	// Masked is whether this direction's frames must be masked (client to
	// server); nil learns it from the first frame.
	Masked *bool
	// MidStream says the connection was joined mid-stream, its HTTP
	// upgrade not captured (Upgrade is then false): the decoder starts by
	// resynchronising on frame headers, on a frame as a ULinkRPC peer
	// writes it (wsFrame), and says so.
	MidStream bool
}

// NewWebSocket returns the WebSocket decoder of one direction of a
// ULinkRPC connection: its parse errors read "ulinkrpc websocket: ...",
// a text message is noted (ULinkRPC sends binary), and joined mid-stream
// it resynchronises on ULinkRPC's frames.
func NewWebSocket(cfg WSConfig) *websocket.Decoder {
	return websocket.New(websocket.Config{Upgrade: cfg.Upgrade, Masked: cfg.Masked, MidStream: cfg.MidStream, Judge: wsFrame,
		ErrorPrefix: "ulinkrpc ", Binary: "ULinkRPC",
		Inferred: "binary frames each holding one ULinkRPC frame, masked from the client only"})
}

// wsFrame is ULinkRPC's evidence for a WebSocket joined mid-stream (a
// websocket.Judge): each sender write is one binary message holding
// exactly one [length][frame] with a plausible frame (ulinkrpc.md 2.2), so
// the payload's length prefix is the message's length less 4 (a first
// fragment holds less than its frame: its prefix only is checked), which
// a mask-and-length coincidence inside other bytes does not give. A text
// message is not ULinkRPC's.
func wsFrame(h websocket.Header, p []byte) lp.Result {
	if h.Opcode != websocket.OpBinary || h.Len < 5 {
		return lp.Reject
	}
	if len(p) < 4 {
		return lp.Undecided
	}
	var q [4]byte
	copy(q[:], p)
	if h.Masked {
		websocket.Unmask(q[:], h.Key, 0)
	}
	n := uint64(binary.BigEndian.Uint32(q[:]))
	if n == 0 || n > MaxFrameLen || h.Fin && 4+n != h.Len || !h.Fin && 4+n <= h.Len {
		return lp.Reject
	}
	if uint64(len(p)) < h.Len {
		return lp.Undecided
	}
	if !h.Fin {
		return lp.Accept
	}
	frame := bytes.Clone(p[4:])
	if h.Masked {
		websocket.Unmask(frame, h.Key, 4)
	}
	if !Plausible(frame) {
		return lp.Reject
	}
	return lp.Accept
}

// FindWSFrames looks for WebSocket framing in a direction's first captured
// bytes when the connection's start (its HTTP upgrade) was not captured:
// the smallest offset from which frames chain as a ULinkRPC peer writes
// them (websocket.Search with wsFrame), masked as masked says. found is
// true when one chains; decided is false while more bytes could still
// decide (final: there are no more).
func FindWSFrames(b []byte, masked, final bool) (off int, found, decided bool) {
	return websocket.Search(b, masked, final, wsFrame)
}
