package pipeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
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
// renumbered here), plus each connection's TCP handshake, WebSocket
// upgrade and KCP handshake.
func Export(capturePath string, idx *session.Index, nums []int, path string) (Exported, error) {
	keep, ctx := exportSet(idx, nums)
	out := Exported{Messages: len(nums), Context: ctx}
	// The kept messages by connection, in number order.
	type conn struct {
		flow  capture.ExportFlow
		tr    int // 0 SystemSockets, 1+rpc.Transport
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
		if h.RPC != nil {
			c.tr = 1 + int(h.RPC.Transport)
			c.flow.UDP = h.RPC.Transport == rpc.KCP
		}
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
		switch c.tr {
		case 0:
			var r [2][]capture.Range
			for i := range 2 {
				r[i], err = placeAcross(func(kept map[int]bool, at map[int]capture.Range) ([]capture.Range, error) {
					return placeUnturned(idx, d.Stream[i], capturedIn(d, i), byDir[i], kept, at)
				}, d.Lost(i), byDir[i], c.kept, keep)
				if err != nil {
					break
				}
			}
			trim.Streams[c.flow.Flow] = r
		case 1 + int(rpc.TCP):
			var r [2][]capture.Range
			for i := range 2 {
				r[i], err = placeAcross(func(kept map[int]bool, at map[int]capture.Range) ([]capture.Range, error) {
					return placeFrames(d.Stream[i], capturedIn(d, i), byDir[i], kept, at)
				}, d.Lost(i), byDir[i], c.kept, keep)
				if err != nil {
					break
				}
			}
			trim.Streams[c.flow.Flow] = r
		case 1 + int(rpc.WebSocket):
			var r [2][]capture.Range
			for i := range 2 {
				r[i], err = placeWebSocket(d.Stream[i], byDir[i], c.kept)
				if err != nil {
					break
				}
			}
			trim.Streams[c.flow.Flow] = r
		case 1 + int(rpc.KCP):
			err = placeKCP(d.Datagrams, byDir, c.kept, trim.Datagrams)
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
// (Export), and the context alone, ascending.
func exportSet(idx *session.Index, nums []int) (map[int]bool, []int) {
	keep := make(map[int]bool, len(nums))
	for _, n := range nums {
		if n >= 1 && n <= idx.Len() {
			keep[n] = true
		}
	}
	// A SystemSockets connection whose handshake (both USMN detection
	// messages) was not captured is decoded by inference from all its
	// messages: it is written whole.
	hs := map[dissect.Conn]int{}
	for n := 1; n <= idx.Len(); n++ {
		if h, ok := idx.Head(n); ok && h.RPC == nil {
			hs[h.Conn] |= 0
			switch h.Kind {
			case unturned.KindGetWorkshopFiles:
				hs[h.Conn] |= 1
			case unturned.KindDownloadWorkshopFiles:
				hs[h.Conn] |= 2
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
			if h, ok := idx.Head(n); ok && h.RPC != nil {
				add(h.RPC.Pair)
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
			if h.RPC != nil {
				// The first frame of each direction carries the transform
				// layer's classification note.
				if !firstSeen[h.Conn][h.Dir] {
					add(n)
				}
				firstSeen[h.Conn][h.Dir] = true
				continue
			}
			if n > last[h.Conn] {
				continue
			}
			switch h.Kind {
			case unturned.KindGetWorkshopFiles, unturned.KindDownloadWorkshopFiles, unturned.KindNegotiateListenerDetails:
				add(n)
			case unturned.KindInvokeMessageListener:
				if m := idx.Detail(n); m != nil && hasDefinition(m) {
					add(n)
				}
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

func hasDefinition(m *session.Message) bool {
	for _, f := range m.Fields {
		if f.Name == "Has_Listener_Definition" {
			if b, ok := f.Value.(bool); ok && b {
				return true
			}
		}
	}
	return false
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

// placeFrames finds each ULinkRPC frame of one direction in a stream of
// [length u32 BE][frame] (its record's offset when the length is there,
// else the cursor, else the next place the length is, each whole in the
// capture by captured; nil: every byte was) and returns the ranges of the
// kept ones.
func placeFrames(s []byte, captured func(from, to int64) bool, hs []session.Head, kept map[int]bool, placed map[int]capture.Range) ([]capture.Range, error) {
	var rs []capture.Range
	cur := int64(0)
	lenAt := func(p int64, n int) bool {
		return p >= 0 && p+4+int64(n) <= int64(len(s)) && binary.BigEndian.Uint32(s[p:]) == uint32(n) &&
			(captured == nil || captured(p, p+4+int64(n)))
	}
	for _, h := range hs {
		r := h.RPC
		if r == nil {
			continue
		}
		at := int64(-1)
		switch {
		case r.Offset >= cur && lenAt(r.Offset, r.Len):
			at = r.Offset
		case lenAt(cur, r.Len):
			at = cur
		default:
			for p := cur; p+4 <= int64(len(s)); p++ {
				if lenAt(p, r.Len) {
					at = p
					break
				}
			}
		}
		if at < 0 {
			if kept[h.N] {
				return nil, fmt.Errorf("message %d not found in the captured stream", h.N)
			}
			continue
		}
		cur = at + 4 + int64(r.Len)
		if placed != nil {
			placed[h.N] = capture.Range{From: at, To: cur}
		}
		if kept[h.N] {
			rs = append(rs, capture.Range{From: at, To: cur})
		}
	}
	return capture.JoinRanges(rs), nil
}

// wsFrame is one WebSocket frame of a stream: where it is, and where its
// data lies in the stream of message data.
type wsFrame struct{ from, to, data, dataEnd int64 }

// placeWebSocket keeps the HTTP upgrade and the WebSocket data frames that
// carry the kept ULinkRPC frames (whole: a sender writes one [length]
// [frame] per WebSocket message); control frames are dropped.
func placeWebSocket(s []byte, hs []session.Head, kept map[int]bool) ([]capture.Range, error) {
	var rs []capture.Range
	start := 0
	if bytes.HasPrefix(s, []byte("GET ")) || bytes.HasPrefix(s, []byte("HTTP/")) {
		i := bytes.Index(s, []byte("\r\n\r\n"))
		if i < 0 {
			return nil, errors.New("the WebSocket upgrade does not end")
		}
		start = i + 4
		rs = append(rs, capture.Range{From: 0, To: int64(start)})
	} else {
		// Captured mid-stream: the first offset from which frames chain to
		// the end (or for 3 frames).
		start = -1
		for p := 0; p < len(s) && p < 1<<16; p++ {
			if fr, _, end := wsFrames(s, p); len(fr) >= 3 || (len(fr) > 0 && end == len(s)) {
				start = p
				break
			}
		}
		if start < 0 {
			return nil, errors.New("no WebSocket frames found in the captured stream")
		}
	}
	frames, data, _ := wsFrames(s, start)
	fr, err := placeFrames(data, nil, hs, kept, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range fr {
		i := sort.Search(len(frames), func(i int) bool {
			return frames[i].dataEnd > r.From
		})
		for ; i < len(frames) && frames[i].data < r.To; i++ {
			rs = append(rs, capture.Range{From: frames[i].from, To: frames[i].to})
		}
	}
	return capture.JoinRanges(rs), nil
}

// wsFrames reads WebSocket frames from p on: the data frames (opcode 0, 1
// or 2) with their place in the data stream, the data unmasked, and where
// reading stopped.
func wsFrames(s []byte, p int) ([]wsFrame, []byte, int) {
	var (
		frames []wsFrame
		data   []byte
	)
	for p+2 <= len(s) {
		b0, b1 := s[p], s[p+1]
		if b0&0x70 != 0 || b0&0x0f > 2 && b0&0x0f < 8 || b0&0x0f > 10 {
			break
		}
		n, h := int64(b1&0x7f), p+2
		switch n {
		case 126:
			if h+2 > len(s) {
				return frames, data, p
			}
			n, h = int64(binary.BigEndian.Uint16(s[h:])), h+2
		case 127:
			if h+8 > len(s) {
				return frames, data, p
			}
			n, h = int64(binary.BigEndian.Uint64(s[h:])), h+8
		}
		var key []byte
		if b1&0x80 != 0 {
			if h+4 > len(s) {
				return frames, data, p
			}
			key, h = s[h:h+4], h+4
		}
		if n < 0 || int64(h)+n > int64(len(s)) {
			return frames, data, p
		}
		end := h + int(n)
		if op := b0 & 0x0f; op <= 2 {
			frames = append(frames, wsFrame{from: int64(p), to: int64(end), data: int64(len(data)), dataEnd: int64(len(data)) + n})
			for i, b := range s[h:end] {
				if key != nil {
					b ^= key[i%4]
				}
				data = append(data, b)
			}
		}
		p = end
	}
	return frames, data, p
}

// kcpSeg is one KCP segment's header fields Export reads and rewrites.
type kcpSeg struct {
	cmd, frg byte
	sn, una  uint32
	data     []byte
}

// placeKCP keeps the KCP handshake datagrams and the PUSH segments of the
// kept ULinkRPC frames, renumbered (sn, una and the ACKs of kept segments)
// so that each direction's kept segments follow one another: a KCP
// receiver delivers nothing past a missing sn.
func placeKCP(dgs []capture.Datagram, byDir [2][]session.Head, kept map[int]bool, out map[int][]byte) error {
	type msg struct {
		sns      []uint32
		from, to int64
	}
	var (
		first  [2]uint32
		hasSeg [2]bool
		keepSn [2]map[uint32]uint32 // old sn → new sn
	)
	for i := range 2 {
		push := map[uint32]kcpSeg{}
		for _, d := range dgs {
			if d.FromServer != (i == 1) {
				continue
			}
			for _, sg := range kcpSegs(d.Payload) {
				if sg.cmd == 81 {
					if _, dup := push[sg.sn]; !dup {
						push[sg.sn] = sg
					}
				}
			}
		}
		sns := make([]uint32, 0, len(push))
		for sn := range push {
			sns = append(sns, sn)
		}
		sort.Slice(sns, func(a, b int) bool { return sns[a] < sns[b] })
		if len(sns) > 0 {
			first[i], hasSeg[i] = sns[0], true
		}
		// Messages: runs of consecutive sn whose frg counts down to 0.
		var (
			msgs   []msg
			stream []byte
			cur    *msg
		)
		for j, sn := range sns {
			sg := push[sn]
			if cur == nil || j > 0 && sns[j-1]+1 != sn {
				msgs = append(msgs, msg{from: int64(len(stream))})
				cur = &msgs[len(msgs)-1]
			}
			cur.sns = append(cur.sns, sn)
			stream = append(stream, sg.data...)
			cur.to = int64(len(stream))
			if sg.frg == 0 {
				cur = nil
			}
		}
		rs, err := placeFrames(stream, nil, byDir[i], kept, nil)
		if err != nil {
			return err
		}
		var ks []uint32
		for _, m := range msgs {
			for _, r := range rs {
				if m.from < r.To && r.From < m.to {
					ks = append(ks, m.sns...)
					break
				}
			}
		}
		keepSn[i] = make(map[uint32]uint32, len(ks))
		for j, sn := range ks {
			keepSn[i][sn] = first[i] + uint32(j)
		}
	}
	// una: the kept sns below it, counted from the direction's first.
	una := func(dir int, u uint32) uint32 {
		if !hasSeg[dir] || u <= first[dir] {
			return u
		}
		k := uint32(0)
		for old := range keepSn[dir] {
			if old < u {
				k++
			}
		}
		return first[dir] + k
	}
	for _, d := range dgs {
		p := d.Payload
		if len(p) >= 8 && (bytes.HasPrefix(p, []byte("UKCP")) && len(p) == 8 || bytes.HasPrefix(p, []byte("UACK")) && len(p) == 12) {
			out[d.Frame] = p
			continue
		}
		me := 0
		if d.FromServer {
			me = 1
		}
		var nb []byte
		for _, sg := range kcpSegsRaw(p) {
			cmd, sn, u := sg[4], binary.LittleEndian.Uint32(sg[12:]), binary.LittleEndian.Uint32(sg[16:])
			var nsn uint32
			var ok bool
			switch cmd {
			case 81:
				nsn, ok = keepSn[me][sn]
			case 82:
				nsn, ok = keepSn[1-me][sn]
			}
			if !ok {
				continue
			}
			c := append([]byte(nil), sg...)
			binary.LittleEndian.PutUint32(c[12:], nsn)
			binary.LittleEndian.PutUint32(c[16:], una(1-me, u))
			nb = append(nb, c...)
		}
		if len(nb) > 0 {
			out[d.Frame] = nb
		}
	}
	return nil
}

// kcpSegsRaw splits a datagram into its KCP segments (header and data),
// stopping at the first that does not fit.
func kcpSegsRaw(p []byte) [][]byte {
	var out [][]byte
	for len(p) >= 24 {
		n := binary.LittleEndian.Uint32(p[20:])
		if uint64(n) > uint64(len(p)-24) {
			break
		}
		out = append(out, p[:24+n])
		p = p[24+n:]
	}
	return out
}

func kcpSegs(p []byte) []kcpSeg {
	var out []kcpSeg
	for _, sg := range kcpSegsRaw(p) {
		out = append(out, kcpSeg{cmd: sg[4], frg: sg[5], sn: binary.LittleEndian.Uint32(sg[12:]), una: binary.LittleEndian.Uint32(sg[16:]), data: sg[24:]})
	}
	return out
}
