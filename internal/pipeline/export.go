package pipeline

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
)

// Exported says what Export wrote.
type Exported struct {
	Packets  int
	Messages int   // the messages asked for
	Context  []int // the messages written besides them, for their decoding (ascending)
}

// Export writes to path a pcapng holding the messages nums of idx (decoded
// from the capture file at capturePath) and what decoding them needs, so
// that the file decodes to those messages again with the same bytes and
// fields (docs/cli.md "Writing a selection"). The context added is, per
// connection, up to the last message written on it: for SystemSockets the
// handshake messages that carry the USMN markers (GetWorkshopFiles,
// DownloadWorkshopFiles), every NegotiateListenerDetails and every
// InvokeMessageListener that carries a listener definition; for both
// protocols the partner of every paired message (a ping's answer, a
// Request's Response). The packets keep only the bytes of the messages
// written (capture.Flows.Export renumbers TCP; KCP segments are
// renumbered by ULinkRPC's side), plus each connection's TCP handshake,
// WebSocket upgrade and KCP handshake. What is ULinkRPC's, its context and
// the re-framing of its transports, register.go gives (exportHosted,
// framingOf).
func Export(capturePath string, idx *session.Index, nums []int, path string) (Exported, error) {
	keep, ctx := exportSet(idx, nums)
	out := Exported{Messages: len(nums), Context: ctx}
	// The kept messages by connection, in number order.
	type conn struct {
		flow  capture.ExportFlow
		fr    framing
		kept  map[int]bool
		heads []session.Head
	}
	conns := map[dissect.Conn]*conn{}
	var order []dissect.Conn
	for n := 1; n <= idx.Len(); n++ {
		h, ok := idx.Head(n)
		if !ok || !keep[n] || conns[h.Conn] != nil {
			continue
		}
		c := &conn{flow: capture.ExportFlow{Flow: capture.Flow{Client: h.Conn.Client, Server: h.Conn.Server}}, kept: map[int]bool{}}
		c.fr = framingOf(idx, &h)
		c.flow.UDP = c.fr.datagrams != nil
		conns[h.Conn] = c
		order = append(order, h.Conn)
	}
	for n := 1; n <= idx.Len(); n++ {
		if h, ok := idx.Head(n); ok {
			if c := conns[h.Conn]; c != nil {
				c.kept[n] = keep[n]
				c.heads = append(c.heads, h)
			}
		}
	}
	flows := make([]capture.ExportFlow, 0, len(order))
	for _, k := range order {
		c := conns[k]
		flows = append(flows, c.flow)
	}
	fs, err := capture.ReadFlows(capturePath, flows)
	if err != nil {
		return out, err
	}
	trim := capture.Trim{Streams: map[capture.Flow][2][]capture.Range{}, Datagrams: map[int][]byte{}}
	for _, k := range order {
		c := conns[k]
		d := fs.Data[c.flow.Flow]
		var byDir [2][]session.Head
		for _, h := range c.heads {
			i := 0
			if h.Dir == dissect.S2C {
				i = 1
			}
			byDir[i] = append(byDir[i], h)
		}
		var err error
		switch {
		case c.fr.datagrams != nil:
			err = c.fr.datagrams(d.Datagrams, byDir, c.kept, trim.Datagrams)
		case c.fr.place != nil:
			var r [2][]capture.Range
			for i := range 2 {
				if !c.fr.across {
					r[i], err = c.fr.place(d.Stream[i], nil, byDir[i], c.kept, nil)
				} else {
					r[i], err = placeAcross(func(kept map[int]bool, at map[int]capture.Range) ([]capture.Range, error) {
						return c.fr.place(d.Stream[i], capturedIn(d, i), byDir[i], kept, at)
					}, d.Lost(i), byDir[i], c.kept, keep)
				}
				if err != nil {
					break
				}
			}
			trim.Streams[c.flow.Flow] = r
		}
		if err != nil {
			return out, fmt.Errorf("export: connection %s: %w", k, err)
		}
	}
	// The messages a resynchronisation needs after a kept capture gap
	// (placeAcross) joined the context.
	asked := make(map[int]bool, len(nums))
	for _, n := range nums {
		asked[n] = true
	}
	out.Context = out.Context[:0]
	for n := range keep {
		if !asked[n] {
			out.Context = append(out.Context, n)
		}
	}
	sort.Ints(out.Context)
	out.Packets, err = fs.Export(trim, path)
	return out, err
}

// framing is how Export writes one connection back: the re-framing of its
// transport (framingOf), a stream's or a UDP flow's.
type framing struct {
	// place finds each message of one direction hs in its stream s and
	// returns the ranges of the kept ones; captured (nil: every byte was)
	// says which bytes the capture holds, placed (when not nil) takes
	// where each message lies.
	place func(s []byte, captured func(from, to int64) bool, hs []session.Head, kept map[int]bool, placed map[int]capture.Range) ([]capture.Range, error)
	// across: a framing that resynchronises after a capture gap keeps
	// the gap and what the resynchronisation chains from (placeAcross);
	// one that does not is placed once, from the whole stream.
	across bool
	// datagrams, for a UDP flow, puts the bytes to write of each
	// datagram that carries the kept messages into out by frame.
	datagrams func(dgs []capture.Datagram, byDir [2][]session.Head, kept map[int]bool, out map[int][]byte) error
}

// systemSockets is the framing of a SystemSockets connection (wire.md
// 1): a 2-byte length and the message bytes, placed from idx's messages.
func systemSockets(idx *session.Index) framing {
	return framing{across: true, place: func(s []byte, captured func(from, to int64) bool, hs []session.Head, kept map[int]bool, placed map[int]capture.Range) ([]capture.Range, error) {
		return placeUnturned(idx, s, captured, hs, kept, placed)
	}}
}

// exportSet returns the messages to write: nums and their context
// (Export), and the context alone, ascending.
func exportSet(idx *session.Index, nums []int) (map[int]bool, []int) {
	keep := make(map[int]bool, len(nums))
	for _, n := range nums {
		if n >= 1 && n <= idx.Len() {
			keep[n] = true
		}
	}
	// A SystemSockets connection whose handshake (both USMN detection
	// messages, handshakeMark) was not captured is decoded by inference
	// from all its messages: it is written whole.
	hs := map[dissect.Conn]int{}
	for n := 1; n <= idx.Len(); n++ {
		if h, ok := idx.Head(n); ok {
			if _, hosted := exportHosted(&h); !hosted {
				hs[h.Conn] |= handshakeMark(&h)
			}
		}
	}
	whole := map[dissect.Conn]bool{}
	for c, v := range hs {
		whole[c] = v != 3
	}
	paired := map[int]bool{} // the messages whose partner was added
	for round := 0; round < 4; round++ {
		added := false
		firstSeen := map[dissect.Conn]*[2]bool{}
		for n := 1; n <= idx.Len(); n++ {
			if h, ok := idx.Head(n); ok && firstSeen[h.Conn] == nil {
				firstSeen[h.Conn] = &[2]bool{}
			}
		}
		add := func(n int) {
			if n >= 1 && n <= idx.Len() && !keep[n] {
				keep[n], added = true, true
			}
		}
		var fresh []int
		for n := range keep {
			if !paired[n] {
				fresh = append(fresh, n)
			}
		}
		sort.Ints(fresh)
		for _, n := range fresh {
			paired[n] = true
			h, ok := idx.Head(n)
			if pair, hosted := exportHosted(&h); ok && hosted {
				add(pair)
			} else if m := idx.Message(n); m != nil {
				add(m.Pair)
			}
		}
		last := map[dissect.Conn]int{}
		for n := range keep {
			if h, ok := idx.Head(n); ok {
				last[h.Conn] = max(last[h.Conn], n)
			}
		}
		for n := 1; n <= idx.Len(); n++ {
			h, ok := idx.Head(n)
			if !ok || keep[n] {
				continue
			}
			if _, sel := last[h.Conn]; !sel {
				continue
			}
			if whole[h.Conn] {
				add(n)
				continue
			}
			if _, hosted := exportHosted(&h); hosted {
				// The first frame of each direction carries the transform
				// layer's classification note.
				if !firstSeen[h.Conn][h.Dir] {
					add(n)
				}
				firstSeen[h.Conn][h.Dir] = true
				continue
			}
			if n <= last[h.Conn] && unturnedContext(idx, &h) {
				add(n)
			}
		}
		if !added {
			break
		}
	}
	asked := make(map[int]bool, len(nums))
	for _, n := range nums {
		asked[n] = true
	}
	var ctx []int
	for n := range keep {
		if !asked[n] {
			ctx = append(ctx, n)
		}
	}
	sort.Ints(ctx)
	return keep, ctx
}

// placeUnturned finds each message of one direction in its stream (a
// 2-byte length and the message bytes, at the cursor or the next place
// they are whole in the capture) and returns the ranges of the kept ones.
// A place holding a byte the capture lost is passed over (captured says
// which): the decoder dropped the frame there, so a message it decoded
// lies further on even when the lost byte was the zero the copy reads
// (transport-mess: a lost first length byte before a repeated message).
func placeUnturned(idx *session.Index, s []byte, captured func(from, to int64) bool, hs []session.Head, kept map[int]bool, placed map[int]capture.Range) ([]capture.Range, error) {
	var rs []capture.Range
	cur := 0
	for _, h := range hs {
		m := idx.Message(h.N)
		if m == nil {
			continue
		}
		want := binary.BigEndian.AppendUint16(nil, uint16(len(m.Data)))
		want = append(want, m.Data...)
		at := -1
		for p := cur; p+len(want) <= len(s); {
			i := bytes.Index(s[p:], want)
			if i < 0 {
				break
			}
			if captured(int64(p+i), int64(p+i+len(want))) {
				at = p + i
				break
			}
			p += i + 1
		}
		if at < 0 {
			if kept[h.N] {
				return nil, fmt.Errorf("message %d not found in the captured stream", h.N)
			}
			continue
		}
		cur = at + len(want)
		if placed != nil {
			placed[h.N] = capture.Range{From: int64(at), To: int64(cur)}
		}
		if kept[h.N] {
			rs = append(rs, capture.Range{From: int64(at), To: int64(cur)})
		}
	}
	return capture.JoinRanges(rs), nil
}
