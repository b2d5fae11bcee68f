package session

import (
	"fmt"
	"io"
	"math"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

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
	recWidened     recFlags = 1 << iota // decoded with a widened enum
	recIDKnown                          // State.IDKnown
	recHeld                             // waiting for an inference; not settled
	recListener                         // a USMN message: Listener is set
	recResolved                         // the listener was found in the tables
	recCID                              // cid valid
	recSID                              // sid valid
	recVersion                          // version valid
	recExtra                            // Index.extra has findings for it
	recFile                             // off is an offset in the Store, not in the arena
	recTimeUS                           // time counts microseconds
	recBig                              // off and time are in Index.big
	recIDUndecided                      // reads a server ID in a Serverside_ID_Bit_Count not decided yet
	recHosted                           // a hosted record (hosted.go): Index.hostedRecs holds it, or it is slim (hostedslim.go: its bytes at off)
	recAsk                              // an asker of a pair (pairs.go)
	recPaired                           // paired: a ping's partner and latency in cid, sid and tv, a negotiate message's in its connection's links
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

// streamArenaChunk is the largest arena block of a streaming Index.
const streamArenaChunk = 64 << 10

// Store gives back the bytes of the capture file, by offset, when a message
// is shown again (io.ReaderAt's contract). The decoder does no IO itself:
// the caller that reads the capture from a file supplies it (SetStore), and
// messages that lie wholly inside one contiguous run of that file
// (DataAt's offset) are recorded by where they are instead of being copied.
// ReadAt may be called by several readers at once.
type Store interface {
	ReadAt(p []byte, off int64) (int, error)
}

// SetStore tells the capture where DataAt's offsets point: the capture file
// the data is read from. Set it before the first DataAt.
func (c *Index) SetStore(s Store) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.store = s
}

// Placement returns how many messages are recorded by their offset in the
// Store and how many keep their bytes in memory (see Storage).
func (c *Index) Placement() (file, memory int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.inFile, c.nrec - c.inFile
}

// keep copies msg into the arena and returns its offset: the block index
// times arenaChunk plus the offset in the block. Blocks start small and
// double up to arenaChunk (or a quarter of Limits.MaxArena), so a small
// capture stays small.
func (c *Index) keep(msg []byte) int64 {
	last := len(c.arena) - 1
	if last < 0 || c.arena[last] == nil || len(c.arena[last])+len(msg) > cap(c.arena[last]) {
		size, largest := 4096, int64(arenaChunk)
		if c.stream != nil {
			// A stream keeps only the bytes of the messages waiting to
			// be handed out (an asker and those behind it, issue 18):
			// small blocks are released as soon as those are, where a
			// block of 1 MiB would stay half empty for a long time.
			largest = streamArenaChunk
		}
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
	c.kept(last)
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
		if cn.native == nil {
			continue
		}
		for _, i := range cn.native.Held() {
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
	// store says the capture is saved (live --write): the message was
	// kept in memory all the same, as its bytes lie in no one packet of
	// the file (cut across segments, or reassembled), which the Store's
	// offsets cannot point at.
	store bool
}

func (e *droppedError) Error() string {
	if e.store {
		return fmt.Sprintf("bytes of message %d are no longer in memory: only the last %s of live traffic is kept, and the message does not lie whole in one packet of the --write file, so it is not read back from there; raise --max-arena to keep more", e.n, sizeText(e.limit))
	}
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

// add appends a record with flags, whose bytes are at off (in the file
// with recFile, else in the arena) and whose time is t (UnixNano), and
// returns its index and the record for the caller to fill in. It is filled
// in place: a record built field by field and then copied whole stalled the
// store buffer on every message (issue 18).
func (c *Index) add(flags recFlags, off, t int64) (int32, *record) {
	if c.nrec%recChunk == 0 {
		// The first block starts small, so a small capture stays small.
		size := recChunk
		if c.nrec == 0 {
			size = 64
		}
		var recs []record
		if c.stream == nil && c.nrec >= slabFrom {
			recs = c.slab.records()
		} else {
			recs = c.newRecs(size)
		}
		c.recs = append(c.recs, recBlock{recs: recs, time0: t})
	}
	b := &c.recs[len(c.recs)-1]
	if len(b.recs) == cap(b.recs) {
		b.recs = append(make([]record, 0, recChunk), b.recs...)
	}
	i := int32(c.nrec)
	b.recs = b.recs[:len(b.recs)+1]
	r := &b.recs[len(b.recs)-1]
	*r = record{flags: flags}
	fits := true
	base := &b.arena0
	if flags&recFile != 0 {
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
	c.nrec++
	return i, r
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
			return nil, &droppedError{n: int(i) + 1, limit: c.limits.MaxArena, store: c.store != nil}
		}
		o := int(off % arenaChunk)
		return b[o : o+int(r.length) : o+int(r.length)], nil
	}
	if r.flags&recHosted != 0 && r.idBits&hostedMasked != 0 {
		return c.loadMasked(off, int(r.length), buf)
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

// loadMasked is load of n bytes at off in the store that lie there masked,
// the key 8 bytes before them (hostedMasked): read with the key, then
// unmasked.
func (c *Index) loadMasked(off int64, n int, buf []byte) ([]byte, error) {
	if cap(buf) < n+8 {
		buf = make([]byte, n+8)
	}
	buf = buf[:n+8]
	got, err := c.store.ReadAt(buf, off-8)
	for i := 8; i < got; i++ {
		buf[i] ^= buf[i&3]
	}
	got = copy(buf, buf[8:max(got, 8)])
	if got == n {
		return buf[:n], nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return buf[:got], fmt.Errorf("capture file: message bytes at offset %d: read %d of %d bytes: %w", off, got, n, err)
}

// dropped reports whether r's bytes were in an arena block that
// Limits.MaxArena has since dropped.
func (c *Index) dropped(i int32) bool {
	if c.rec(i).flags&(recFile|recHosted) != 0 || c.prepared(i) != nil {
		// A message a Stream hands out at its commit is read from the
		// caller's bytes: it may have no arena bytes at all.
		return false
	}
	off, _ := c.where(i)
	return c.arena[off/arenaChunk] == nil
}

// loadInto is load with *buf as the buffer for bytes read from the
// store, which keeps the buffer (grown) for the next read; bytes in the
// arena are returned where they are.
func (c *Index) loadInto(i int32, buf *[]byte) ([]byte, error) {
	b, err := c.load(i, (*buf)[:0])
	if c.rec(i).flags&recFile != 0 {
		*buf = b[:0]
	}
	return b, err
}

// feederBytes loads record i for the feeder (under the write lock) into its
// scratch buffer. A read error leaves the bytes read: the decoding then
// reports the message as cut short.
func (c *Index) feederBytes(i int32) []byte {
	b, _ := c.loadInto(i, &c.scratch)
	return b
}

// state is the State r was decoded in.
func (r *record) state() unturned.State {
	return unturned.State{Widened: r.flags&recWidened != 0, IDBits: int(r.idBits), IDKnown: r.flags&recIDKnown != 0}
}
