package track

import (
	"fmt"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// The connection as the host feeds it (decode.Feed): each direction's
// bytes through its SystemSockets framer (wire.md 2), the messages it
// frames handed to the host to number (Host.Message) with the stamp of
// the chunk that held their last byte. A direction whose framer is
// resynchronising holds bytes that may later turn out to end messages
// (the framer yields them only once a chain of headers is found, or at the
// end of the stream): Holding says so, with the earliest event among
// them, so that the host numbers nothing that arrived after them before
// them (outputs.md "Ordering"), and Abandon gives up waiting on them.

// chunkMark is where a chunk ended in its direction's stream, and when and
// in which frame it was captured.
type chunkMark struct {
	end   int64
	time  time.Time
	frame int
	seq   uint64 // the host's event that brought it
}

// stamp returns the time, frame and event of the chunk holding stream
// offset end-1 among those fed while resynchronising, or t, frame and seq
// when none is recorded; marks before that chunk are dropped (messages come
// in order).
func (c *Conn) stamp(dir dissect.Dir, end int64, t time.Time, frame int, seq uint64) (time.Time, int, uint64) {
	m := c.unsynced[dir]
	for len(m) > 0 && m[0].end < end {
		m = m[1:]
	}
	c.unsynced[dir] = m
	if len(m) == 0 {
		return t, frame, seq
	}
	return m[0].time, m[0].frame, m[0].seq
}

// starts reports whether a message framed with info begins its
// direction's stream at a message boundary.
func starts(info unturned.FrameInfo) bool { return !info.Resynced && info.Offset == 0 }

// MidStream says the connection was joined mid-connection (no SYN seen):
// a direction that has no bytes yet resynchronises from its first byte,
// as its stream may start inside a message or its length header (wire.md
// 2); one that has bytes keeps the framing it has.
func (c *Conn) MidStream() {
	for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
		if !c.fed[d] {
			c.framer[d].StartUnsynced()
		}
	}
}

// Bytes feeds reassembled bytes of direction d, captured as at says: a
// message lying wholly inside them, when they are one run of the capture
// file (at.InFile), is handed out with its file offset.
func (c *Conn) Bytes(d dissect.Dir, data []byte, at decode.Stamp) {
	offset := int64(-1)
	if at.InFile {
		offset = at.File
	}
	c.Chunk(d, data, at.Time, at.Frame, at.Seq, offset)
}

// Chunk is Bytes for a host that calls it on the Conn's type, as every
// chunk's path, with the stamp's fields as arguments (offset: the
// bytes' in the capture file, < 0 when they are not one run of it): a Stamp built for the call is
// built in a temporary and copied whole, and the copy's wide loads of the
// narrow stores just made stall (store forwarding), which cost every
// chunk measurably. It reports whether direction d's framer is
// synchronised after the bytes: only d's can have changed, so a host that
// saw the Conn not Holding before need not ask again when it is.
func (c *Conn) Chunk(d dissect.Dir, data []byte, t time.Time, frame int, seq uint64, offset int64) (synced bool) {
	if d > dissect.S2C {
		return true
	}
	c.fed[d], c.lastTime[d], c.lastFrame[d], c.lastSeq[d] = true, t, frame, seq
	fr := c.framer[d]
	if !fr.Synced() {
		c.unsynced[d] = append(c.unsynced[d], chunkMark{end: fr.Offset() + int64(len(data)), time: t, frame: frame, seq: seq})
	}
	start := fr.Offset() // stream offset of data[0]
	held0 := fr.Held()
	f := &c.out
	fr.Feed(data, func(msg []byte, info unturned.FrameInfo) {
		end := info.Offset + 2 + int64(len(msg))
		// Field by field: a composite literal is built on the stack and
		// copied over, which costs every message measurably.
		f.Dir, f.Start, f.Msg, f.End = d, starts(info), msg, end
		f.At.Time, f.At.Frame, f.At.Seq = t, frame, seq
		if len(c.unsynced[d]) > 0 {
			f.At.Time, f.At.Frame, f.At.Seq = c.stamp(d, end, t, frame, seq)
		}
		// The framer hands out a message in place when it lies wholly in
		// the chunk; one it assembled in its own buffer is not in the file
		// as one run.
		f.At.File, f.At.InFile = 0, false
		if k := info.Offset + 2 - start; offset >= 0 && len(msg) > 0 && k >= 0 && k+int64(len(msg)) <= int64(len(data)) && &data[k] == &msg[0] {
			f.At.File, f.At.InFile = offset+k, true
		}
		c.host.Message(f)
	})
	f.Msg = nil
	if fr.Synced() {
		c.unsynced[d] = c.unsynced[d][:0]
	} else {
		// A chunk that lost synchronisation part-way gets its mark now,
		// so that the messages its bytes end keep its time and frame.
		if m := c.unsynced[d]; len(m) == 0 || m[len(m)-1].seq != seq {
			c.unsynced[d] = append(m, chunkMark{end: fr.Offset(), time: t, frame: frame, seq: seq})
		}
		// Marks of chunks whose bytes were all skipped can go.
		c.stamp(d, fr.Offset()-fr.Stats().Buffered+1, t, frame, seq)
	}
	c.findings(fr.Findings())
	c.k.account(fr, held0)
	return fr.Synced()
}

// Gap reports bytes of direction d lost before the frame at.Frame:
// framing resynchronises after it.
func (c *Conn) Gap(d dissect.Dir, lost int, at decode.Stamp) {
	if d > dissect.S2C {
		return
	}
	fr := c.framer[d]
	held0 := fr.Held()
	fr.Gap(lost)
	c.host.Finding(dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Text: fmt.Sprintf("%s: %s lost before frame %d; framing resynchronises", d, dissect.Count(lost, "byte"), at.Frame), Bit: -1})
	c.findings(fr.Findings())
	c.k.account(fr, held0)
}

// Datagram is not Unturned's: SystemSockets rides on TCP alone.
func (c *Conn) Datagram(dissect.Dir, []byte, decode.Stamp) {}

// End ends the connection's framers (a FIN or RST, or the end of the
// capture): bytes still awaiting resynchronisation (a late resync near the
// end of the stream) get a last chance to frame, and their messages are
// handed out with the stamps of their chunks, else those of the
// direction's last chunk, and at.Seq for the event. A partial message
// becomes a finding.
func (c *Conn) End(at decode.Stamp) {
	for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
		fr := c.framer[d]
		h0 := fr.Held()
		c.findings(fr.End(func(msg []byte, info unturned.FrameInfo) {
			end := info.Offset + 2 + int64(len(msg))
			t, frame, seq := c.stamp(d, end, c.lastTime[d], c.lastFrame[d], at.Seq)
			c.hand(d, msg, end, info, decode.Stamp{Time: t, Frame: frame, Seq: seq})
		}))
		c.k.account(fr, h0)
		c.unsynced[d] = c.unsynced[d][:0]
	}
}

// blocking reports whether direction d's framer holds bytes awaiting
// resynchronisation.
func (c *Conn) blocking(d dissect.Dir) bool {
	fr := c.framer[d]
	return !fr.Synced() && fr.Stats().Buffered > 0
}

// holds is the earliest event among the bytes direction d holds while
// resynchronising (the first chunk mark: a direction holding bytes has
// one covering them), ^0 for none recorded.
func (c *Conn) holds(d dissect.Dir) uint64 {
	if m := c.unsynced[d]; len(m) > 0 {
		return m[0].seq
	}
	return ^uint64(0)
}

// Holding reports whether a direction's framer holds bytes awaiting
// resynchronisation, which may end messages earlier than later arrivals,
// and the earliest event among them (^0 when none is recorded: the host
// takes its current one).
func (c *Conn) Holding() (seq uint64, ok bool) {
	seq = ^uint64(0)
	if c.framer[dissect.C2S].Synced() && c.framer[dissect.S2C].Synced() {
		return seq, false
	}
	for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
		if c.blocking(d) {
			seq, ok = min(seq, c.holds(d)), true
		}
	}
	return seq, ok
}

// Abandon stops waiting on the direction holding the oldest bytes
// awaiting resynchronisation, for a host whose queue of later messages
// reached its bound: its buffered bytes are framed when they chain exactly
// to their end and are skipped otherwise (reported), and the framer
// resynchronises on the bytes that follow. The host asks Holding again.
func (c *Conn) Abandon() {
	c.abandon("while other traffic waited for it (a resynchronising direction holds at most 16384 later messages)")
}

// Idle is Abandon for a source that went idle (session.Index.Idle).
func (c *Conn) Idle() { c.abandon("while the source was idle") }

// abandon is Abandon, why saying why in the skip finding.
func (c *Conn) abandon(why string) {
	dir, seq := dissect.Dir(0), ^uint64(0)
	found := false
	for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
		if c.blocking(d) && (!found || c.holds(d) < seq) {
			dir, seq, found = d, c.holds(d), true
		}
	}
	if !found {
		return
	}
	fr := c.framer[dir]
	fr.Abandon(why, func(msg []byte, info unturned.FrameInfo) {
		end := info.Offset + 2 + int64(len(msg))
		t, frame, s := c.stamp(dir, end, c.lastTime[dir], c.lastFrame[dir], c.lastSeq[dir])
		c.hand(dir, msg, end, info, decode.Stamp{Time: t, Frame: frame, Seq: s})
	})
	if fr.Synced() {
		c.unsynced[dir] = c.unsynced[dir][:0]
	}
	c.findings(fr.Findings())
}

// hand hands the host a message End or Abandon framed (Bytes builds its
// own in place).
func (c *Conn) hand(d dissect.Dir, msg []byte, end int64, info unturned.FrameInfo, at decode.Stamp) {
	c.out = decode.FramedMsg{Dir: d, Start: starts(info), Msg: msg, End: end, At: at}
	c.host.Message(&c.out)
	c.out.Msg = nil
}

// findings hands the framer's findings to the host.
func (c *Conn) findings(fs []dissect.Finding) {
	for _, f := range fs {
		c.host.Finding(f)
	}
}
