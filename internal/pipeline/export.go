package pipeline

import (
	"fmt"
	"sort"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/decode"
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
// fields (docs/cli.md "Writing a selection"). The context added is the
// partner of every paired message (a ping's answer, a Request's Response)
// and what the protocol of each connection asks, up to the last message
// written on it (its registration's decode.Export, exportOf: Unturned's
// USMN handshake messages, NegotiateListenerDetails and listener
// definitions, a connection without its handshake whole; ULinkRPC's first
// frame of each direction). The packets keep only the bytes of the
// messages written, placed by the framing of each connection's protocol
// (capture.Flows.Export renumbers TCP; a protocol's Datagrams rewrites
// its own, as ULinkRPC's KCP segments), plus each connection's TCP
// handshake and what its framing keeps (a WebSocket upgrade, a KCP
// handshake).
func Export(capturePath string, idx *session.Index, nums []int, path string) (Exported, error) {
	ex := exportOf(idx)
	keep, ctx := exportSet(idx, ex, nums)
	out := Exported{Messages: len(nums), Context: ctx}
	// The kept messages by connection, in number order.
	type conn struct {
		flow  capture.ExportFlow
		fr    decode.Framing
		kept  map[int]bool
		byDir [2][]decode.Placed
	}
	conns := map[dissect.Conn]*conn{}
	var order []dissect.Conn
	for n := 1; n <= idx.Len(); n++ {
		h, ok := idx.Head(n)
		if !ok || !keep[n] || conns[h.Conn] != nil {
			continue
		}
		e := ex.of(h.Conn)
		if e.Framing == nil {
			return out, fmt.Errorf("export: connection %s: %s cannot be written back", h.Conn, ex.name(h.Conn))
		}
		c := &conn{flow: capture.ExportFlow{Flow: capture.Flow{Client: h.Conn.Client, Server: h.Conn.Server}}, kept: map[int]bool{}}
		c.fr = e.Framing(h.Rec)
		c.flow.UDP = c.fr.Datagrams != nil
		conns[h.Conn] = c
		order = append(order, h.Conn)
	}
	for n := 1; n <= idx.Len(); n++ {
		if h, ok := idx.Head(n); ok {
			if c := conns[h.Conn]; c != nil {
				c.kept[n] = keep[n]
				if m, ok := placed(idx, &h); ok {
					d := 0 // client to server
					if h.Dir == dissect.S2C {
						d = 1
					}
					c.byDir[d] = append(c.byDir[d], m)
				}
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
		byDir := c.byDir
		var err error
		switch {
		case c.fr.Datagrams != nil:
			err = c.fr.Datagrams(datagrams(d.Datagrams), byDir, c.kept, trim.Datagrams)
		case c.fr.Place != nil:
			var r [2][]capture.Range
			for i := range 2 {
				if !c.fr.Across {
					var rs []decode.Range
					rs, err = c.fr.Place(d.Stream[i], nil, byDir[i], c.kept, nil)
					r[i] = joined(rs)
				} else {
					r[i], err = placeAcross(func(kept map[int]bool, at map[int]decode.Range) ([]decode.Range, error) {
						return c.fr.Place(d.Stream[i], capturedIn(d, i), byDir[i], kept, at)
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

// exportSet returns the messages to write: nums and their context
// (Export) by the protocols' rules ex, and the context alone, ascending.
func exportSet(idx *session.Index, ex exports, nums []int) (map[int]bool, []int) {
	keep := make(map[int]bool, len(nums))
	for _, n := range nums {
		if n >= 1 && n <= idx.Len() {
			keep[n] = true
		}
	}
	// A connection whose protocol's detection marks (decode.Export.Mark)
	// were not all captured is decoded by inference from all its
	// messages: it is written whole.
	marks := map[dissect.Conn]int{}
	for n := 1; n <= idx.Len(); n++ {
		if h, ok := idx.Head(n); ok {
			if e := ex.of(h.Conn); e.Marks != 0 {
				marks[h.Conn] |= e.Mark(nameOf(&h))
			}
		}
	}
	whole := map[dissect.Conn]bool{}
	for c, v := range marks {
		whole[c] = v != ex.of(c).Marks
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
			if ok && h.Rec != nil {
				add(decode.GlanceOf(h.Rec).Pair)
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
			e := ex.of(h.Conn)
			if e.FirstEach {
				if !firstSeen[h.Conn][h.Dir] {
					add(n)
				}
				firstSeen[h.Conn][h.Dir] = true
				continue
			}
			if e.Context != nil && n <= last[h.Conn] && e.Context(nameOf(&h), fieldsOf(idx, n)) {
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

// exports are the export rules of a decode's connections: each is its
// protocol's registration's (decode.Protocol.Export), a connection of the
// host's own (session.ConnInfo.Proto "") Unturned's.
type exports struct {
	protos map[dissect.Conn]string   // a hosted connection's protocol
	rules  map[string]*decode.Export // by protocol name; nil: none
}

// noExport are the rules of a protocol that registered none.
var noExport = &decode.Export{}

// exportOf are the export rules of idx's connections.
func exportOf(idx *session.Index) exports {
	x := exports{protos: map[dissect.Conn]string{}, rules: map[string]*decode.Export{}}
	for _, p := range decode.Protocols() {
		x.rules[p.Name] = p.Export
	}
	for _, c := range idx.Connections() {
		if c.Proto != "" {
			x.protos[c.Conn] = c.Proto
		}
	}
	return x
}

// name is the protocol of connection c.
func (x exports) name(c dissect.Conn) string {
	if p, ok := x.protos[c]; ok {
		return p
	}
	return ProtoUnturned.String()
}

// of are the export rules of connection c (never nil).
func (x exports) of(c dissect.Conn) *decode.Export {
	if e := x.rules[x.name(c)]; e != nil {
		return e
	}
	return noExport
}

// nameOf is h's typed name (outputs.md "msg").
func nameOf(h *session.Head) string {
	if h.Rec != nil {
		return decode.BriefOf(h.Rec).Name
	}
	return h.Kind.String()
}

// fieldsOf gives message n's fields, decoded whole.
func fieldsOf(idx *session.Index, n int) func() []dissect.Field {
	return func() []dissect.Field {
		if m := idx.Detail(n); m != nil {
			return m.Fields
		}
		return nil
	}
}

// placed is h as a Framing places it: its record, or a message of the
// host's own with its bytes; ok false for one whose bytes are gone.
func placed(idx *session.Index, h *session.Head) (decode.Placed, bool) {
	if h.Hosted {
		return decode.Placed{N: h.N, Rec: h.Rec}, true
	}
	m := idx.Message(h.N)
	if m == nil {
		return decode.Placed{}, false
	}
	return decode.Placed{N: h.N, Data: m.Data}, true
}

// joined are the ranges rs of a Framing as capture writes them: sorted,
// disjoint.
func joined(rs []decode.Range) []capture.Range {
	out := make([]capture.Range, len(rs))
	for i, r := range rs {
		out[i] = capture.Range(r)
	}
	return capture.JoinRanges(out)
}

// datagrams are a flow's captured datagrams as a Framing reads them.
func datagrams(dgs []capture.Datagram) []decode.Datagram {
	out := make([]decode.Datagram, len(dgs))
	for i, d := range dgs {
		out[i] = decode.Datagram{Frame: d.Frame, FromServer: d.FromServer, Payload: d.Payload}
	}
	return out
}
