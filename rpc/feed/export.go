package feed

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/rpc"
)

// ULinkRPC's part of writing a selection back to a capture (the host's
// Export, docs/cli.md "Writing a selection"): the re-framing of each
// transport, which keeps the bytes of the kept frames and the handshakes
// a re-read needs.

// Export is ULinkRPC's part in writing a selection back to a capture file
// (decode.Export): its connections are framed by their transport (TCP:
// PlaceFrames, resynchronising after a capture gap; WebSocket:
// PlaceWebSocket; KCP: PlaceKCP), and the first frame of each direction is
// written with the frames asked for: it carries the transform layer's
// classification note.
var Export = &decode.Export{Framing: framing, FirstEach: true}

// framings are the framings of ULinkRPC's transports.
var framings = map[rpc.Transport]decode.Framing{
	rpc.TCP:       {Place: PlaceFrames, Across: true},
	rpc.WebSocket: {Place: placeWebSocket},
	rpc.KCP:       {Datagrams: PlaceKCP},
}

// framing is the framing of the connection of r by its transport; none
// (nothing written) for a record that is not ULinkRPC's.
func framing(r decode.Record) decode.Framing {
	if r, ok := r.(*rpc.Record); ok {
		return framings[r.Transport]
	}
	return decode.Framing{}
}

// placeWebSocket is PlaceWebSocket as a decode.Framing's Place: a
// WebSocket is placed once, from the whole stream.
func placeWebSocket(s []byte, _ func(from, to int64) bool, ms []decode.Placed, kept map[int]bool, _ map[int]decode.Range) ([]decode.Range, error) {
	return PlaceWebSocket(s, ms, kept)
}

// PlaceFrames finds each ULinkRPC frame of one direction in a stream of
// [length u32 BE][frame] (its record's offset when the length is there,
// else the cursor, else the next place the length is, each whole in the
// capture by captured; nil: every byte was) and returns the ranges of the
// kept ones.
func PlaceFrames(s []byte, captured func(from, to int64) bool, ms []decode.Placed, kept map[int]bool, placed map[int]decode.Range) ([]decode.Range, error) {
	var rs []decode.Range
	cur := int64(0)
	lenAt := func(p int64, n int) bool {
		return p >= 0 && p+4+int64(n) <= int64(len(s)) && binary.BigEndian.Uint32(s[p:]) == uint32(n) &&
			(captured == nil || captured(p, p+4+int64(n)))
	}
	for _, h := range ms {
		r, _ := h.Rec.(*rpc.Record)
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
			placed[h.N] = decode.Range{From: at, To: cur}
		}
		if kept[h.N] {
			rs = append(rs, decode.Range{From: at, To: cur})
		}
	}
	return rs, nil
}

// wsFrame is one WebSocket frame of a stream: where it is, and where its
// data lies in the stream of message data.
type wsFrame struct{ from, to, data, dataEnd int64 }

// PlaceWebSocket keeps the HTTP upgrade and the WebSocket data frames that
// carry the kept ULinkRPC frames (whole: a sender writes one [length]
// [frame] per WebSocket message); control frames are dropped. The ranges
// are in stream order and may repeat a frame (the host joins them).
func PlaceWebSocket(s []byte, ms []decode.Placed, kept map[int]bool) ([]decode.Range, error) {
	var rs []decode.Range
	start := 0
	if bytes.HasPrefix(s, []byte("GET ")) || bytes.HasPrefix(s, []byte("HTTP/")) {
		i := bytes.Index(s, []byte("\r\n\r\n"))
		if i < 0 {
			return nil, errors.New("the WebSocket upgrade does not end")
		}
		start = i + 4
		rs = append(rs, decode.Range{From: 0, To: int64(start)})
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
	fr, err := PlaceFrames(data, nil, ms, kept, nil)
	if err != nil {
		return nil, err
	}
	for _, r := range fr {
		i := sort.Search(len(frames), func(i int) bool {
			return frames[i].dataEnd > r.From
		})
		for ; i < len(frames) && frames[i].data < r.To; i++ {
			rs = append(rs, decode.Range{From: frames[i].from, To: frames[i].to})
		}
	}
	return rs, nil
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

// kcpSeg is one KCP segment's header fields PlaceKCP reads and rewrites.
type kcpSeg struct {
	cmd, frg byte
	sn, una  uint32
	data     []byte
}

// PlaceKCP keeps the KCP handshake datagrams and the PUSH segments of the
// kept ULinkRPC frames, renumbered (sn, una and the ACKs of kept segments)
// so that each direction's kept segments follow one another: a KCP
// receiver delivers nothing past a missing sn.
func PlaceKCP(dgs []decode.Datagram, byDir [2][]decode.Placed, kept map[int]bool, out map[int][]byte) error {
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
		rs, err := PlaceFrames(stream, nil, byDir[i], kept, nil)
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
