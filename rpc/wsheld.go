package rpc

import (
	"bytes"

	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// A WebSocket decoder hands on later than they came the bytes it holds
// (websocket.Decoder.Held): those it holds while it resynchronises on
// frame headers, once headers chain or at Abandon or End, and the data
// inside a cut frame header that turns out bad. A frame they end arrived
// with the chunk that brought its last byte, not with the event that
// hands it on (outputs.md "Ordering"). So each side keeps, as the framer
// does for the frame stream (framer.go), a mark of the chunk that brought
// the bytes its decoder holds, in wsMarks, while it holds any:
//
//   - the data reaches the frame stream with the stamp of its own chunk
//     (wsData), and the framer stamps the frames it ends by it;
//   - Holding's watermark is the chunk of the earliest byte held (wsSeq),
//     and the hold lasts exactly while bytes are held: it ends at the gap,
//     Abandon or End that lets them go, not at the side's next chunk.
//
// Stamping the data with the event that hands it on instead breaks the
// order at End: a host ends a connection with the frame of the
// connection's last event but its own newest seq. In TestRPCHostRandom
// seed 59 a mid-stream WebSocket held, its chain undecided from frame 281
// on, two Responses ending in frames 359 and 375: handed on at End as
// frame 375, seq 395, both were numbered after a Request of frame 393 on
// another connection (now they are 62 and 66 of 68). Noting only whether
// the decoder held bytes (a flag cleared by the side's next chunk that
// found none held) hid that: nothing cleared the flag at End, so the host
// waited on the ended session for good and never numbered what came after
// the flag's chunk. In seed 59 the client side's flag, set in frame 8 and
// outliving the gap of frame 219 that let its bytes go, held back all 68
// messages.

// feedWS feeds a chunk of direction d, which came at st, to its WebSocket
// decoder.
func (s *Session) feedWS(d dissect.Dir, chunk []byte, st Stamp) {
	sd := &s.sides[d&1]
	if len(sd.wsMarks) > 0 {
		sd.wsMarks = append(sd.wsMarks, mark{end: sd.ws.Offset() + int64(len(chunk)), at: st})
	}
	if st.InFile {
		sd.wsChunk, sd.wsFrom = chunk, sd.ws.Offset()
	}
	sd.ws.Feed(chunk, func(ev websocket.Event) { s.wsEvent(d, ev) })
	sd.wsChunk = nil
	sd.markWS(st)
}

// markWS keeps the marks of the bytes the decoder holds after an event at
// st, and only theirs.
func (sd *side) markWS(st Stamp) {
	held := sd.ws.Held()
	if held == 0 {
		sd.wsMarks = sd.wsMarks[:0]
		return
	}
	from := sd.ws.Offset() - int64(held)
	i := 0
	for i < len(sd.wsMarks) && sd.wsMarks[i].end <= from {
		i++
	}
	if i > 0 {
		sd.wsMarks = append(sd.wsMarks[:0], sd.wsMarks[i:]...)
	}
	if len(sd.wsMarks) == 0 {
		// Held nothing before the event: what it holds came with it.
		sd.wsMarks = append(sd.wsMarks, mark{end: sd.ws.Offset(), at: st})
	}
}

// wsData feeds an EventData event's data to the frame stream, each byte with
// the stamp of the chunk that brought it: the current event's past the
// marks.
func (s *Session) wsData(d dissect.Dir, ev websocket.Event) {
	sd := &s.sides[d&1]
	data, off := ev.Data, ev.DataOffset
	for _, m := range sd.wsMarks {
		if len(data) == 0 {
			return
		}
		if m.end <= off {
			continue
		}
		k := min(int64(len(data)), m.end-off)
		sd.stream.feed(data[:k], m.at, s.yield(d))
		data, off = data[k:], off+k
	}
	// Data that is the chunk's bytes as they lie in the capture file
	// (unmasked: a server's) gives its frames their file offsets, as a
	// TCP chunk does: a full index then points at them rather than
	// copying them (issue 28: a WebSocket capture's frames were all
	// copied); masked data (a client's), those of its frames whose bytes
	// the key just before them in the file unmasks (yieldMasked).
	if c := sd.wsChunk; c != nil {
		if at := off - sd.wsFrom; at >= 0 && at+int64(len(data)) <= int64(len(c)) {
			ss := sd.stream.st.Stats()
			if bytes.Equal(c[at:at+int64(len(data))], data) {
				sd.stream.feed(data, s.stamp, s.yieldIn(d, ss.Fed+ss.Lost, len(data), s.stamp.File+at))
			} else {
				sd.stream.feed(data, s.stamp, s.yieldMasked(d, ss.Fed+ss.Lost, c, at, s.stamp.File))
			}
			return
		}
	}
	sd.stream.feed(data, s.stamp, s.yield(d))
}

// yieldMasked is yield for data at stream offset start that lies masked
// at c[at:], c a chunk that is one run of the capture file at file: a
// frame wholly inside it whose bytes in c, XORed with the 4 bytes 8
// before them (the WebSocket key, when the frame's length prefix starts
// its message), are the frame's gets its own file offset, masked
// (Stamp.Masked: a host that reads them again unmasks them so).
func (s *Session) yieldMasked(d dissect.Dir, start int64, c []byte, at, file int64) func([]byte, ulinkrpc.FrameInfo, Stamp) {
	return func(b []byte, info ulinkrpc.FrameInfo, st Stamp) {
		from := info.Offset + 4
		p := at + from - start // where the frame's bytes lie in c
		st.File, st.InFile, st.Masked = 0, false, false
		if from >= start && p >= 8 && p+int64(len(b)) <= int64(len(c)) && unmasks(c[p-8:p-4], c[p:p+int64(len(b))], b) {
			st.File, st.InFile, st.Masked = file+p, true, true
		}
		s.frame(d, b, info, st)
	}
}

// unmasks reports whether masked XORed with key, repeated, is b.
func unmasks(key, masked, b []byte) bool {
	for i, v := range masked {
		if v^key[i&3] != b[i] {
			return false
		}
	}
	return true
}

// wsSeq is Holding's watermark for a side whose decoder holds bytes: the
// Seq of the chunk that brought the earliest.
func (s *Session) wsSeq(sd *side) uint64 {
	if len(sd.wsMarks) > 0 {
		return sd.wsMarks[0].at.Seq
	}
	return s.stamp.Seq
}
