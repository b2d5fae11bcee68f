package kcp

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/usmnscope/usmnscope/dissect"
)

// Config bounds a Reassembler and gives it the protocol's words. Zero
// bounds take the defaults.
type Config struct {
	MaxConvs    int // conversations tracked per direction; default 256
	MaxSegments int // out-of-order segments held per conv; default 1024 (KCP windows are 32–256)
	MaxConvData int // bytes held per conv (held segments and a partial message); default 4 MiB
	MaxData     int // bytes held by this reassembler (one direction of a session); default 64 MiB
	// Budget, when not nil, is a shared allowance (capture-wide, say) that
	// held segments and partial messages draw from with other buffers: past
	// it the conversation taking a segment skips its gap, and a partial
	// message growing past it is dropped, with its Reason.
	Budget Budget
	// ErrorPrefix goes before the text of a finding made from a parse
	// error ("ulinkrpc " makes ULinkRPC's read "ulinkrpc kcp: ...").
	ErrorPrefix string
}

// Budget is a shared allowance of buffer bytes that a Reassembler draws
// from with other buffers.
type Budget interface {
	// Grow counts n more bytes held (fewer when negative); it never
	// refuses: a Reassembler asks Over after it grows, and lets go of what
	// it holds when it is.
	Grow(n int)
	// Over reports whether more than the bound is held.
	Over() bool
	// Reason is the why of a finding when buffers are dropped for it.
	Reason() string
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxConvs, 256)
	def(&c.MaxSegments, 1024)
	def(&c.MaxConvData, 4<<20)
	def(&c.MaxData, 64<<20)
	return c
}

// Counts are a conversation's counters.
type Counts struct {
	Push, Ack, Wask, Wins int64
	Duplicates            int64 // PUSH segments already seen (retransmissions)
	Messages              int64 // messages yielded
	Missing               int64 // sn skipped over at gaps
}

// Message is one reassembled KCP message: the concatenated data of
// consecutive PUSH segments whose frg counted down to 0.
type Message struct {
	Conv      uint32
	Data      []byte // valid during the yield
	FirstSn   uint32
	Fragments int
	// Gap: segments were lost before this message (a protocol framing
	// the messages' bytes as one stream must be told).
	Gap bool
	// Datagram is the datagram the message arrived with, counted from 1
	// in the order Datagram was called: the one after which a receiver
	// can deliver it, the latest that brought one of its segments or one
	// of a message before it in sn order (a KCP receiver delivers nothing
	// past a missing sn). A message whose own segments came before the
	// gap in front of it filled arrives with the datagram that filled it,
	// after the messages before it: within a conversation the Datagrams
	// of its messages never go down. A message handed on by a skip of a
	// gap that never filled (too much held, Abandon, End) has the latest
	// of its own datagrams and its predecessors'.
	Datagram uint64
}

// seg is a PUSH segment held ahead of its conversation's next sn.
type seg struct {
	data []byte
	frg  uint8
	dg   uint64 // the datagram that brought it (Reassembler.dg)
}

type conversation struct {
	started bool
	next    uint32
	held    map[uint32]seg // PUSH segments ahead of next, by sn
	bytes   int

	part      []byte
	partFirst uint32
	partN     int
	partDg    uint64 // the latest datagram that brought a segment of part
	lastFrg   int    // frg of the last segment joined, -1 at a message start
	lastDg    uint64 // the Datagram of the last message yielded
	gap       bool
	// After a gap inside a message, the rest of that message (its frg
	// said how much) is dropped: sn up to dropTo.
	dropping bool
	dropTo   uint32

	counts Counts

	// bigEnd is the sn+frg of the last message warned of as too many
	// fragments (bigSaid: one was).
	bigSaid bool
	bigEnd  uint32
}

// Reassembler rebuilds one direction's KCP messages per conv, as a KCP
// receiver in message mode does: PUSH segments ordered by sn, duplicates
// (retransmissions) dropped, fragments joined; ACK, WASK and WINS
// counted. A conversation starts at sn 0 after Start (a
// captured handshake), else at the first sn seen. When too much is held
// behind a missing sn the reassembler skips the gap, with a warning.
type Reassembler struct {
	cfg      Config
	convs    map[uint32]*conversation
	total    int
	refused  bool
	findings []dissect.Finding
	segs     []Segment // Datagram's, reused
	dg       uint64    // datagrams fed
	// heldDgs counts the held segments by the datagram that brought them,
	// in arrival order, only datagrams with some still held: Holding's
	// answer, kept as segments are held and let go.
	heldDgs []heldCount
}

type heldCount struct {
	dg uint64
	n  int
}

// NewReassembler returns an empty reassembler.
func NewReassembler(cfg Config) *Reassembler {
	return &Reassembler{cfg: cfg.withDefaults(), convs: map[uint32]*conversation{}}
}

// Findings returns the findings since the last call and forgets them
// (connection findings, Bit -1).
func (r *Reassembler) Findings() []dissect.Finding {
	fs := r.findings
	r.findings = nil
	return fs
}

func (r *Reassembler) warn(group dissect.Group, format string, args ...any) {
	r.findings = append(r.findings, dissect.Finding{Severity: dissect.Warn, Group: group, Text: fmt.Sprintf(format, args...), Bit: -1})
}

// over reports whether the Budget is spent.
func (r *Reassembler) over() bool { return r.cfg.Budget != nil && r.cfg.Budget.Over() }

// Counts returns a conversation's counters.
func (r *Reassembler) Counts(conv uint32) Counts {
	if c := r.convs[conv]; c != nil {
		return c.counts
	}
	return Counts{}
}

// Held is the number of data bytes held in all.
func (r *Reassembler) Held() int { return r.total }

// Start says conv's handshake was seen: its PUSH segments start at sn 0.
func (r *Reassembler) Start(conv uint32) {
	if c := r.conv(conv); c != nil && !c.started {
		c.started, c.next = true, 0
	}
}

func (r *Reassembler) conv(conv uint32) *conversation {
	if c := r.convs[conv]; c != nil {
		return c
	}
	if len(r.convs) >= r.cfg.MaxConvs {
		if !r.refused {
			r.refused = true
			r.warn(dissect.Sequence, "kcp: more than %d conversations: segments of further convs are dropped", r.cfg.MaxConvs)
		}
		return nil
	}
	c := &conversation{held: map[uint32]seg{}, lastFrg: -1}
	r.convs[conv] = c
	return c
}

// Datagram parses a datagram's segments and feeds them. It returns the
// parse error, if any (the segments before it are fed; the error is also a
// finding).
func (r *Reassembler) Datagram(b []byte, yield func(Message)) error {
	r.dg++
	segs, err := AppendDatagram(r.segs[:0], b)
	r.segs = segs
	for _, s := range segs {
		r.Segment(s, yield)
	}
	if err != nil {
		r.findings = append(r.findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: r.cfg.ErrorPrefix + err.Error(), Bit: -1})
	}
	return err
}

// Segment feeds one segment, as part of the last datagram fed (Datagram;
// none before the first); its data is copied when held.
func (r *Reassembler) Segment(s Segment, yield func(Message)) {
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
			r.warn(dissect.Protocol, "kcp: conv %d: %v segment with %d data bytes", s.Conv, s.Cmd, len(s.Data))
		}
		return
	}
	c.counts.Push++
	if !c.started {
		c.started, c.next = true, s.Sn
	}
	ahead := int32(s.Sn - c.next)
	if ahead < 0 {
		c.counts.Duplicates++
		return
	}
	if ahead > 0 {
		if _, dup := c.held[s.Sn]; dup {
			c.counts.Duplicates++
			return
		}
	}
	// All segments of one message share sn+frg (the sn of its frg 0): a
	// message of too many fragments is said once, not once per segment
	// (a 139-fragment message warned 11 times; issue 29).
	if end := s.Sn + uint32(s.Frg); s.Frg >= MaxFragments && !(c.bigSaid && c.bigEnd == end) {
		c.bigSaid, c.bigEnd = true, end
		r.warn(dissect.Protocol, "kcp: conv %d sn %d: frg %d: a message of more than %d fragments (the sender drops those)", s.Conv, s.Sn, s.Frg, MaxFragments)
	}
	if ahead == 0 {
		// The next sn (the common case) is joined at once: no copy held.
		r.join(s.Conv, c, s.Data, s.Frg, r.dg, yield)
		r.drain(s.Conv, c, yield)
	} else {
		c.held[s.Sn] = seg{data: bytes.Clone(s.Data), frg: s.Frg, dg: r.dg}
		r.grow(c, len(s.Data))
		r.hold(r.dg)
	}
	for c.started && len(c.held) > 0 && (len(c.held) > r.cfg.MaxSegments || c.bytes > r.cfg.MaxConvData || r.total > r.cfg.MaxData || r.over()) {
		why := "too much held behind it"
		if len(c.held) <= r.cfg.MaxSegments && c.bytes <= r.cfg.MaxConvData && r.total <= r.cfg.MaxData {
			why = "what is held behind it is " + r.cfg.Budget.Reason()
		}
		r.skipGap(s.Conv, c, why)
		r.drain(s.Conv, c, yield)
	}
}

// drain joins the held segments from next on while they are consecutive.
func (r *Reassembler) drain(conv uint32, c *conversation, yield func(Message)) {
	for {
		seg, ok := c.held[c.next]
		if !ok {
			return
		}
		delete(c.held, c.next)
		r.grow(c, -len(seg.data))
		r.unhold(seg.dg)
		r.join(conv, c, seg.data, seg.frg, seg.dg, yield)
	}
}

// join adds the segment at next, brought by datagram dg, to the partial
// message, and yields the message its frg 0 ends.
func (r *Reassembler) join(conv uint32, c *conversation, data []byte, frg uint8, dg uint64, yield func(Message)) {
	if c.dropping && int32(c.next-c.dropTo) <= 0 {
		c.next++
		return
	}
	c.dropping = false
	if c.lastFrg >= 0 && int(frg) != c.lastFrg-1 {
		r.warn(dissect.Sequence, "kcp: conv %d sn %d: frg %d after frg %d: fragments do not count down", conv, c.next, frg, c.lastFrg)
	}
	if c.partN == 0 {
		c.partFirst = c.next
	}
	c.part = append(c.part, data...)
	c.partN++
	c.partDg = max(c.partDg, dg)
	c.lastFrg = int(frg)
	r.grow(c, len(data))
	c.next++
	if frg != 0 && r.over() {
		r.warn(dissect.Sequence, "kcp: conv %d: a partial message of %d fragments (%d bytes) from sn %d dropped %s; its other %d fragments are dropped as they arrive",
			conv, c.partN, len(c.part), c.partFirst, r.cfg.Budget.Reason(), frg)
		c.dropping, c.dropTo = true, c.next-1+uint32(frg)
		r.dropPart(c)
		c.gap = true
		return
	}
	if c.partN > 256 || len(c.part) > r.cfg.MaxConvData {
		// frg is a byte, so a message has at most 256 fragments: one
		// that never counts down to 0 is garbage, not held forever.
		r.warn(dissect.Sequence, "kcp: conv %d: a message of %d fragments (%d bytes) from sn %d never ended: dropped", conv, c.partN, len(c.part), c.partFirst)
		r.dropPart(c)
		c.gap = true
		return
	}
	if frg == 0 {
		c.lastDg = max(c.lastDg, c.partDg)
		m := Message{Conv: conv, Data: c.part, FirstSn: c.partFirst, Fragments: c.partN, Gap: c.gap, Datagram: c.lastDg}
		c.gap = false
		c.counts.Messages++
		r.dropPart(c)
		if yield != nil {
			yield(m)
		}
	}
}

// hold counts a segment of datagram dg held; dg is the latest datagram.
func (r *Reassembler) hold(dg uint64) {
	if k := len(r.heldDgs); k > 0 && r.heldDgs[k-1].dg == dg {
		r.heldDgs[k-1].n++
		return
	}
	r.heldDgs = append(r.heldDgs, heldCount{dg: dg, n: 1})
}

// unhold counts a segment of datagram dg let go. A datagram with none left
// is forgotten at once, so that heldDgs is never longer than the segments
// held (usually it loses its first: gaps fill in arrival order).
func (r *Reassembler) unhold(dg uint64) {
	i, found := slices.BinarySearchFunc(r.heldDgs, dg, func(h heldCount, dg uint64) int { return cmp.Compare(h.dg, dg) })
	if !found {
		return
	}
	if r.heldDgs[i].n--; r.heldDgs[i].n > 0 {
		return
	}
	if i == 0 {
		r.heldDgs = r.heldDgs[1:]
		return
	}
	r.heldDgs = slices.Delete(r.heldDgs, i, i+1)
}

// Datagrams is the number of datagrams fed: the latest's number.
func (r *Reassembler) Datagrams() uint64 { return r.dg }

// Holding reports whether segments are held behind a missing sn, which may
// yet complete messages that arrived with their datagrams
// (Message.Datagram) however late they are handed on, and the earliest datagram (as
// Message.Datagram counts) that brought one of them. The part of a
// message joined so far holds nothing: the fragment that goes on with it
// comes in a later datagram, which the message then arrives with.
func (r *Reassembler) Holding() (first uint64, ok bool) {
	if len(r.heldDgs) == 0 {
		return 0, false
	}
	return r.heldDgs[0].dg, true
}

// HoldsFrom reports whether a segment datagram dg brought is held.
func (r *Reassembler) HoldsFrom(dg uint64) bool {
	_, found := slices.BinarySearchFunc(r.heldDgs, dg, func(h heldCount, dg uint64) int { return cmp.Compare(h.dg, dg) })
	return found
}

// grow counts n more bytes (fewer when negative) held by conv c, in the
// reassembler's total and in the Budget.
func (r *Reassembler) grow(c *conversation, n int) {
	c.bytes += n
	r.total += n
	if r.cfg.Budget != nil {
		r.cfg.Budget.Grow(n)
	}
}

func (r *Reassembler) dropPart(c *conversation) {
	r.grow(c, -len(c.part))
	c.part, c.partN, c.partDg, c.lastFrg = c.part[:0], 0, 0, -1
	if cap(c.part) > 1<<20 {
		c.part = nil
	}
}

// skipGap moves next to the lowest held sn, dropping a partial message.
func (r *Reassembler) skipGap(conv uint32, c *conversation, why string) {
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
		r.warn(dissect.Sequence, text, conv, missing, c.next, why, c.partN)
	} else {
		r.warn(dissect.Sequence, text, conv, missing, c.next, why)
	}
	if c.partN > 0 {
		c.dropping, c.dropTo = true, c.next-1+uint32(c.lastFrg)
	}
	r.dropPart(c)
	c.counts.Missing += int64(missing)
	c.next, c.gap = lowest, true
}

// Abandon stops waiting for the missing sn of every conversation: each
// gap is skipped (a warning says why) and the complete messages behind it
// are yielded, as at End; a message left cut goes on with the segments
// that follow. For a host that cannot wait longer (its queue of later
// messages reached its bound).
func (r *Reassembler) Abandon(why string, yield func(Message)) {
	if len(r.heldDgs) == 0 {
		return
	}
	for _, conv := range slices.Sorted(maps.Keys(r.convs)) {
		r.skipAll(conv, r.convs[conv], why, yield)
	}
}

// skipAll skips every gap of a conversation.
func (r *Reassembler) skipAll(conv uint32, c *conversation, why string, yield func(Message)) {
	for len(c.held) > 0 {
		r.skipGap(conv, c, why)
		r.drain(conv, c, yield)
	}
}

// End flushes every conversation: gaps are skipped (with warnings) so that
// the complete messages behind them are yielded; a partial message left at
// the end is reported. It returns every finding not yet drained.
func (r *Reassembler) End(yield func(Message)) []dissect.Finding {
	for _, conv := range slices.Sorted(maps.Keys(r.convs)) {
		c := r.convs[conv]
		r.skipAll(conv, c, "at the end of the capture", yield)
		if c.partN > 0 {
			r.warn(dissect.Sequence, "kcp: conv %d: the capture ended inside a message of %d fragments from sn %d", conv, c.partN, c.partFirst)
			r.dropPart(c)
		}
	}
	return r.Findings()
}
