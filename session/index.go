package session

import (
	"strconv"
	"sync"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/unturned"
)

// ConnInfo summarises one connection for lists: who the peers are, what
// each side runs and how much crossed (the TUI's connections pane, tables
// JSON "usmn" and "messages").
type ConnInfo struct {
	Conn       dissect.Conn
	Rule       Rule // which rule decided the server side (from capture)
	First      time.Time
	Last       time.Time
	Messages   int
	Bytes      [2]int64 // indexed by Dir
	USMNClient bool     // client's marker seen
	USMNServer bool     // server's marker seen
	Widened    [2]bool  // per Dir
	WidenedAt  [2]int   // message number from which the direction is widened, 0 if never
	Inferred   bool     // widening was inferred, not seen in a handshake
	Worst      dissect.Severity
	HasFinding bool
	Findings   []dissect.Finding // connection-level findings (gaps, resync, inference, UDP notes)
	Suppressed int               // findings past Limits.MaxFindings: counted, not kept

	Proto string // a hosted protocol's connection (OpenConn): its name; "" for Unturned
	Label string // what a list of connections shows of a hosted one: its protocol and how it is carried ("ulinkrpc tcp")
	// EmptyTables are a hosted connection's protocol tables with nothing
	// counted when its protocol keeps tables of its own (decode.Tallied:
	// ULinkRPC's `rpc` table), nil otherwise (ProtoTables).
	EmptyTables decode.Tables

	// Host and Capture name the capture of several the connection was
	// first seen in (origins.go); empty for one capture.
	Host, Capture string
}

// Index holds the decoded messages and listener tables of one capture. It
// is fed by one goroutine (internal/pipeline) and may be read by
// others at the same time (the TUI), so every method locks.
//
// Messages are numbered from 1 in the order in which their last byte arrived
// (outputs.md "n"), across the whole capture: while a direction
// resynchronises, its framer holds bytes that may end messages later, so
// every message that arrives after them waits in a queue until they are
// framed or skipped (order.go), and is numbered late but in order.
//
// # Storage
//
// Each message keeps a compact index record (36 bytes, in fixed blocks)
// with the State it was decoded in; Message and Detail decode it again on
// demand, so fields and spans are never stored. A message that lies wholly
// inside one contiguous run of the capture file (DataAt with an offset, and
// a Store set) is recorded by its file offset and read back through the
// Store; any other message (split across segments, reassembled during a
// resynchronisation, or from a source without a file: stdin, live) keeps
// its bytes in an append-only arena. Message.Data is the caller's own copy.
//
// Limits.MaxArena bounds the arena (live capture, which never ends, sets
// it): once its blocks hold more, the oldest blocks are dropped whole, a
// ring of fixed-size blocks with no copying. A message whose bytes were
// dropped keeps its index record, so it still lists (kind, listener,
// severity, time); Message and Detail return it without bytes or fields
// and with one error finding saying so. Blocks holding messages still
// held for an inference are never dropped, as the inference decodes them
// again. With the bytes in a Store (live --write) nothing needs the arena.
//
// Listener tables keep no per-message operations: Tables(conn, n) decodes
// the connection's USMN messages after the nearest checkpoint again and
// replays them (wire.md 4.5).
//
// # Widening and inference
//
// Per connection and direction the Index tracks the State of wire.md 4.2
// and 4.3: the markers of the two detection messages (both seen ⇒ both
// directions widened from their next message on) and the
// Serverside_ID_Bit_Count in force (the server's marker, then each S→C
// definition). A direction whose first message is not its detection message
// at stream offset 0 was joined mid-connection: its messages are held, and
// with them every later message of the connection, until Limits.InferWindow
// messages of it arrived (or Close, or Finish); then each held message is
// decoded under both widths, the more plausible reading wins (vanilla on a
// tie), an Inference finding records the scores and the confidence, and the
// held messages are decoded again in the chosen State. Held messages are not
// Settled. A connection joined after the server's marker holds its messages
// on until the Serverside_ID_Bit_Count is decided too (unturned/track, wire.md
// 4.6); meanwhile their server IDs show as undecided.
//
// # Tables
//
// Each USMN message becomes one table operation, applied in message order
// (wire.md 4.5). Tables(conn, n) replays the operations after the nearest
// checkpoint (one every Limits.CheckpointEvery operations, or more sparsely
// while the tables are large). Listener.Resolved says whether the listener
// was known when the message was decoded; a reference resolved later by
// replay keeps false in its own record and counts in its listener.
type Index struct {
	mu sync.RWMutex
	// batched: the feeder holds mu for a Batch (written and read only by
	// the feeder's goroutine, in lock, unlock and the batch calls).
	batched bool
	profile *unturned.Profile
	limits  unturned.Limits

	store Store
	// arena holds the bytes of messages not in the store, in blocks that
	// never move; with Limits.MaxArena the oldest are dropped (set to nil)
	// so that at most arenaHeld ≤ MaxArena bytes stay.
	arena      [][]byte
	arenaHeld  int64              // capacity of the blocks not dropped
	arenaFirst int                // index of the oldest block not dropped
	recs       []recBlock         // blocks of recChunk records
	slab       slab               // the blocks of a large full index (slab.go)
	big        map[int32][2]int64 // file or arena offset and time of records with recBig
	nrec       int
	inFile     int                         // records with recFile
	scratch    []byte                      // the feeder's buffer for bytes read back from the store
	tallyBuf   []byte                      // TallyOf's buffer for bytes read back from the store
	extra      map[int32][]dissect.Finding // findings the capture adds to message n (tables, inference)
	conns      []*connection
	byConn     map[dissect.Conn]uint32    // Unturned connections; hosted ones in hostedByConn (hosted.go)
	recent     [connCacheSize]*connection // see conn
	findings   []dissect.Finding
	suppressed int              // capture findings past Limits.MaxFindings
	capWorst   dissect.Severity // worst severity of the capture findings, suppressed ones too
	capHas     bool
	ver        uint64 // counts changes to connection summaries (ConnectionsSince)
	// un is what the natively decoded connections share (unturned.go),
	// made with the first.
	un      nativeCapture
	types   []string
	typeIdx map[string]uint32
	// typeVers are the distinct (type, version) pairs records name, so a
	// record holds one index for both.
	typeVers []typeVer
	tvIdx    map[typeVer]uint32
	tvRecent [64]tvSeen // typeVerOf's cache, by a cheap hash of the pair

	dec unturned.Decoded // the feeder's scratch

	stream *streamState // stream mode (stream.go), nil for a full index

	// Numbering by arrival (order.go): seq counts events; messages wait in
	// pending while a direction in blockers resynchronises.
	seq          uint64
	cur          uint64   // the current event's seq: seq, or one reserved (At)
	next         uint64   // a seq reserved for the next event (At), 0 for none
	holds        []uint64 // first seqs of the events a caller holds (Hold)
	expired      uint64   // seqs reserved up to this one were given up (Idle)
	pending      pendingQueue
	pins         uint64
	pendingBytes int
	blockers     []*connection
	// Hosted records by record index (hosted.go); hostedAsks are the askers a
	// Stream waits on.
	hostedRecs hostedStore
	// noSlim keeps every hosted record in hostedRecs (hostedslim.go; the
	// tests' reference).
	noSlim       bool
	hostedAsks   []hostedAsk
	askArr       []hostedAsk // the array hostedAsks lies in, from its start (pushAsk)
	hostedByConn map[dissect.Conn]uint32
	schemas      *schema.Set // payload schemas (schema.md); nil: none (payload.go)
	noLate       bool        // SetLateSchemas(false): no payload decode of references resolved later
	origin       []byte      // SetOrigin: the records' "host" and "capture" keys, encoded
	multi        *multi      // several captures (origins.go), nil for one

	// hostedWait is the envelope bytes of the records in hostedRecs a Stream
	// has not handed out; hostedWaitMax the ULinkRPC budget's Max
	// (hostedWaitOver).
	hostedWait, hostedWaitMax int
}

// NewIndex returns an empty Index decoding with profile p.
func NewIndex(p *unturned.Profile) *Index {
	return NewIndexLimits(p, unturned.Limits{})
}

// NewIndexLimits returns an empty Index with the given limits; zero
// fields take DefaultLimits.
func NewIndexLimits(p *unturned.Profile, lim unturned.Limits) *Index {
	if p == nil {
		p = unturned.Default()
	}
	return &Index{
		profile: p,
		limits:  lim.WithDefaults(),
		extra:   map[int32][]dissect.Finding{},
		byConn:  map[dissect.Conn]uint32{},
		typeIdx: map[string]uint32{},
		tvIdx:   map[typeVer]uint32{},
	}
}

// Profile returns the profile the capture is decoded with.
func (c *Index) Profile() *unturned.Profile { return c.profile }

// ProfileName is the name of the profile the capture is decoded with, ""
// for none (the TUI's status bar).
func (c *Index) ProfileName() string {
	if c.profile == nil {
		return ""
	}
	return c.profile.Name
}

// connCacheSize is the number of slots of Index.recent.
const connCacheSize = 256

// conn returns the state of conn, creating it on first sight. A small
// direct-mapped cache by port pair spares most lookups of the 56-byte key
// in byConn (one per Data event).
func (c *Index) conn(conn dissect.Conn, rule Rule) *connection {
	slot := &c.recent[(uint(conn.Client.Port())*31^uint(conn.Server.Port()))%connCacheSize]
	if *slot != nil && (*slot).info.Conn == conn {
		return *slot
	}
	if i, ok := c.byConn[conn]; ok {
		*slot = c.conns[i]
		return *slot
	}
	cn := c.newNative(uint32(len(c.conns)), conn, rule)
	c.newConnOrigin(cn)
	c.byConn[conn] = cn.idx
	c.conns = append(c.conns, cn)
	*slot = cn
	return cn
}

// Rule says how the server side of a connection was chosen, and so whether
// its streams are known to start at a message boundary.
type Rule uint8

const (
	RuleUnknown   Rule = iota // not said: treated as Data without Open is
	RuleSYN                   // the handshake was captured: both streams start at a message boundary
	RulePort                  // joined mid-connection; the server is the side on the game port
	RuleLowerPort             // joined mid-connection; the server is the side with the lower port
)

var ruleNames = [...]string{RuleUnknown: "", RuleSYN: "syn", RulePort: "port", RuleLowerPort: "lower-port"}

func (r Rule) String() string { return enum.Name(ruleNames[:], r) }

// Open announces a connection; rule says how its server side was chosen.
// Under any rule but RuleSYN or RuleUnknown the flow was joined
// mid-connection and its framers resynchronise from the first byte.
func (c *Index) Open(conn dissect.Conn, rule Rule, t time.Time, frame int) {
	c.lock()
	defer c.unlock()
	cn := c.conn(conn, rule)
	c.touch(cn)
	if cn.info.Rule == RuleUnknown {
		cn.info.Rule = rule
	}
	// Only a captured SYN proves both streams start at a message boundary
	// (wire.md 2); a flow first seen mid-connection may start inside a
	// message or its length header, so its framers resynchronise. A
	// direction that already has bytes keeps the framing it has.
	if rule != RuleSYN && rule != RuleUnknown {
		cn.native.MidStream()
	}
	if cn.info.First.IsZero() {
		cn.info.First = t
	}
}

// Data feeds reassembled bytes of one direction of a connection; their
// messages keep their bytes in memory.
func (c *Index) Data(conn dissect.Conn, dir dissect.Dir, data []byte, t time.Time, frame int) {
	c.DataAt(conn, dir, data, t, frame, -1)
}

// DataAt is Data for bytes that are one contiguous run of the capture file
// starting at offset (capture.Event.Offset), or -1 when they are not. With a
// Store set, a message lying wholly inside data is recorded by its file
// offset instead of being copied.
func (c *Index) DataAt(conn dissect.Conn, dir dissect.Dir, data []byte, t time.Time, frame int, offset int64) {
	if dir > dissect.S2C {
		return
	}
	c.lock()
	defer c.unlock()
	c.dataOn(c.conn(conn, RuleUnknown), dir, data, t, frame, offset)
}

// ConnRef is a connection of an Index, for a feeder that looks each of its
// flows up once (internal/pipeline's router keeps one per flow): DataOn
// with it skips DataAt's lookup by the 64-byte Conn (issue 18). The zero
// ConnRef is none.
type ConnRef struct{ cn *connection }

// Valid reports whether r is a connection's.
func (r ConnRef) Valid() bool { return r.cn != nil }

// Ref returns conn's ConnRef, creating the connection as DataAt would.
func (c *Index) Ref(conn dissect.Conn) ConnRef {
	c.lock()
	defer c.unlock()
	return ConnRef{c.conn(conn, RuleUnknown)}
}

// DataOn is DataAt for the connection of r (Ref).
func (c *Index) DataOn(r ConnRef, dir dissect.Dir, data []byte, t time.Time, frame int, offset int64) {
	if dir > dissect.S2C || r.cn == nil {
		return
	}
	c.lock()
	defer c.unlock()
	c.dataOn(r.cn, dir, data, t, frame, offset)
}

// dataOn is DataAt for cn, with the lock held.
func (c *Index) dataOn(cn *connection, dir dissect.Dir, data []byte, t time.Time, frame int, offset int64) {
	c.touch(cn)
	c.seen(cn, t)
	// A direct call on the connection's Unturned state, as this is every
	// chunk's path (unturned.go); a connection that did not block and
	// whose fed direction is synchronised still does not (order.go block).
	if c.store == nil {
		offset = -1
	}
	if !unturnedOf(cn).Chunk(dir, data, t, frame, c.advance(), offset) || cn.blocking {
		c.block(cn)
	}
	c.release()
}

func (c *Index) seen(cn *connection, t time.Time) {
	if cn.info.First.IsZero() {
		cn.info.First = t
	}
	if t.After(cn.info.Last) {
		cn.info.Last = t
	}
}

func (c *Index) connFindings(cn *connection, fs []dissect.Finding) {
	for _, f := range fs {
		c.connFinding(cn, f)
	}
}

func (c *Index) connFinding(cn *connection, f dissect.Finding) {
	if !cn.info.HasFinding || f.Severity > cn.info.Worst {
		cn.info.Worst, cn.info.HasFinding = f.Severity, true
	}
	cn.info.Findings = c.keepFinding(cn.info.Findings, &cn.info.Suppressed, f, "connection")
}

// keepFinding appends f to fs unless fs holds Limits.MaxFindings already;
// then f is counted in *suppressed instead. The last slot says, once, that
// the limit was reached, so a hostile capture that makes a finding per
// packet costs a counter, not memory (SECURITY.md "Bounds").
func (c *Index) keepFinding(fs []dissect.Finding, suppressed *int, f dissect.Finding, of string) []dissect.Finding {
	limit := c.limits.MaxFindings
	switch {
	case len(fs) < limit-1:
		return append(fs, f)
	case len(fs) == limit-1:
		*suppressed++
		return append(fs, dissect.Finding{Severity: dissect.Note, Group: dissect.Undecoded, Bit: -1,
			Text: "findings limit of " + strconv.Itoa(limit) + " reached for this " + of + ": further findings are counted, not kept (max_findings)"})
	}
	*suppressed++
	return fs
}

// Gap reports lost bytes in one direction; framing resynchronises after it.
func (c *Index) Gap(conn dissect.Conn, dir dissect.Dir, lost int, t time.Time, frame int) {
	if dir > dissect.S2C {
		return
	}
	c.lock()
	defer c.unlock()
	cn := c.conn(conn, RuleUnknown)
	c.touch(cn)
	c.seen(cn, t)
	cn.native.Gap(dir, lost, decode.Stamp{Frame: frame, Time: t})
	c.block(cn)
	c.release()
}

// Close reports the end of a connection (FIN or RST): its framers end and
// a pending inference settles.
func (c *Index) Close(conn dissect.Conn, t time.Time, frame int) {
	c.lock()
	defer c.unlock()
	i, ok := c.byConn[conn]
	if !ok {
		return
	}
	cn := c.conns[i]
	c.touch(cn)
	c.seen(cn, t)
	c.endNative(cn)
	c.release()
	cn.native.Settle()
}

// endNative ends a natively decoded connection's framers: bytes still
// awaiting resynchronisation (a late resync near the end of the stream)
// get a last chance to frame, and their messages take their place in
// arrival order.
func (c *Index) endNative(cn *connection) {
	cn.native.End(decode.Stamp{Seq: c.cur})
	c.block(cn)
}

// Note attaches a finding to a connection, or to the capture when conn is
// the zero Conn.
func (c *Index) Note(conn dissect.Conn, f dissect.Finding) {
	c.lock()
	defer c.unlock()
	if conn == (dissect.Conn{}) {
		c.captureFinding(f)
		return
	}
	cn := c.conn(conn, RuleUnknown)
	c.touch(cn)
	c.connFinding(cn, f)
}

// Finish ends the input: pending inferences settle and partial messages
// become findings.
func (c *Index) Finish() {
	c.lock()
	defer c.unlock()
	c.hostedEnd()
	for _, cn := range c.conns {
		c.touch(cn)
		if cn.native != nil {
			c.endNative(cn)
		}
	}
	c.release()
	for _, cn := range c.conns {
		if cn.native != nil {
			cn.native.Settle()
			cn.native.Finish() // no asker can be answered any more (pairs.go)
		}
	}
	c.hostedFinish()
	if c.stream != nil {
		c.streamEnd()
	}
}

// Len returns the number of messages decoded so far; after a Stream's
// Cut, AsOf (stream.go).
func (c *Index) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.Cut() {
		return c.stream.AsOf
	}
	return c.nrec
}

// Settled returns how many messages (1..Settled) are final: later input
// cannot change how they decode. Only messages held for an inference (the
// enum width, the ID bit count) are not final, and a held message is always later than every
// settled one, so Settled never decreases.
func (c *Index) Settled() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	settled := c.nrec
	late := c.schemas != nil && !c.noLate
	for _, cn := range c.conns {
		if cn.native == nil {
			continue
		}
		if held := cn.native.Held(); len(held) > 0 && int(held[0]) < settled {
			settled = int(held[0])
		}
		settled = c.pairSettled(cn, settled) // an asker that may still be answered (pairs.go)
		// With payload schemas, a reference still waiting for its ID is
		// not final: once the ID is defined its payload decodes with the
		// listener's schema (issue 14 point 2). It waits at most
		// lateHold messages; past them it shows as it is.
		if first, ok := cn.native.FirstUnresolved(); late && ok && c.nrec-first < lateHold && first-1 < settled {
			settled = first - 1
		}
	}
	return settled
}

// lateHold is how many messages a consumer that prints each message once
// (dump) waits for an unresolved reference to resolve before it prints it
// undecoded: for a full Index memory is not at stake (it keeps every
// message), only how late output may come; a streaming one keeps the bytes
// of at most this many messages more (stream.go lateBound).
const lateHold = 4096

// record numbers and records f, a framed message of a natively decoded
// connection (its bytes at its file offset when At.InFile, else kept in
// the arena), and returns its record index; waits says the connection
// will hold it for an inference (unturned.go's number: the connection
// then decodes it now or holds it).
func (c *Index) record(cn *connection, f *decode.FramedMsg, waits bool) int32 {
	dir, msg := f.Dir, f.Msg
	var (
		flags recFlags
		at    int64
	)
	if f.At.InFile {
		flags, at = recFile, f.At.File
		c.inFile++
	} else if !c.streamNow(waits) {
		at = c.keep(msg)
	} // else handed out at its commit, from msg: never read back
	if c.stream != nil {
		c.streamNumber(c.nrec + 1)
	}
	i, r := c.add(flags, at, f.At.Time.UnixNano())
	r.frame, r.length, r.conn, r.dir = int32(f.At.Frame), uint16(len(msg)), cn.idx, dir
	c.recordSight(cn, i, dir, f.End)
	cn.info.Messages++
	if c.stream == nil {
		if c.nrec > slabFrom && cn.msgs.slab == nil {
			cn.msgs.slab = &c.slab // its next blocks from the slab
		}
		cn.msgs.append(i)
	}
	cn.info.Bytes[dir] += int64(len(msg)) + 2
	return i
}

// Connections returns the connections in the order they were first seen;
// after a Stream's Cut, those seen when message AsOf was numbered, as of
// AsOf (stream.go).
func (c *Index) Connections() []ConnInfo {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.Cut() {
		return c.cutConnections()
	}
	out := make([]ConnInfo, len(c.conns))
	for i, cn := range c.conns {
		out[i] = cn.info
		out[i].Findings = append([]dissect.Finding(nil), cn.info.Findings...)
	}
	return out
}

// Suppressed returns how many capture-wide findings were counted but not
// kept (Limits.MaxFindings).
func (c *Index) Suppressed() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.suppressed
}

// Findings returns the capture-wide findings.
func (c *Index) Findings() []dissect.Finding {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]dissect.Finding(nil), c.findings...)
}
