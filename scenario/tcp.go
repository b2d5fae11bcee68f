package scenario

import (
	"hash/fnv"
	"slices"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// Packet is one captured packet: its time and its bytes from the link
// header on.
type Packet struct {
	Time time.Time
	Data []byte
}

// packetGap is the time between packets sent back to back.
const packetGap = 10 * time.Microsecond

// flow turns one connection's writes into TCP segments: sequence and
// acknowledgement numbers, flags, and the transport options that mangle
// what the capture sees.
type flow struct {
	conn dissect.Conn
	l    link
	t    Transport
	seq  [2]uint32 // next sequence number each side sends, by Dir
	ipID [2]uint16
	now  time.Time
	n    int // data segments sent so far

	held    *Packet // a reordered segment waiting for the next one
	again   *Packet // a segment to retransmit after the next one
	capture bool
	buf     []byte
	out     func(Packet)
	unacked [2]int // bytes each side sent since the peer last acknowledged
}

// isn derives a side's initial sequence number from the seed and the
// connection, so captures are reproducible.
func isn(seed uint64, c dissect.Conn, d dissect.Dir) uint32 {
	h := fnv.New32a()
	var b [8]byte
	for i := range b {
		b[i] = byte(seed >> (8 * i))
	}
	h.Write(b[:])
	h.Write([]byte(c.String()))
	h.Write([]byte{byte(d)})
	return h.Sum32()
}

func newFlow(seed uint64, c dissect.Conn, l link, t Transport, start time.Time, out func(Packet)) *flow {
	f := &flow{conn: c, l: l, t: t, now: start, out: out}
	f.seq[dissect.C2S] = isn(seed, c, dissect.C2S)
	f.seq[dissect.S2C] = isn(seed, c, dissect.S2C)
	f.ipID = [2]uint16{uint16(f.seq[0]), uint16(f.seq[1])}
	return f
}

// packet builds a segment from side d at the current time and advances
// the clock. The packet's bytes alias the flow's buffer until the next
// packet: whoever keeps one clones it.
func (f *flow) packet(d dissect.Dir, flags uint8, seq uint32, payload []byte) Packet {
	s := segment{seq: seq, ack: f.seq[1-d], flags: flags, ipID: f.ipID[d], payload: payload, fromClient: d == dissect.C2S}
	if flags&flagSYN != 0 && flags&flagACK == 0 {
		s.ack = 0
	}
	s.src, s.dst = f.conn.Client, f.conn.Server
	if d == dissect.S2C {
		s.src, s.dst = s.dst, s.src
	}
	f.ipID[d]++
	f.unacked[d] += len(payload)
	f.unacked[1-d] = 0
	f.buf = appendPacket(f.buf[:0], f.l, &s)
	p := Packet{Time: f.now, Data: f.buf}
	f.now = f.now.Add(packetGap)
	return p
}

func (f *flow) emit(p Packet) {
	if f.capture {
		f.out(p)
	}
}

// control sends a segment without data (SYN, FIN, pure ACK).
func (f *flow) control(d dissect.Dir, flags uint8) {
	f.emit(f.packet(d, flags, f.seq[d], nil))
	if flags&(flagSYN|flagFIN) != 0 {
		f.seq[d]++
	}
}

// handshake is the TCP three-way handshake.
func (f *flow) handshake() {
	f.control(dissect.C2S, flagSYN)
	f.control(dissect.S2C, flagSYN|flagACK)
	f.control(dissect.C2S, flagACK)
}

// close is the FIN exchange: client FIN, server FIN, client ACK.
func (f *flow) close() {
	f.flush()
	f.control(dissect.C2S, flagFIN|flagACK)
	f.control(dissect.S2C, flagFIN|flagACK)
	f.control(dissect.C2S, flagACK)
}

// cuts returns where w's data is cut into segments: at most Segment bytes
// each, and with SplitHeaders after the first byte of every frame header.
func (f *flow) cuts(w *Write) []int {
	var cuts []int
	if f.t.SplitHeaders {
		for _, o := range w.Frames {
			if o+1 < len(w.Data) {
				cuts = append(cuts, o+1)
			}
		}
	}
	var out []int
	from := 0
	for _, c := range append(cuts, len(w.Data)) {
		for c-from > f.t.Segment {
			from += f.t.Segment
			out = append(out, from)
		}
		if c > from {
			out = append(out, c)
			from = c
		}
	}
	return out
}

// write sends one write as segments, applying loss, reordering and
// retransmission by segment number. A reordered segment is held until the
// next data segment of either side has gone out; a retransmitted one is
// sent again at the start of the next write.
func (f *flow) write(w *Write) {
	f.capture = w.Capture
	if f.again != nil {
		// Retransmitted a write's time later, so that it looks like one
		// (a copy within the round-trip time looks reordered instead).
		f.emit(f.retime(*f.again))
		f.again = nil
	}
	from := 0
	cut := w.Cut
	cuts := f.cuts(w)
	for i, to := range cuts {
		f.n++
		flags := uint8(flagACK)
		if i == len(cuts)-1 {
			flags |= flagPSH
		}
		seq, payload := f.seq[w.Dir], w.Data[from:to]
		f.seq[w.Dir] += uint32(to - from)
		from = to
		if cut > 0 {
			// The capture starts inside this segment: keep only its tail.
			k := min(cut, len(payload)-1)
			seq += uint32(k)
			payload = payload[k:]
			cut = 0
		}
		p := f.packet(w.Dir, flags, seq, payload)
		switch {
		case slices.Contains(f.t.Loss, f.n):
			// sent, never captured
		case slices.Contains(f.t.Reorder, f.n) && f.held == nil:
			p.Data = slices.Clone(p.Data)
			f.held = &p
			continue
		default:
			f.emit(p)
		}
		if f.held != nil {
			f.emit(f.retime(*f.held))
			f.held = nil
		}
		if slices.Contains(f.t.Retransmit, f.n) {
			p.Data = slices.Clone(p.Data)
			f.again = &p
		}
	}
}

// retime gives an earlier packet the current time, as a retransmission.
func (f *flow) retime(p Packet) Packet {
	p.Time = f.now
	f.now = f.now.Add(packetGap)
	return p
}

// flush sends what reordering or retransmission still holds.
func (f *flow) flush() {
	if f.held != nil {
		f.emit(f.retime(*f.held))
		f.held = nil
	}
	if f.again != nil {
		f.emit(f.retime(*f.again))
		f.again = nil
	}
}

// coalesce merges consecutive writes of one side when the transport asks
// for it, so several messages share segments.
func coalesce(ws []Write) []Write {
	var out []Write
	for _, w := range ws {
		if n := len(out); n > 0 && out[n-1].Dir == w.Dir && out[n-1].Capture == w.Capture && w.Cut == 0 {
			last := &out[n-1]
			for _, o := range w.Frames {
				last.Frames = append(last.Frames, len(last.Data)+o)
			}
			last.Data = append(last.Data, w.Data...)
			continue
		}
		w.Data = slices.Clone(w.Data)
		w.Frames = slices.Clone(w.Frames)
		out = append(out, w)
	}
	return out
}

// play sends a whole script: handshake, writes with the peer's ACKs, and
// the close.
func (f *flow) play(s *Script) {
	ws := s.Writes
	if f.t.Coalesce {
		ws = coalesce(ws)
	}
	f.capture = len(ws) == 0 || ws[0].Capture
	if f.t.TCPHandshake {
		f.handshake()
	}
	for i := range ws {
		w := &ws[i]
		f.now = f.now.Add(w.Gap)
		f.write(w)
		// The peer acknowledges unless its next write carries the ACK.
		if i+1 == len(ws) || ws[i+1].Dir == w.Dir {
			f.now = f.now.Add(4 * packetGap)
			f.control(1-w.Dir, flagACK)
		}
	}
	f.flush()
	if f.t.Close {
		f.now = f.now.Add(f.t.Gap.Duration)
		f.close()
	}
}
