package rpc

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// Transport is what carries a connection's frames (outputs.md `transport`).
type Transport uint8

const (
	TCP Transport = iota
	WebSocket
	KCP
)

var transportNames = [...]string{TCP: "tcp", WebSocket: "websocket", KCP: "kcp"}

func (t Transport) String() string { return enum.Name(transportNames[:], t) }

// ParseTransport reads a transport name as String spells it.
func ParseTransport(s string) (Transport, bool) {
	for i, n := range transportNames {
		if n == s {
			return Transport(i), true
		}
	}
	return 0, false
}

// Stamp is where in the capture a chunk came from (decode.Stamp): the
// pcap frame number (from 1), the capture time of the packet, and the
// host's arrival sequence of the event (Config.Yield): a frame held while
// its stream resynchronises keeps the Seq of the chunk that completed it,
// as it keeps its Frame and Time.
type Stamp = decode.Stamp

// Config sets up a Session. The zero value decodes TCP with the transform
// settings unknown (classified per frame), payloads detected, no names.
type Config struct {
	Transport  Transport
	Transform  ulinkrpc.TransformConfig
	Serializer ulinkrpc.Serializer
	Contracts  *ulinkrpc.Contracts // nil: no names, MemoryPack cut without a schema
	// MidStream says the connection's start was not captured: framing
	// starts unsynchronised, a WebSocket without its upgrade head.
	MidStream bool
	MaxFrame  int        // per-frame cap (ulinkrpc.StreamConfig.MaxLen); 0 means 64 MiB
	KCP       kcp.Config // KCP reassembly bounds (its limits: ulinkrpc sets the rest)
	// Budget, when not nil, is the capture-wide allowance every session
	// made from this Config draws its partial frames and held KCP
	// segments from (ulinkrpc.Budget); it overrides KCP.Budget.
	Budget *ulinkrpc.Budget
	// MaxConvs bounds the KCP conversations given a frame stream per
	// direction; 0 means 256.
	MaxConvs int
	// MaxOpen bounds unanswered Requests and Pings held for pairing; 0
	// means dissect.DefaultMaxAsks. Past it the oldest are forgotten.
	MaxOpen int
	// Number gives each record its number n; nil numbers the session's
	// records from 1. Unused with Yield.
	Number func() int
	// Light decodes each frame only as far as Tables and the connection
	// findings go (light.go, issue 15: `tables`): records are light (no
	// fields, payload, envelope copy or findings), numbered and paired as
	// full ones and then handed back for reuse (Recycle). Records and
	// Pending are then empty.
	Light bool
	// Lazy leaves each record's payload to be decoded when the record is
	// read (lazy.go, issue 28: `dump --json` decodes it on its encoding
	// goroutine, and writes a JSON payload's fields straight from the
	// bytes). Meta, Tree, Line, TreeText, Values and AppendJSON give the
	// record as a session that is not lazy makes it; Brief and the
	// fields of the Record as kept lack the payload's fields, Payload and
	// findings. It keeps no tables: Tables is empty, Len counts.
	Lazy bool
	// Yield, when set, hands each decoded frame's record to a host at
	// once, unnumbered, with the Stamp of the chunk that completed it
	// (outputs.md "Ordering": session.Index numbers the records of both
	// protocols by arrival). The host numbers it with Numbered, in
	// arrival order; the session then keeps no records of its own (the
	// host does) and holds none back: the host asks Holding instead.
	Yield func(r *Record, at Stamp)
}

// ConnFinding is a connection-level finding (outputs.md `tables --json`
// "findings", decode.ConnFinding): N is the message that caused it, 0 for
// none. Info marks a finding that says how the connection was read, not
// that anything is wrong with it: the classification of a connection
// whose frames are all plain. It is listed with the others but does not
// make the connection's worst severity (issue 30: every clean ULinkRPC
// connection read "note").
type ConnFinding = decode.ConnFinding

// Event is a connection event: the HTTP upgrade, a WebSocket ping, pong or
// close, the KCP handshake (outputs.md: events are not records).
type Event struct {
	Kind  string // "upgrade", "ping", "pong", "close", "ukcp", "uack", "close-frame"
	Dir   dissect.Dir
	Frame int
	Time  time.Time
	Text  string // what to show: the request line, close code and reason, conv
}

// reqKey is a Request's direction and request_id as one integer: the
// pairing map's key (a padded struct would hash byte by byte).
type reqKey uint64

func keyOf(d dissect.Dir, id uint32) reqKey { return reqKey(d)<<32 | reqKey(id) }

func (k reqKey) dir() dissect.Dir { return dissect.Dir(k >> 32) }
func (k reqKey) id() uint32       { return uint32(k) }

type pingKey struct {
	dir   dissect.Dir
	ticks int64
}

// side is one direction's decoding state.
type side struct {
	stream  *framer            // TCP and WebSocket
	ws      *websocket.Decoder // WebSocket
	kcp     *kcp.Reassembler   // KCP
	convs   map[uint32]*framer // KCP: a frame stream per conv
	tooMany bool               // a conv was refused a stream
	wsMarks []mark             // WebSocket: which chunk brought the bytes ws holds (wsheld.go)
	// The chunk (WebSocket) or datagram (KCP) being fed when it is one
	// run of the capture file, and a chunk's stream offset (wsData,
	// kcpMessage).
	wsChunk []byte
	wsFrom  int64
	// KCP: which datagram brought the segments kcp holds (kcpheld.go), and
	// the count of marks past which markKCP forgets those of datagrams
	// whose segments are all let go.
	kcpMarks []kcpMark
	kcpKeep  int
}

// Session decodes one ULinkRPC connection. Feed it in capture order; it is
// not safe for concurrent use.
type Session struct {
	conn  dissect.Conn
	cfg   Config
	sides [2]side
	types ulinkrpc.DTOs
	next  int
	ended bool
	stamp Stamp
	dir   dissect.Dir

	records  []*Record
	tally    Tally
	open     openList // open Requests and Pings, by n
	reqs     reqPairs
	pings    dissect.Pairs[pingKey]
	findings []ConnFinding
	events   []Event
	kcpConvs map[uint32]bool
	queue    []*Record
	free     []*Record // light records handed back (Recycle)
	finished bool
	classes  classTally // the transform classifications said once (classnote.go)
	compact  bool       // KeepCompact (compact.go)
	// found is compactPayload's scratch, ones the lists of one finding
	// it shared lately (oneFinding), onesNext the one it replaces next.
	found    []dissect.Finding
	ones     [4][]dissect.Finding
	onesNext uint8
	// lazies are the payload configurations of a Lazy session's records,
	// one per payload type (lazy.go).
	lazies map[*ulinkrpc.DTO]*lazyPayload
	// lazyUntyped is the configuration of payloads without a type,
	// beside the map of the others.
	lazyUntyped *lazyPayload
	// env is the envelope frame decoded last, until its record envOf is
	// numbered (its Record.env points at it meanwhile).
	env   ulinkrpc.Envelope
	envOf *Record
}

// New returns a Session for conn.
func New(conn dissect.Conn, cfg Config) *Session {
	s := &Session{conn: conn, cfg: cfg, kcpConvs: make(map[uint32]bool)}
	s.reqs.Max, s.pings.Max = cfg.MaxOpen, cfg.MaxOpen
	if cfg.Contracts != nil {
		s.types = cfg.Contracts.DTOs()
	}
	for d := range s.sides {
		sd := &s.sides[d]
		switch cfg.Transport {
		case KCP:
			sd.kcp = ulinkrpc.NewReassembler(cfg.KCP, cfg.Budget)
			sd.convs = make(map[uint32]*framer)
		case WebSocket:
			masked := dissect.Dir(d) == dissect.C2S
			sd.ws = ulinkrpc.NewWebSocket(ulinkrpc.WSConfig{Upgrade: !cfg.MidStream, MidStream: cfg.MidStream, Masked: &masked})
			sd.stream = s.newStream()
		default:
			sd.stream = s.newStream()
		}
	}
	return s
}

func (s *Session) newStream() *framer {
	return newFramer(ulinkrpc.StreamConfig{MaxLen: s.cfg.MaxFrame, Budget: s.cfg.Budget}, s.cfg.MidStream)
}

// yield returns the frame callback of direction d.
func (s *Session) yield(d dissect.Dir) func([]byte, ulinkrpc.FrameInfo, Stamp) {
	return func(b []byte, info ulinkrpc.FrameInfo, at Stamp) {
		// A frame yielded elsewhere than from the chunk it is fed in
		// (held, ended, abandoned, inside WebSocket or KCP) has no file
		// offset of its own: only yieldIn's frames do.
		at.File, at.InFile, at.Masked = 0, false, false
		s.frame(d, b, info, at)
	}
}

// yieldIn is yield for a chunk of n bytes at stream offset start that is
// one run of the capture file at file: a frame wholly inside it gets its
// own file offset (Stamp.File, Record's file), another none.
func (s *Session) yieldIn(d dissect.Dir, start int64, n int, file int64) func([]byte, ulinkrpc.FrameInfo, Stamp) {
	return func(b []byte, info ulinkrpc.FrameInfo, at Stamp) {
		from := info.Offset + 4
		at.InFile = from >= start && from+int64(len(b)) <= start+int64(n)
		at.File, at.Masked = 0, false
		if at.InFile {
			at.File = file + from - start
		}
		s.frame(d, b, info, at)
	}
}

// Conn is the session's connection.
func (s *Session) Conn() dissect.Conn { return s.conn }

// Transport is the session's transport.
func (s *Session) Transport() Transport { return s.cfg.Transport }

// Records are the records released so far, in number order (none with a
// host, Config.Yield: the host keeps them). A record may
// still change while the session runs: a Request gains its pair when the
// Response arrives. While a direction resynchronises, decoded frames wait
// unnumbered (at most 4096), so that numbers and pairing follow the packets
// that completed the frames; End releases everything.
func (s *Session) Records() []*Record { return s.records }

// Findings are the connection findings so far.
func (s *Session) Findings() []ConnFinding { return s.findings }

// Events are the connection events so far.
func (s *Session) Events() []Event { return s.events }

// Bytes feeds a chunk of direction d's TCP stream (TCP or WebSocket).
func (s *Session) Bytes(d dissect.Dir, chunk []byte, st Stamp) {
	defer s.release(false)
	if s.ended {
		return
	}
	s.stamp, s.dir = st, d
	sd := &s.sides[d&1]
	switch {
	case sd.ws != nil:
		s.feedWS(d, chunk, st)
		s.drain(d, sd.ws.Findings())
	case sd.stream != nil && st.InFile:
		// The stream offset of the chunk's first byte: those fed and lost
		// before it (Offset, while a frame is collected, is its header's).
		ss := sd.stream.st.Stats()
		sd.stream.feed(chunk, st, s.yieldIn(d, ss.Fed+ss.Lost, len(chunk), st.File))
	case sd.stream != nil:
		sd.stream.feed(chunk, st, s.yield(d))
	default:
		s.finding(d, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Text: "ulinkrpc: stream bytes on a KCP session ignored", Bit: -1}, 0)
		return
	}
	s.drain(d, sd.stream.st.Findings())
}

// Gap says n bytes of direction d's TCP stream were lost.
func (s *Session) Gap(d dissect.Dir, n int, st Stamp) {
	defer s.release(false)
	if s.ended {
		return
	}
	s.stamp, s.dir = st, d
	sd := &s.sides[d&1]
	switch {
	case sd.ws != nil:
		sd.ws.Gap(n, func(ev websocket.Event) { s.wsEvent(d, ev) })
		sd.markWS(st)
		s.drain(d, sd.ws.Findings())
		s.drain(d, sd.stream.st.Findings())
	case sd.stream != nil:
		sd.stream.st.Gap(n)
		s.drain(d, sd.stream.st.Findings())
	}
}

// Datagram feeds one UDP datagram of direction d (KCP).
func (s *Session) Datagram(d dissect.Dir, b []byte, st Stamp) {
	defer s.release(false)
	if s.ended {
		return
	}
	s.stamp, s.dir = st, d
	sd := &s.sides[d&1]
	if sd.kcp == nil {
		s.finding(d, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Text: "ulinkrpc: a datagram on a stream session ignored", Bit: -1}, 0)
		return
	}
	if h, ok := ulinkrpc.ParseHandshake(b); ok {
		kind, text := "ukcp", fmt.Sprintf("KCP handshake UKCP conv %d", h.Conv)
		if h.Ack {
			kind, text = "uack", fmt.Sprintf("KCP handshake UACK conv %d session port %d", h.Conv, h.SessionPort)
		}
		s.event(d, kind, text)
		if !s.kcpConvs[h.Conv] && len(s.kcpConvs) < s.maxConvs() {
			// A repeated UKCP is answered again (ulinkrpc.md 2.3); only
			// the first starts the conversation at sn 0.
			s.kcpConvs[h.Conv] = true
			s.sides[0].kcp.Start(h.Conv)
			s.sides[1].kcp.Start(h.Conv)
		}
		return
	}
	if st.InFile {
		sd.wsChunk = b
	}
	_ = sd.kcp.Datagram(b, func(m kcp.Message) { s.kcpMessage(d, m) })
	sd.wsChunk = nil
	sd.markKCP(st)
	s.drain(d, sd.kcp.Findings())
}

func (s *Session) maxConvs() int {
	if s.cfg.MaxConvs > 0 {
		return s.cfg.MaxConvs
	}
	return 256
}

func (s *Session) kcpMessage(d dissect.Dir, m kcp.Message) {
	sd := &s.sides[d&1]
	st := sd.convs[m.Conv]
	if st == nil {
		if len(sd.convs) >= s.maxConvs() {
			if !sd.tooMany {
				sd.tooMany = true
				s.finding(d, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence,
					Text: fmt.Sprintf("kcp: more than %d conversations in %s; the messages of the others are not decoded", s.maxConvs(), d), Bit: -1}, 0)
			}
			return
		}
		st = newFramer(ulinkrpc.StreamConfig{MaxLen: s.cfg.MaxFrame, Budget: s.cfg.Budget}, !s.kcpConvs[m.Conv] && s.cfg.MidStream)
		sd.convs[m.Conv] = st
	}
	if m.Gap {
		st.st.Gap(0)
	}
	yield := s.yield(d)
	// A message of one segment of the datagram being fed, when that is
	// one run of the capture file, gives its frames their file offsets,
	// as a TCP chunk does (issue 28: a full index then points at them).
	if b := sd.wsChunk; b != nil && m.Fragments == 1 && m.Datagram == sd.kcp.Datagrams() {
		if p := segmentData(b, m); p >= 0 {
			ss := st.st.Stats()
			yield = s.yieldIn(d, ss.Fed+ss.Lost, len(m.Data), s.stamp.File+int64(p))
		}
	}
	st.feed(m.Data, s.kcpStamp(sd, m.Datagram), yield)
	s.drain(d, st.st.Findings())
}

// segmentData is where in datagram b the data of m, a message of one
// segment, lies: a PUSH of its conversation and sn there with its bytes;
// -1 for none.
func segmentData(b []byte, m kcp.Message) int {
	for off := 0; off < len(b); {
		seg, n, err := kcp.ParseSegment(b[off:])
		if err != nil {
			return -1
		}
		if seg.Cmd == kcp.CmdPush && seg.Conv == m.Conv && seg.Sn == m.FirstSn && seg.Frg == 0 && bytes.Equal(seg.Data, m.Data) {
			return off + n - len(seg.Data)
		}
		off += n
	}
	return -1
}

func (s *Session) wsEvent(d dissect.Dir, ev websocket.Event) {
	sd := &s.sides[d&1]
	switch ev.Kind {
	case websocket.EventData:
		s.wsData(d, ev)
	case websocket.EventGap:
		sd.stream.st.Gap(ev.Gap)
	case websocket.EventUpgrade:
		u := ev.Upgrade
		text := fmt.Sprintf("websocket: HTTP %d %s", u.Status, u.Reason)
		if u.Request {
			text = fmt.Sprintf("websocket: HTTP %s %s", u.Method, u.Target)
		}
		s.event(d, "upgrade", text)
		if !u.Request && !u.WebSocket() {
			s.finding(d, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol,
				Text: fmt.Sprintf("websocket: the server refused the upgrade: HTTP %d %s", u.Status, u.Reason), Bit: -1}, 0)
		}
	case websocket.EventPing:
		s.event(d, "ping", fmt.Sprintf("websocket ping, %d bytes", len(ev.Data)))
	case websocket.EventPong:
		s.event(d, "pong", fmt.Sprintf("websocket pong, %d bytes", len(ev.Data)))
	case websocket.EventClose:
		// The decoder's own finding reports the close (ulinkrpc.md 7).
		s.event(d, "close", fmt.Sprintf("websocket close: code %d reason %q", ev.Code, ev.Reason))
	}
}

func (s *Session) event(d dissect.Dir, kind, text string) {
	s.events = append(s.events, Event{Kind: kind, Dir: d, Frame: s.stamp.Frame, Time: s.stamp.Time, Text: text})
}

func (s *Session) finding(d dissect.Dir, f dissect.Finding, n int) {
	s.findings = append(s.findings, ConnFinding{Finding: f, N: n, Dir: d, Frame: s.stamp.Frame, Time: s.stamp.Time})
}

func (s *Session) drain(d dissect.Dir, fs []dissect.Finding) {
	for _, f := range fs {
		s.finding(d, f, 0)
	}
}

// number gives the next record number.
func (s *Session) number() int {
	if s.cfg.Number != nil {
		return s.cfg.Number()
	}
	s.next++
	return s.next
}

// End ends the connection at st: both directions' streams are flushed (a
// resynchronising stream gets one last chance), unanswered Requests become
// pending with a note each. Feeding after End is ignored.
func (s *Session) End(st Stamp) {
	if s.ended {
		return
	}
	s.stamp = st
	for d := range s.sides {
		dir := dissect.Dir(d)
		s.dir = dir
		sd := &s.sides[d]
		if sd.ws != nil {
			s.drain(dir, sd.ws.End(func(ev websocket.Event) { s.wsEvent(dir, ev) }))
			sd.markWS(st)
		}
		if sd.stream != nil {
			s.drain(dir, sd.stream.end(st, s.yield(dir)))
		}
		if sd.kcp != nil {
			s.drain(dir, sd.kcp.End(func(m kcp.Message) { s.kcpMessage(dir, m) }))
			sd.markKCP(st)
			for _, conv := range sortedConvs(sd.convs) {
				s.drain(dir, sd.convs[conv].end(st, s.yield(dir)))
			}
		}
	}
	s.release(true)
	s.ended = true
	if s.cfg.Yield == nil {
		s.Finish()
	}
}

// Finish notes the Requests still unanswered as pending and the askers
// forgotten past Config.MaxOpen, once. End calls it, unless the session
// has a host (Config.Yield): the host calls it once every record it was
// handed is numbered, so that none is missed.
func (s *Session) Finish() {
	if s.finished {
		return
	}
	s.finished = true
	s.sayClasses()
	for _, p := range s.reqs.Pending() {
		text := fmt.Sprintf("request #%d pending at the end of the capture: never answered", p.Key.id())
		if name, ok := s.askName(p.N); ok {
			text = fmt.Sprintf("request #%d %s pending at the end of the capture: never answered", p.Key.id(), name)
		}
		s.finding(p.Key.dir(), dissect.Finding{Severity: dissect.Note, Group: dissect.Sequence, Text: text, Bit: -1}, p.N)
	}
	if s.reqs.Dropped > 0 || s.pings.Dropped > 0 {
		s.finding(0, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence,
			Text: fmt.Sprintf("pairing: %d requests and %d pings forgotten unanswered past the bound of open askers", s.reqs.Dropped, s.pings.Dropped), Bit: -1}, 0)
	}
}

// Pending lists the Requests still unanswered, by n.
func (s *Session) Pending() []*Record {
	var out []*Record
	for _, p := range s.reqs.Pending() {
		if r := s.open.find(p.N); r != nil {
			out = append(out, r)
		}
	}
	return out
}

func sortedConvs(m map[uint32]*framer) []uint32 {
	out := make([]uint32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// KCPCounts returns the KCP counters of conv in direction d (ACK, WASK and
// WINS segments, duplicates, messages, missing sn).
func (s *Session) KCPCounts(d dissect.Dir, conv uint32) kcp.Counts {
	if k := s.sides[d&1].kcp; k != nil {
		return k.Counts(conv)
	}
	return kcp.Counts{}
}
