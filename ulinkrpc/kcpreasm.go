package ulinkrpc

import (
	"bytes"
	"maps"
	"slices"

	"github.com/usmnscope/usmnscope/dissect"
)

// KCPLimits bound a Reassembler. Zero fields take the defaults.
type KCPLimits struct {
	MaxConvs    int // conversations tracked per direction; default 256
	MaxSegments int // out-of-order segments held per conv; default 1024 (KCP windows are 32–256)
	MaxConvData int // bytes held per conv (held segments and a partial message); default 4 MiB
	MaxData     int // bytes held in all; default 64 MiB
}

func (l KCPLimits) withDefaults() KCPLimits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxConvs, 256)
	def(&l.MaxSegments, 1024)
	def(&l.MaxConvData, 4<<20)
	def(&l.MaxData, 64<<20)
	return l
}

// KCPCounts are a conversation's counters.
type KCPCounts struct {
	Push, Ack, Wask, Wins int64
	Duplicates            int64 // PUSH segments already seen (retransmissions)
	Messages              int64 // messages yielded
	Missing               int64 // sn skipped over at gaps
}

// KCPMessage is one reassembled KCP message: the concatenated data of
// consecutive PUSH segments whose frg counted down to 0.
type KCPMessage struct {
	Conv      uint32
	Data      []byte // valid during the yield
	FirstSn   uint32
	Fragments int
	// Gap: segments were lost before this message (the frame stream must
	// be told: Stream.Gap).
	Gap bool
}

type kcpConv struct {
	started bool
	next    uint32
	held    map[uint32][]byte // data of PUSH segments ahead of next, by sn
	frg     map[uint32]uint8
	bytes   int

	part      []byte
	partFirst uint32
	partN     int
	lastFrg   int // frg of the last segment joined, -1 at a message start
	gap       bool
	// After a gap inside a message, the rest of that message (its frg
	// said how much) is dropped: sn up to dropTo.
	dropping bool
	dropTo   uint32

	counts KCPCounts
}

// Reassembler rebuilds one direction's KCP messages per conv (ulinkrpc.md
// 2.3): PUSH segments ordered by sn, duplicates dropped, fragments joined;
// ACK, WASK and WINS counted. A conversation starts at sn 0 after Start (a
// captured handshake), else at the first sn seen. When too much is held
// behind a missing sn the reassembler skips the gap, with a warning.
type Reassembler struct {
	lim      KCPLimits
	convs    map[uint32]*kcpConv
	total    int
	refused  bool
	findings []dissect.Finding
	segs     []Segment // Datagram's, reused
}

// NewReassembler returns an empty reassembler.
func NewReassembler(lim KCPLimits) *Reassembler {
	return &Reassembler{lim: lim.withDefaults(), convs: map[uint32]*kcpConv{}}
}

// Findings returns the findings since the last call and forgets them
// (connection findings, Bit -1).
func (r *Reassembler) Findings() []dissect.Finding {
	fs := r.findings
	r.findings = nil
	return fs
}

func (r *Reassembler) find(f dissect.Finding) { r.findings = append(r.findings, f) }

// Counts returns a conversation's counters.
func (r *Reassembler) Counts(conv uint32) KCPCounts {
	if c := r.convs[conv]; c != nil {
		return c.counts
	}
	return KCPCounts{}
}

// Held is the number of data bytes held in all.
func (r *Reassembler) Held() int { return r.total }

// Start says conv's handshake was seen: its PUSH segments start at sn 0.
func (r *Reassembler) Start(conv uint32) {
	if c := r.conv(conv); c != nil && !c.started {
		c.started, c.next = true, 0
	}
}

func (r *Reassembler) conv(conv uint32) *kcpConv {
	if c := r.convs[conv]; c != nil {
		return c
	}
	if len(r.convs) >= r.lim.MaxConvs {
		if !r.refused {
			r.refused = true
			r.find(warn(dissect.Sequence, -1, "kcp: more than %d conversations: segments of further convs are dropped", r.lim.MaxConvs))
		}
		return nil
	}
	c := &kcpConv{held: map[uint32][]byte{}, frg: map[uint32]uint8{}, lastFrg: -1}
	r.convs[conv] = c
	return c
}

// Datagram parses a datagram's segments and feeds them. It returns the
// parse error, if any (the segments before it are fed; the error is also a
// finding).
func (r *Reassembler) Datagram(b []byte, yield func(KCPMessage)) error {
	segs, err := AppendDatagram(r.segs[:0], b)
	r.segs = segs
	for _, s := range segs {
		r.Segment(s, yield)
	}
	if err != nil {
		r.find(finding(err, 0))
		r.findings[len(r.findings)-1].Bit = -1
	}
	return err
}

// Segment feeds one segment; its data is copied when held.
func (r *Reassembler) Segment(s Segment, yield func(KCPMessage)) {
	c := r.conv(s.Conv)
	if c == nil {
		return
	}
	switch s.Cmd {
	case CmdAck:
		c.counts.Ack++
	case CmdWask:
		c.counts.Wask++
	case CmdWins:
		c.counts.Wins++
	}
	if s.Cmd != CmdPush {
		if len(s.Data) > 0 {
			r.find(warn(dissect.Protocol, -1, "kcp: conv %d: %v segment with %d data bytes", s.Conv, s.Cmd, len(s.Data)))
		}
		return
	}
	c.counts.Push++
	if !c.started {
		c.started, c.next = true, s.Sn
	}
	if d := int32(s.Sn - c.next); d < 0 {
		c.counts.Duplicates++
		return
	}
	if _, dup := c.held[s.Sn]; dup {
		c.counts.Duplicates++
		return
	}
	if s.Frg >= KCPMaxFragments {
		r.find(warn(dissect.Protocol, -1, "kcp: conv %d sn %d: frg %d: a message of more than %d fragments (the sender drops those)", s.Conv, s.Sn, s.Frg, KCPMaxFragments))
	}
	c.held[s.Sn] = bytes.Clone(s.Data)
	c.frg[s.Sn] = s.Frg
	c.bytes += len(s.Data)
	r.total += len(s.Data)
	r.drain(s.Conv, c, yield)
	for c.started && len(c.held) > 0 && (len(c.held) > r.lim.MaxSegments || c.bytes > r.lim.MaxConvData || r.total > r.lim.MaxData) {
		r.skipGap(s.Conv, c, "too much held behind it")
		r.drain(s.Conv, c, yield)
	}
}

// drain joins the segments from next on while they are consecutive.
func (r *Reassembler) drain(conv uint32, c *kcpConv, yield func(KCPMessage)) {
	for {
		data, ok := c.held[c.next]
		if !ok {
			return
		}
		frg := c.frg[c.next]
		delete(c.held, c.next)
		delete(c.frg, c.next)
		c.bytes -= len(data)
		r.total -= len(data)
		if c.dropping && int32(c.next-c.dropTo) <= 0 {
			c.next++
			continue
		}
		c.dropping = false
		if c.lastFrg >= 0 && int(frg) != c.lastFrg-1 {
			r.find(warn(dissect.Sequence, -1, "kcp: conv %d sn %d: frg %d after frg %d: fragments do not count down", conv, c.next, frg, c.lastFrg))
		}
		if c.partN == 0 {
			c.partFirst = c.next
		}
		c.part = append(c.part, data...)
		c.partN++
		c.lastFrg = int(frg)
		c.bytes += len(data)
		r.total += len(data)
		c.next++
		if c.partN > 256 || len(c.part) > r.lim.MaxConvData {
			// frg is a byte, so a message has at most 256 fragments: one
			// that never counts down to 0 is garbage, not held forever.
			r.find(warn(dissect.Sequence, -1, "kcp: conv %d: a message of %d fragments (%d bytes) from sn %d never ended: dropped", conv, c.partN, len(c.part), c.partFirst))
			r.dropPart(c)
			c.gap = true
			continue
		}
		if frg == 0 {
			m := KCPMessage{Conv: conv, Data: c.part, FirstSn: c.partFirst, Fragments: c.partN, Gap: c.gap}
			c.gap = false
			c.counts.Messages++
			r.dropPart(c)
			if yield != nil {
				yield(m)
			}
		}
	}
}

func (r *Reassembler) dropPart(c *kcpConv) {
	c.bytes -= len(c.part)
	r.total -= len(c.part)
	c.part, c.partN, c.lastFrg = c.part[:0], 0, -1
	if cap(c.part) > 1<<20 {
		c.part = nil
	}
}

// skipGap moves next to the lowest held sn, dropping a partial message.
func (r *Reassembler) skipGap(conv uint32, c *kcpConv, why string) {
	lowest, found := uint32(0), false
	for sn := range c.held {
		if !found || int32(sn-c.next) < int32(lowest-c.next) {
			lowest, found = sn, true
		}
	}
	if !found {
		return
	}
	missing := lowest - c.next
	text := "kcp: conv %d: gap in sn: %d segments missing from sn %d (%s)"
	if c.partN > 0 {
		text += ", a partial message of %d fragments dropped"
		r.find(warn(dissect.Sequence, -1, text, conv, missing, c.next, why, c.partN))
	} else {
		r.find(warn(dissect.Sequence, -1, text, conv, missing, c.next, why))
	}
	if c.partN > 0 {
		c.dropping, c.dropTo = true, c.next-1+uint32(c.lastFrg)
	}
	r.dropPart(c)
	c.counts.Missing += int64(missing)
	c.next, c.gap = lowest, true
}

// End flushes every conversation: gaps are skipped (with warnings) so that
// the complete messages behind them are yielded; a partial message left at
// the end is reported. It returns every finding not yet drained.
func (r *Reassembler) End(yield func(KCPMessage)) []dissect.Finding {
	for _, conv := range slices.Sorted(maps.Keys(r.convs)) {
		c := r.convs[conv]
		for len(c.held) > 0 {
			r.skipGap(conv, c, "at the end of the capture")
			r.drain(conv, c, yield)
		}
		if c.partN > 0 {
			r.find(warn(dissect.Sequence, -1, "kcp: conv %d: the capture ended inside a message of %d fragments from sn %d", conv, c.partN, c.partFirst))
			r.dropPart(c)
		}
	}
	return r.Findings()
}
