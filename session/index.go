package session

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
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
}

// record is the compact index entry of one message (36 bytes; a test keeps
// it there): where its bytes are (a capture file offset or an arena
// offset), when and where it came from, and the State it was decoded in, so
// that Message and Detail decode it again on demand. Fields a new decoding
// gives back (the enum value, its width) are not kept. Offset and time are
// 32-bit deltas from their block's bases (recBlock); the rare record whose
// delta does not fit keeps both in full in Index.big.
type record struct {
	off    uint32 // capture file offset (recFile) or arena offset of the message bytes, from the block's base
	time   uint32 // UnixNano from the block's base, in µs with recTimeUS
	frame  int32
	conn   uint32
	cid    uint32
	sid    uint32
	tv     uint32 // index+1 into Index.typeVers (listener type and version), 0 for none
	length uint16
	flags  recFlags
	dir    dissect.Dir
	kind   unturned.Kind
	idBits uint8
	worst  uint8 // highest severity + 1, 0 for none
}

type recFlags uint16

const (
	recWidened  recFlags = 1 << iota // decoded with a widened enum
	recIDKnown                       // State.IDKnown
	recHeld                          // waiting for an inference; not settled
	recListener                      // a USMN message: Listener is set
	recResolved                      // the listener was found in the tables
	recCID                           // cid valid
	recSID                           // sid valid
	recVersion                       // version valid
	recExtra                         // Index.extra has findings for it
	recFile                          // off is an offset in the Store, not in the arena
	recTimeUS                        // time counts microseconds
	recBig                           // off and time are in Index.big
)

// recBlock is one block of the index with the bases its records' offsets
// and times count from: the first file offset, arena offset and time of the
// block.
type recBlock struct {
	recs                 []record
	file0, arena0, time0 int64
	hasFile, hasArena    bool
}

// recChunk is how many records one block of the index holds. The index
// grows a block at a time, so a million messages never copy a giant slice
// (and never hold the old and the new copy at once).
const recChunk = 4096

// arenaChunk is the largest arena block. A message never straddles two
// blocks (a message is at most 65535 bytes), and blocks never move, so a
// message's bytes can be handed out without copying.
const arenaChunk = 1 << 20

// Store gives back the bytes of the capture file, by offset, when a message
// is shown again (io.ReaderAt's contract). The decoder does no IO itself:
// the caller that reads the capture from a file supplies it (SetStore), and
// messages that lie wholly inside one contiguous run of that file
// (DataAt's offset) are recorded by where they are instead of being copied.
// ReadAt may be called by several readers at once.
type Store interface {
	ReadAt(p []byte, off int64) (int, error)
}

// Index holds the decoded messages and listener tables of one capture. It
// is fed by one goroutine (the capture → decode wiring) and may be read by
// others at the same time (the TUI), so every method locks.
//
// Messages are numbered from 1 in the order in which their last byte arrived
// (outputs.md "n").
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
// Settled.
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
	mu      sync.RWMutex
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
	big        map[int32][2]int64 // file or arena offset and time of records with recBig
	nrec       int
	inFile     int                         // records with recFile
	scratch    []byte                      // the feeder's buffer for bytes read back from the store
	extra      map[int32][]dissect.Finding // findings the capture adds to message n (tables, inference)
	conns      []*connection
	byConn     map[dissect.Conn]uint32
	recent     [connCacheSize]*connection // see conn
	findings   []dissect.Finding
	types      []string
	typeIdx    map[string]uint32
	// typeVers are the distinct (type, version) pairs records name, so a
	// record holds one index for both.
	typeVers []typeVer
	tvIdx    map[typeVer]uint32

	dec unturned.Decoded // the feeder's scratch
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
	cn := newConnection(uint32(len(c.conns)), conn, rule, &c.limits)
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

func (r Rule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return "Unknown(" + strconv.Itoa(int(r)) + ")"
}

// Open announces a connection; rule says how its server side was chosen.
// Under any rule but RuleSYN or RuleUnknown the flow was joined
// mid-connection and its framers resynchronise from the first byte.
func (c *Index) Open(conn dissect.Conn, rule Rule, t time.Time, frame int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cn := c.conn(conn, rule)
	if cn.info.Rule == RuleUnknown {
		cn.info.Rule = rule
	}
	// Only a captured SYN proves both streams start at a message boundary
	// (wire.md 2); a flow first seen mid-connection may start inside a
	// message or its length header, so its framers resynchronise. A
	// direction that already has bytes keeps the framing it has.
	if rule != RuleSYN && rule != RuleUnknown {
		for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
			if !cn.fed[d] {
				cn.framer[d].StartUnsynced()
			}
		}
	}
	if cn.info.First.IsZero() {
		cn.info.First = t
	}
}

// SetStore tells the capture where DataAt's offsets point: the capture file
// the data is read from. Set it before the first DataAt.
func (c *Index) SetStore(s Store) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.store = s
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
	c.mu.Lock()
	defer c.mu.Unlock()
	cn := c.conn(conn, RuleUnknown)
	c.seen(cn, t)
	cn.fed[dir], cn.lastTime[dir], cn.lastFrame[dir] = true, t, frame
	fr := cn.framer[dir]
	if !fr.Synced() {
		cn.unsynced[dir] = append(cn.unsynced[dir], chunkMark{end: fr.Offset() + int64(len(data)), time: t, frame: frame})
	}
	if c.store == nil {
		offset = -1
	}
	start := fr.Offset() // stream offset of data[0]
	fr.Feed(data, func(msg []byte, info unturned.FrameInfo) {
		mt, mf := t, frame
		if len(cn.unsynced[dir]) > 0 {
			mt, mf = cn.stamp(dir, info.Offset+2+int64(len(msg)), t, frame)
		}
		at := int64(-1)
		// The framer hands out a message in place when it lies wholly in
		// the chunk; one it assembled in its own buffer is not in the file
		// as one run.
		if k := info.Offset + 2 - start; offset >= 0 && len(msg) > 0 && k >= 0 && k+int64(len(msg)) <= int64(len(data)) && &data[k] == &msg[0] {
			at = offset + k
		}
		c.message(cn, dir, msg, info, mt, mf, at)
	})
	if fr.Synced() {
		cn.unsynced[dir] = cn.unsynced[dir][:0]
	} else {
		// Marks of chunks whose bytes were all skipped can go.
		cn.stamp(dir, fr.Offset()-fr.Stats().Buffered+1, t, frame)
	}
	c.connFindings(cn, cn.framer[dir].Findings())
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
	cn.info.Findings = append(cn.info.Findings, f)
	if !cn.info.HasFinding || f.Severity > cn.info.Worst {
		cn.info.Worst, cn.info.HasFinding = f.Severity, true
	}
}

// Gap reports lost bytes in one direction; framing resynchronises after it.
func (c *Index) Gap(conn dissect.Conn, dir dissect.Dir, lost int, t time.Time, frame int) {
	if dir > dissect.S2C {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cn := c.conn(conn, RuleUnknown)
	c.seen(cn, t)
	cn.framer[dir].Gap(lost)
	c.connFinding(cn, dissect.Finding{Severity: dissect.Warn, Group: dissect.Sequence, Text: fmt.Sprintf("%s: %d bytes lost before frame %d; framing resynchronises", dir, lost, frame), Bit: -1})
	c.connFindings(cn, cn.framer[dir].Findings())
}

// Close reports the end of a connection (FIN or RST): its framers end and
// a pending inference settles.
func (c *Index) Close(conn dissect.Conn, t time.Time, frame int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i, ok := c.byConn[conn]
	if !ok {
		return
	}
	cn := c.conns[i]
	c.seen(cn, t)
	c.end(cn)
}

// end flushes the framers and settles the connection.
func (c *Index) end(cn *connection) {
	for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
		// End, not Flush: bytes still awaiting resynchronisation (a late
		// resync near the end of the stream) get a last chance to frame.
		c.connFindings(cn, cn.framer[d].End(func(msg []byte, info unturned.FrameInfo) {
			t, frame := cn.stamp(d, info.Offset+2+int64(len(msg)), cn.lastTime[d], cn.lastFrame[d])
			c.message(cn, d, msg, info, t, frame, -1)
		}))
		cn.unsynced[d] = cn.unsynced[d][:0]
		if cn.undecided[d] {
			c.decide(cn, d)
		}
	}
	c.commitHeld(cn)
}

// Note attaches a finding to a connection, or to the capture when conn is
// the zero Conn.
func (c *Index) Note(conn dissect.Conn, f dissect.Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if conn == (dissect.Conn{}) {
		c.findings = append(c.findings, f)
		return
	}
	c.connFinding(c.conn(conn, RuleUnknown), f)
}

// Finish ends the input: pending inferences settle and partial messages
// become findings.
func (c *Index) Finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cn := range c.conns {
		c.end(cn)
	}
}

// Len returns the number of messages decoded so far.
func (c *Index) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.nrec
}

// Placement returns how many messages are recorded by their offset in the
// Store and how many keep their bytes in memory (see Storage).
func (c *Index) Placement() (file, memory int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.inFile, c.nrec - c.inFile
}

// Settled returns how many messages (1..Settled) are final: later input
// cannot change how they decode. Only messages held for a widened-enum
// inference are not final, and a held message is always later than every
// settled one, so Settled never decreases.
func (c *Index) Settled() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	settled := c.nrec
	for _, cn := range c.conns {
		if len(cn.held) > 0 && int(cn.held[0]) < settled {
			settled = int(cn.held[0])
		}
	}
	return settled
}

// keep copies msg into the arena and returns its offset: the block index
// times arenaChunk plus the offset in the block. Blocks start small and
// double up to arenaChunk (or a quarter of Limits.MaxArena), so a small
// capture stays small.
func (c *Index) keep(msg []byte) int64 {
	last := len(c.arena) - 1
	if last < 0 || c.arena[last] == nil || len(c.arena[last])+len(msg) > cap(c.arena[last]) {
		size, largest := 4096, int64(arenaChunk)
		if m := c.limits.MaxArena; m > 0 {
			largest = max(min(largest, m/4), 4096)
		}
		if last >= 0 {
			size = int(min(2*int64(cap(c.arena[last])), largest))
		}
		size = max(size, len(msg))
		c.dropArena(int64(size))
		c.arena = append(c.arena, make([]byte, 0, size))
		c.arenaHeld += int64(size)
		last++
	}
	off := int64(last)*arenaChunk + int64(len(c.arena[last]))
	c.arena[last] = append(c.arena[last], msg...)
	return off
}

// dropArena drops the oldest arena blocks until a new block of size bytes
// fits under Limits.MaxArena, stopping at the first block that holds a
// message still held for an inference.
func (c *Index) dropArena(size int64) {
	m := c.limits.MaxArena
	if m <= 0 || c.arenaHeld+size <= m {
		return
	}
	pin := c.pinnedBlock()
	for c.arenaFirst < len(c.arena) && c.arenaFirst < pin && c.arenaHeld+size > m {
		c.arenaHeld -= int64(cap(c.arena[c.arenaFirst]))
		c.arena[c.arenaFirst] = nil
		c.arenaFirst++
	}
}

// pinnedBlock returns the oldest arena block holding a held message (one
// an inference will decode again), or len(c.arena) when there is none.
// Held messages are in record order, so the first in the arena of each
// connection is its oldest.
func (c *Index) pinnedBlock() int {
	pin := len(c.arena)
	for _, cn := range c.conns {
		for _, i := range cn.held {
			if c.rec(i).flags&recFile == 0 {
				off, _ := c.where(i)
				pin = min(pin, int(off/arenaChunk))
				break
			}
		}
	}
	return pin
}

// droppedError says that the arena bytes of a message were dropped
// (Limits.MaxArena).
type droppedError struct {
	n     int // message number
	limit int64
}

func (e *droppedError) Error() string {
	return fmt.Sprintf("bytes of message %d are no longer in memory: only the last %s of live traffic is kept; use --write to keep all", e.n, sizeText(e.limit))
}

// sizeText writes a byte count in MiB when it is whole MiB.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// rec returns record i (from 0).
func (c *Index) rec(i int32) *record {
	return &c.recs[i/recChunk].recs[i%recChunk]
}

// add appends r, whose bytes are at off (in the file with recFile, else in
// the arena) and whose time is t (UnixNano), to the index and returns its
// index.
func (c *Index) add(r record, off, t int64) int32 {
	if c.nrec%recChunk == 0 {
		// The first block starts small, so a small capture stays small.
		size := recChunk
		if c.nrec == 0 {
			size = 64
		}
		c.recs = append(c.recs, recBlock{recs: make([]record, 0, size), time0: t})
	}
	b := &c.recs[len(c.recs)-1]
	if len(b.recs) == cap(b.recs) {
		b.recs = append(make([]record, 0, recChunk), b.recs...)
	}
	i := int32(c.nrec)
	fits := true
	base := &b.arena0
	if r.flags&recFile != 0 {
		if !b.hasFile {
			b.file0, b.hasFile = off, true
		}
		base = &b.file0
	} else if !b.hasArena {
		b.arena0, b.hasArena = off, true
	}
	if d := off - *base; d >= 0 && d <= math.MaxUint32 {
		r.off = uint32(d)
	} else {
		fits = false
	}
	switch d := t - b.time0; {
	case d >= 0 && d <= math.MaxUint32:
		r.time = uint32(d)
	case d >= 0 && d%1000 == 0 && d/1000 <= math.MaxUint32:
		// Microsecond timestamps (classic pcap) reach 71 minutes.
		r.time, r.flags = uint32(d/1000), r.flags|recTimeUS
	default:
		fits = false
	}
	if !fits {
		if c.big == nil {
			c.big = map[int32][2]int64{}
		}
		c.big[i] = [2]int64{off, t}
		r.flags |= recBig
	}
	b.recs = append(b.recs, r)
	c.nrec++
	return i
}

// where returns the offset of record i's bytes (in the file with recFile,
// else in the arena) and its time (UnixNano).
func (c *Index) where(i int32) (off, t int64) {
	r := c.rec(i)
	if r.flags&recBig != 0 {
		v := c.big[i]
		return v[0], v[1]
	}
	b := &c.recs[i/recChunk]
	off = b.arena0 + int64(r.off)
	if r.flags&recFile != 0 {
		off = b.file0 + int64(r.off)
	}
	t = int64(r.time)
	if r.flags&recTimeUS != 0 {
		t *= 1000
	}
	return off, b.time0 + t
}

// timeOf returns the time of record i (UnixNano).
func (c *Index) timeOf(i int32) int64 {
	_, t := c.where(i)
	return t
}

// load returns the bytes of record i: aliasing the arena (read-only), or
// read from the store into buf (grown as needed). A short read is an error;
// the bytes read before it are returned.
func (c *Index) load(i int32, buf []byte) ([]byte, error) {
	r := c.rec(i)
	off, _ := c.where(i)
	if r.flags&recFile == 0 {
		b := c.arena[off/arenaChunk]
		if b == nil {
			return nil, &droppedError{n: int(i) + 1, limit: c.limits.MaxArena}
		}
		o := int(off % arenaChunk)
		return b[o : o+int(r.length) : o+int(r.length)], nil
	}
	if cap(buf) < int(r.length) {
		buf = make([]byte, r.length)
	}
	buf = buf[:r.length]
	n, err := c.store.ReadAt(buf, off)
	if n == len(buf) {
		return buf, nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return buf[:n], fmt.Errorf("capture file: message bytes at offset %d: read %d of %d bytes: %w", off, n, len(buf), err)
}

// feederBytes loads record i for the feeder (under the write lock) into its
// scratch buffer. A read error leaves the bytes read: the decoding then
// reports the message as cut short.
func (c *Index) feederBytes(i int32) []byte {
	b, _ := c.load(i, c.scratch)
	if c.rec(i).flags&recFile != 0 {
		c.scratch = b[:0]
	}
	return b
}

// message numbers and records one framed message (at file offset at, or -1
// to keep its bytes in the arena), then decodes it now or holds it for an
// inference.
func (c *Index) message(cn *connection, dir dissect.Dir, msg []byte, info unturned.FrameInfo, t time.Time, frame int, at int64) {
	if len(msg) > 0xFFFF {
		msg = msg[:0xFFFF]
	}
	r := record{
		frame:  int32(frame),
		length: uint16(len(msg)),
		conn:   cn.idx,
		dir:    dir,
	}
	if at >= 0 {
		r.flags = recFile
		c.inFile++
	} else {
		at = c.keep(msg)
	}
	i := c.add(r, at, t.UnixNano())
	cn.info.Messages++
	cn.msgs = append(cn.msgs, i)
	cn.info.Bytes[dir] += int64(len(msg)) + 2
	if !cn.started[dir] {
		cn.started[dir] = true
		// The handshake is captured when the direction's first message is
		// its detection message at the start of the stream (wire.md 4.1);
		// anything else means we joined mid-connection and must infer.
		r := netpak.NewReader(msg)
		v := r.Bits(c.profile.EnumBits(dir))
		if info.Resynced || info.Offset != 0 || r.Err() != nil || v != c.profile.DetectionMessage(dir) {
			cn.undecided[dir] = true
		}
	}
	if !cn.holding() {
		c.commit(cn, i, msg)
		return
	}
	cn.held = append(cn.held, i)
	c.rec(i).flags |= recHeld
	c.tentative(cn, i, msg)
	if cn.undecided[dir] {
		cn.heldIn[dir]++
		if cn.heldIn[dir] >= c.limits.InferWindow {
			c.decide(cn, dir)
		}
	}
	// A decided direction that keeps talking while the other stays
	// undecided must not be held without bound.
	if len(cn.held) >= 4*c.limits.InferWindow {
		for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
			if cn.undecided[d] {
				c.decide(cn, d)
			}
		}
	}
	if !cn.undecided[dissect.C2S] && !cn.undecided[dissect.S2C] {
		c.commitHeld(cn)
	}
}

// decodeRec decodes record i in state st into c.dec, from msg when the
// caller has its bytes at hand, else from where the record says they are.
func (c *Index) decodeRec(i int32, dir dissect.Dir, st unturned.State, msg []byte) *unturned.Decoded {
	if msg == nil {
		msg = c.feederBytes(i)
	}
	c.dec = unturned.Decoded{Findings: c.dec.Findings[:0]}
	unturned.Decode(c.profile, dir, st, msg, nil, &c.dec)
	return &c.dec
}

// setDecoded records what decoding showed in the index entry.
func (c *Index) setDecoded(i int32, st unturned.State, d *unturned.Decoded) {
	r := c.rec(i)
	r.kind, r.idBits = d.Kind, uint8(st.IDBits)
	r.flags &^= recWidened | recIDKnown
	if st.Widened {
		r.flags |= recWidened
	}
	if st.IDKnown {
		r.flags |= recIDKnown
	}
	r.worst = 0
	for _, f := range d.Findings {
		if uint8(f.Severity)+1 > r.worst {
			r.worst = uint8(f.Severity) + 1
		}
	}
}

// tentative decodes a held message in the connection's current state, so
// that it can be shown before the inference settles.
func (c *Index) tentative(cn *connection, i int32, msg []byte) {
	dir := c.rec(i).dir
	st := cn.state(dir)
	c.setDecoded(i, st, c.decodeRec(i, dir, st, msg))
}

// decide infers the enum width of an undecided direction from its held
// messages: each is decoded under both readings, and the reading under
// which they decode more plausibly (readingScore) wins, vanilla on a tie (wire.md 4.2; the
// issue's item 4).
func (c *Index) decide(cn *connection, dir dissect.Dir) {
	var in inference
	in.firstHeldIndex = -1
	var bitsV, bitsW = cn.idBits, cn.idBits
	knownV, knownW := cn.idKnown, cn.idKnown
	for _, i := range cn.held {
		if c.rec(i).dir != dir {
			continue
		}
		if in.firstHeldIndex < 0 {
			in.firstHeldIndex = int(i)
		}
		in.total++
		for w, st := range [2]unturned.State{{Widened: false, IDBits: bitsV, IDKnown: knownV}, {Widened: true, IDBits: bitsW, IDKnown: knownW}} {
			d := c.decodeRec(i, dir, st, nil)
			if sc := readingScore(d); sc > 0 {
				in.score[w] += sc
				// An S→C definition sets the ID bit count in force for
				// the messages after it under this reading (wire.md 4.3).
				if dir == dissect.S2C && d.Kind == unturned.KindInvokeMessageListener && d.Invoke.HasDefinition {
					if w == 0 {
						bitsV, knownV = d.Invoke.IDBits, true
					} else {
						bitsW, knownW = d.Invoke.IDBits, true
					}
				}
			}
		}
	}
	in.widened, in.confidence = decideConfidence(in.score[0], in.score[1])
	cn.undecided[dir] = false
	cn.widened[dir] = in.widened
	cn.info.Widened[dir] = in.widened || cn.info.Widened[dir]
	// A widened direction means both sides run USMN (wire.md 4.2). If the
	// other direction's handshake was captured with its marker, that side
	// widens too: it must have seen this side's marker in the part of the
	// stream the capture missed.
	if other := 1 - dir; in.widened && !cn.undecided[other] && cn.marker[other] && !cn.widened[other] {
		cn.widened[other] = true
		cn.info.Widened[other] = true
	}
	cn.info.Inferred = true
	f := in.finding(dir)
	c.connFinding(cn, f)
	if in.firstHeldIndex >= 0 {
		c.addExtra(int32(in.firstHeldIndex), f)
	}
}

// commitHeld commits the held messages in order once nothing is undecided.
func (c *Index) commitHeld(cn *connection) {
	if cn.undecided[dissect.C2S] || cn.undecided[dissect.S2C] {
		return
	}
	held := cn.held
	cn.held = nil
	for _, i := range held {
		c.rec(i).flags &^= recHeld
		c.commit(cn, i, nil)
	}
}

func (c *Index) addExtra(i int32, fs ...dissect.Finding) {
	if len(fs) == 0 {
		return
	}
	c.extra[i] = append(c.extra[i], fs...)
	r := c.rec(i)
	r.flags |= recExtra
	for _, f := range fs {
		if uint8(f.Severity)+1 > r.worst {
			r.worst = uint8(f.Severity) + 1
		}
	}
}

// intern returns the capture's one copy of a type name.
func (c *Index) intern(b []byte) string {
	if i, ok := c.typeIdx[string(b)]; ok {
		return c.types[i]
	}
	s := string(b)
	c.typeIdx[s] = uint32(len(c.types))
	c.types = append(c.types, s)
	return s
}

// typeVer is a listener type (an index into Index.types) and version.
type typeVer struct{ typ, version uint32 }

// listenerType returns the listener type and version r records, if any.
func (c *Index) listenerType(r *record) (typ string, version uint32, ok bool) {
	if r.tv == 0 {
		return "", 0, false
	}
	tv := c.typeVers[r.tv-1]
	return c.types[tv.typ], tv.version, true
}

// lookupType is intern for readers: every type name a committed message
// carries was interned when it was committed, so a replay finds it.
func (c *Index) lookupType(b []byte) string {
	if i, ok := c.typeIdx[string(b)]; ok {
		return c.types[i]
	}
	return string(b)
}

// commit decodes message i (from msg, or from where its record says its
// bytes are when msg is nil) in the connection's state, applies it to the
// handshake state and the tables, and records the result.
func (c *Index) commit(cn *connection, i int32, msg []byte) {
	r := c.rec(i)
	dir := r.dir
	n := int(i) + 1
	st := cn.state(dir)
	d := c.decodeRec(i, dir, st, msg)
	c.setDecoded(i, st, d)
	pos := cn.committed
	cn.committed++
	if d.Enum.Widened && cn.info.WidenedAt[dir] == 0 {
		cn.info.WidenedAt[dir] = n
	}
	if d.Kind == unturned.KindInvokeMessageListener || d.Kind == unturned.KindNegotiateListenerDetails {
		o := opFor(dir, n, st, d, c.intern)
		res := cn.applyOp(o, &c.limits, pos)
		c.listenerInfo(cn, i, &o, d, res.resolved)
		c.addExtra(i, res.findings...)
	}
	if r.worst > 0 && (!cn.info.HasFinding || dissect.Severity(r.worst-1) > cn.info.Worst) {
		cn.info.Worst, cn.info.HasFinding = dissect.Severity(r.worst-1), true
	}
	cn.learn(dir, d)
}

// listenerInfo records in the index what the tables know of the listener a
// USMN message names, as of its decoding (outputs.md "listener").
func (c *Index) listenerInfo(cn *connection, i int32, o *op, d *unturned.Decoded, resolved bool) {
	r := c.rec(i)
	r.flags |= recListener
	if resolved {
		r.flags |= recResolved
	}
	t := cn.tables
	setCID := func(id uint32) { r.cid, r.flags = id, r.flags|recCID }
	setSID := func(id uint32) { r.sid, r.flags = id, r.flags|recSID }
	setType := func(typ string, version uint32) {
		tv := typeVer{typ: c.typeIdx[typ], version: version}
		k, ok := c.tvIdx[tv]
		if !ok {
			k = uint32(len(c.typeVers))
			c.tvIdx[tv] = k
			c.typeVers = append(c.typeVers, tv)
		}
		r.tv, r.flags = k+1, r.flags|recVersion
	}
	switch o.kind {
	case opServerDef, opServerInvoke:
		setSID(o.sid)
		if e, ok := t.server[o.sid]; ok {
			setType(e.Type, e.Version)
		}
		if cid, ok := t.mappedBy[o.sid]; ok {
			setCID(cid)
		}
	case opClientDef, opClientInvoke:
		setCID(o.cid)
		if e, ok := t.client[o.cid]; ok {
			setType(e.Type, e.Version)
			if e.Mapped {
				setSID(e.ServerID)
			}
		}
	case opServerIDInvoke:
		setSID(o.sid)
		if cid, ok := t.mappedBy[o.sid]; ok {
			setCID(cid)
			if e, ok := t.client[cid]; ok {
				setType(e.Type, e.Version)
			}
		} else if e, ok := t.server[o.sid]; ok {
			setType(e.Type, e.Version)
		}
	case opTellID:
		setCID(o.cid)
		setSID(o.sid)
		setType(o.typ, o.version)
	case opRequestID:
		setCID(o.cid)
		setType(o.typ, o.version)
		if e, ok := t.client[o.cid]; ok && e.Mapped {
			setSID(e.ServerID)
		}
	case opMissingClient:
		setCID(o.cid)
		if e, ok := t.client[o.cid]; ok {
			setType(e.Type, e.Version)
			r.flags |= recResolved
		} else {
			r.flags &^= recResolved
		}
	case opMissingServer:
		setSID(o.sid)
		if e, ok := t.server[o.sid]; ok {
			setType(e.Type, e.Version)
			r.flags |= recResolved
		} else {
			r.flags &^= recResolved
		}
	default:
		// Not applied (the message did not decode cleanly): show what the
		// message itself says.
		r.flags &^= recResolved
		fromDecoded(r, d)
	}
}

// fromDecoded fills the listener part of r from a message the tables did
// not take: only a client ID, read right after the one-bit flags, is shown;
// a server ID read before the error may already be garbage.
func fromDecoded(r *record, d *unturned.Decoded) {
	if d.Kind == unturned.KindInvokeMessageListener && d.Invoke.IsClientID {
		r.cid, r.flags = d.Invoke.ClientID, r.flags|recCID
	}
}

// Message returns message n (from 1) without its field spans, or nil.
func (c *Index) Message(n int) *Message {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.build(n, false)
}

// Stamp returns message n's connection and capture time from its index
// record alone, without decoding it again: for per-message indexes such as
// the TUI's, which need nothing else. ok is false when there is no n.
func (c *Index) Stamp(n int) (conn dissect.Conn, t time.Time, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if n < 1 || n > c.nrec {
		return dissect.Conn{}, time.Time{}, false
	}
	r := c.rec(int32(n - 1))
	_, ns := c.where(int32(n - 1))
	return c.conns[r.conn].info.Conn, time.Unix(0, ns).UTC(), true
}

// Detail returns message n decoded again with its field spans, or nil.
func (c *Index) Detail(n int) *Message {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.build(n, true)
}

// build decodes message n again from its stored bytes and State. Readers
// share the read lock, so it decodes into its own Decoded.
func (c *Index) build(n int, withSpans bool) *Message {
	if n < 1 || n > c.nrec {
		return nil
	}
	r := c.rec(int32(n - 1))
	cn := c.conns[r.conn]
	st := r.state()
	var spans *netpak.Spans
	if withSpans {
		spans = &netpak.Spans{}
	}
	var d unturned.Decoded
	data, err := c.load(int32(n-1), nil)
	var dropped *droppedError
	if r.flags&recFile == 0 {
		data = append([]byte(nil), data...)
	}
	var m *Message
	if errors.As(err, &dropped) {
		// Nothing to decode again: what the index record kept is shown,
		// with the one finding that says why the rest is missing.
		d.Kind = r.kind
		m = newMessage(&d, r.dir, []byte{}, spans)
		m.Findings = append(m.Findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: err.Error(), Bit: -1})
	} else {
		unturned.Decode(c.profile, r.dir, st, data, spans, &d)
		m = newMessage(&d, r.dir, data, spans)
		if err != nil {
			m.Findings = append(m.Findings, dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: termsafe.Escape(err.Error()), Bit: -1})
		}
	}
	_, t := c.where(int32(n - 1))
	m.N, m.Frame, m.Time, m.Conn = n, int(r.frame), time.Unix(0, t).UTC(), cn.info.Conn
	if r.flags&recListener != 0 {
		l := &unturned.Listener{Resolved: r.flags&recResolved != 0}
		if r.flags&recCID != 0 {
			v := r.cid
			l.ClientID = &v
		}
		if r.flags&recSID != 0 {
			v := r.sid
			l.ServerID = &v
		}
		if typ, version, ok := c.listenerType(r); ok {
			l.Type, l.Version = &typ, &version
		}
		m.Listener = l
	}
	if r.flags&recHeld != 0 {
		m.Findings = append(m.Findings, dissect.Finding{Severity: dissect.Note, Group: dissect.Inference, Text: "enum width not settled yet: decoded tentatively while the handshake is being inferred", Bit: -1})
	}
	if r.flags&recExtra != 0 {
		m.Findings = append(m.Findings, c.extra[int32(n-1)]...)
	}
	if dropped != nil {
		m.Summary = "(bytes no longer in memory)"
	} else {
		m.Summary = summarize(m, &d)
	}
	return m
}

// state is the State r was decoded in.
func (r *record) state() unturned.State {
	return unturned.State{Widened: r.flags&recWidened != 0, IDBits: int(r.idBits), IDKnown: r.flags&recIDKnown != 0}
}

// newMessage builds a Message from a decoding, without capture context.
func newMessage(d *unturned.Decoded, dir dissect.Dir, data []byte, spans *netpak.Spans) *Message {
	m := &Message{Dir: dir, Data: data, Enum: d.Enum, Name: d.Kind.String()}
	if spans != nil {
		m.Fields = spans.List
		if m.Fields == nil {
			m.Fields = []netpak.Span{}
		}
	}
	m.setKind(d)
	m.Findings = append([]dissect.Finding(nil), d.Findings...)
	return m
}

// setKind copies what only some kinds carry: the negotiate mode's name and
// an invoke's payload range.
func (m *Message) setKind(d *unturned.Decoded) {
	if d.Kind == unturned.KindNegotiateListenerDetails {
		m.Mode = d.Negotiate.Mode.String()
	}
	if d.Kind == unturned.KindInvokeMessageListener {
		m.PayloadBit, m.PayloadBits = d.PayloadBit, d.PayloadBits
	}
}

// summarize is the one-line summary: the decoder's, and for the two USMN
// messages the listener as the tables knew it, as in
// `srv#2 Sample.ChatListener v1 +def 88 payload bits`.
func summarize(m *Message, d *unturned.Decoded) string {
	var buf [160]byte
	return string(d.AppendListenerSummary(buf[:0], m.Listener))
}

// DecodeOne decodes one message on its own, with its field spans, in the
// given state: for `usmnscope bits` (outputs.md). Listener holds what the
// message itself says; Resolved is false, as there are no tables.
func DecodeOne(p *unturned.Profile, dir dissect.Dir, widened bool, idBits int, data []byte) *Message {
	if p == nil {
		p = unturned.Default()
	}
	var d unturned.Decoded
	spans := &netpak.Spans{}
	st := unturned.State{Widened: widened, IDBits: idBits, IDKnown: true}
	unturned.Decode(p, dir, st, data, spans, &d)
	m := newMessage(&d, dir, data, spans)
	switch d.Kind {
	case unturned.KindInvokeMessageListener:
		l := &unturned.Listener{}
		iv := d.Invoke
		if iv.IsClientID {
			l.ClientID = &iv.ClientID
		} else {
			l.ServerID = &iv.ServerID
		}
		if iv.HasDefinition {
			typ := iv.TypeName()
			l.Type, l.Version = &typ, &iv.Version
		}
		m.Listener = l
	case unturned.KindNegotiateListenerDetails:
		l := &unturned.Listener{}
		ng := d.Negotiate
		switch ng.Mode {
		case unturned.TellClientMissingListener:
			l.ClientID = &ng.ClientID
		case unturned.TellClientListenerID, unturned.RequestServerListenerID:
			typ := ng.TypeName()
			l.ClientID, l.Type, l.Version = &ng.ClientID, &typ, &ng.Version
			if ng.Mode == unturned.TellClientListenerID {
				l.ServerID = &ng.ServerID
			}
		case unturned.TellServerMissingListener:
			l.ServerID = &ng.ServerID
		}
		m.Listener = l
	}
	m.Summary = d.Summary()
	return m
}

// Connections returns the connections in the order they were first seen.
func (c *Index) Connections() []ConnInfo {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]ConnInfo, len(c.conns))
	for i, cn := range c.conns {
		out[i] = cn.info
		out[i].Findings = append([]dissect.Finding(nil), cn.info.Findings...)
	}
	return out
}

// Tables returns the listener-ID tables of conn as of message asOf (the
// state after that message of the capture was applied); asOf ≤ 0 means the
// end of what was read. Messages held for an inference are not in the
// tables until it settles. It returns nil for an unknown connection.
func (c *Index) Tables(conn dissect.Conn, asOf int) *Tables {
	c.mu.RLock()
	defer c.mu.RUnlock()
	i, ok := c.byConn[conn]
	if !ok {
		return nil
	}
	if asOf <= 0 || asOf > c.nrec {
		asOf = c.nrec
	}
	return c.tablesAsOf(c.conns[i], asOf)
}

// tablesAsOf returns the tables of cn after every message ≤ asOf: the live
// tables when every committed message of cn is ≤ asOf, else the nearest
// checkpoint at or before it, cloned, and the USMN messages after it
// decoded again (in the State their records hold) and applied.
func (c *Index) tablesAsOf(cn *connection, asOf int) *Tables {
	// k: the connection's messages numbered ≤ asOf (record index < asOf).
	k := sort.Search(len(cn.msgs), func(i int) bool { return int(cn.msgs[i]) >= asOf })
	var t *Tables
	if k >= cn.committed {
		t = cn.tables.snapshot(cn.info.Conn, asOf)
	} else {
		cp := cn.checkpoints[sort.Search(len(cn.checkpoints), func(i int) bool { return cn.checkpoints[i].pos > k })-1]
		st := cp.state.clone()
		var (
			d   unturned.Decoded
			buf []byte
		)
		for p := cp.pos; p < k; p++ {
			i := cn.msgs[p]
			r := c.rec(i)
			if r.flags&recListener == 0 {
				continue
			}
			msg, err := c.load(i, buf)
			var dropped *droppedError
			if errors.As(err, &dropped) {
				// Replaying past it would give wrong tables: give those
				// as of the message before it, and say why.
				t = st.snapshot(cn.info.Conn, int(i))
				t.Messages = p
				t.Warnings = append(t.Warnings, dissect.Finding{Severity: dissect.Warn, Group: dissect.Malformed, Bit: -1, Text: fmt.Sprintf("tables as of message %d cannot be replayed: %v; shown as of message %d", asOf, err, i)})
				return t
			}
			if r.flags&recFile != 0 {
				buf = msg[:0]
			}
			d = unturned.Decoded{Findings: d.Findings[:0]}
			unturned.Decode(c.profile, r.dir, r.state(), msg, nil, &d)
			o := opFor(r.dir, int(i)+1, r.state(), &d, c.lookupType)
			st.apply(&o, &c.limits)
		}
		t = st.snapshot(cn.info.Conn, asOf)
	}
	t.Messages = k
	return t
}

// Findings returns the capture-wide findings.
func (c *Index) Findings() []dissect.Finding {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return append([]dissect.Finding(nil), c.findings...)
}
