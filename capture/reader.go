package capture

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// slab is the read buffer of a capture file: records and blocks are parsed
// in place and handed on as subslices, so that a frame costs no copy and no
// call through bufio (BenchmarkReadReassemble). It grows only as bytes
// arrive, so a lying length field cannot make it allocate more than twice
// what the input holds.
type slab struct {
	r      io.Reader
	buf    []byte
	lo, hi int   // unread bytes are buf[lo:hi]
	base   int64 // stream offset of buf[0]
	err    error // sticky read error
}

// slabSize is the initial buffer: large enough that read calls are rare,
// small enough to stay in the L2 cache.
const slabSize = 256 << 10

func newSlab(r io.Reader) *slab { return &slab{r: r, buf: make([]byte, slabSize)} }

// pos is the stream offset of the next unread byte.
func (s *slab) pos() int64 { return s.base + int64(s.lo) }

// buffered is the number of unread bytes in the buffer.
func (s *slab) buffered() int { return s.hi - s.lo }

// fill makes n bytes available at buf[lo:]; false means the input ended or
// failed first (s.err says which). It reads only while bytes are missing,
// so that a pipe is decoded as it arrives.
func (s *slab) fill(n int) bool {
	return s.hi-s.lo >= n || s.more(n)
}

// more is fill's slow half, out of line so that fill inlines.
func (s *slab) more(n int) bool {
	for zero := 0; s.hi-s.lo < n; {
		if s.err != nil {
			return false
		}
		if len(s.buf)-s.lo < n && s.lo > 0 {
			copy(s.buf, s.buf[s.lo:s.hi])
			s.base += int64(s.lo)
			s.hi -= s.lo
			s.lo = 0
		}
		if s.hi == len(s.buf) {
			nb := make([]byte, min(n, 2*len(s.buf)))
			copy(nb, s.buf[:s.hi])
			s.buf = nb
		}
		s.hi += s.read(s.buf[s.hi:], &zero)
	}
	return true
}

// read reads once into p, recording an error, or io.ErrNoProgress after
// more than 100 empty reads in a row (counted in *zero), in s.err.
func (s *slab) read(p []byte, zero *int) int {
	m, err := s.r.Read(p)
	switch {
	case err != nil:
		s.err = err
	case m == 0:
		if *zero++; *zero > 100 {
			s.err = io.ErrNoProgress
		}
	}
	return m
}

// skip discards n bytes without buffering them; false means the input
// ended or failed first.
func (s *slab) skip(n int64) bool {
	for zero := 0; ; {
		if avail := int64(s.hi - s.lo); n <= avail {
			s.lo += int(n)
			return true
		} else {
			n -= avail
		}
		s.base += int64(s.hi)
		s.lo, s.hi = 0, 0
		if s.err != nil {
			return false
		}
		s.hi = s.read(s.buf, &zero)
	}
}

// short turns the end of input inside a record into io.ErrUnexpectedEOF.
func (s *slab) short() error {
	if s.err == nil || s.err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return s.err
}

// recordReader reads the frames of a classic pcap or a pcapng capture out
// of a slab. After next, ts, iface, link, start and dataOff describe the
// frame returned.
type recordReader struct {
	s  *slab
	ng bool // pcapng, else classic pcap
	be bool // big-endian (pcap file, or the current pcapng section)

	// classic pcap
	nano  bool
	snap  uint32
	plink layers.LinkType

	// pcapng: the interfaces of the current section.
	ifaces []ngIface
	// maxIfaces bounds ifaces (Options.MaxInterfaces): the Interface
	// Description Blocks past it are counted in ifacesOver (over all
	// sections, overHere in this one) and the frames on them in
	// framesOver, and skipped.
	maxIfaces              int
	ifacesOver, framesOver int64
	// untimed counts the Simple Packet Blocks read, untimedFirst those
	// before any frame with a time (timed is set at the first).
	untimed, untimedFirst int64
	timed                 bool
	overHere              int

	ts      time.Time
	iface   int
	link    layers.LinkType
	start   int64 // offset of the record or block last read
	dataOff int64 // offset of the returned frame's first byte
}

// ngIface is what a pcapng Interface Description Block says.
type ngIface struct {
	link  layers.LinkType
	snap  uint32
	units uint64 // timestamp units per second (if_tsresol)
	off   int64  // seconds added to every timestamp (if_tsoffset)
}

// noIface is the link type of frames on an interface the section did not
// describe: reported as unsupported, and skipped.
const noIface layers.LinkType = 0xffff

func (r *recordReader) u16(b []byte) uint16 {
	if r.be {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

func (r *recordReader) u32(b []byte) uint32 {
	if r.be {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// maxRecord is libpcap's MAXIMUM_SNAPLEN; longer records are corrupt.
const maxRecord = 262144

// maxBlock bounds the pcapng blocks read whole (headers and packets);
// other blocks are skipped as they stream by, whatever their length.
const maxBlock = 16 << 20

// newPcapReader reads the 24-byte pcap file header.
func newPcapReader(s *slab) (*recordReader, error) {
	if !s.fill(24) {
		return nil, fmt.Errorf("file header: %w", s.short())
	}
	h := s.buf[s.lo : s.lo+24]
	r := &recordReader{s: s}
	switch magic := binary.LittleEndian.Uint32(h); magic {
	case magicPcapMicro, magicPcapNano:
		r.nano = magic == magicPcapNano
	default:
		r.be, r.nano = true, binary.BigEndian.Uint32(h) == magicPcapNano
	}
	if major := r.u16(h[4:]); major != 2 {
		return nil, fmt.Errorf("file header: version %d.%d, want 2.4", major, r.u16(h[6:]))
	}
	r.snap = r.u32(h[16:])
	// The upper bits of the link field carry FCS flags (pcap-linktype(7)).
	r.plink = layers.LinkType(r.u32(h[20:]) & 0x0fffffff)
	r.link = r.plink
	s.lo += 24
	return r, nil
}

// newPcapngReader reads the first Section Header Block.
func newPcapngReader(s *slab) (*recordReader, error) {
	r := &recordReader{s: s, ng: true}
	typ, n, err := r.blockHeader()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	if typ != ngSection {
		return nil, fmt.Errorf("first block has type 0x%08x, want a section header", typ)
	}
	if err := r.section(n); err != nil {
		return nil, err
	}
	return r, nil
}

// next returns the next frame; its bytes are valid until the next call.
// io.EOF means a clean end, io.ErrUnexpectedEOF a cut record.
func (r *recordReader) next() ([]byte, error) {
	if r.ng {
		return r.nextBlock()
	}
	s := r.s
	r.start = s.pos()
	if !s.fill(16) {
		if s.buffered() == 0 && s.err == io.EOF {
			return nil, io.EOF
		}
		return nil, s.short()
	}
	h := s.buf[s.lo : s.lo+16]
	sec, frac := int64(r.u32(h[0:])), int64(r.u32(h[4:]))
	n := r.u32(h[8:])
	if n > maxRecord && n > r.snap || n > maxBlock {
		return nil, fmt.Errorf("record length %d exceeds the snap length %d", n, r.snap)
	}
	if !r.nano {
		frac *= 1000
	}
	r.ts = time.Unix(sec, frac).UTC()
	end := 16 + int(n)
	if !s.fill(end) {
		return nil, s.short()
	}
	data := s.buf[s.lo+16 : s.lo+end : s.lo+end]
	r.dataOff = r.start + 16
	s.lo += end
	return data, nil
}

// pcapng block types (pcapng §4, §11.1).
const (
	ngSection          = 0x0a0d0d0a
	ngInterface        = 0x00000001
	ngPacket           = 0x00000002 // obsolete Packet Block
	ngSimple           = 0x00000003
	ngEnhanced         = 0x00000006
	ngBOM       uint32 = 0x1a2b3c4d
)

// blockHeader reads a block's type and total length, leaving the slab at
// the block's start. A section header sets the byte order from its magic.
func (r *recordReader) blockHeader() (typ, n uint32, err error) {
	s := r.s
	r.start = s.pos()
	if !s.fill(8) {
		if s.buffered() == 0 && s.err == io.EOF {
			return 0, 0, io.EOF
		}
		return 0, 0, s.short()
	}
	h := s.buf[s.lo:]
	typ = r.u32(h)
	if typ == ngSection {
		if !s.fill(12) {
			return 0, 0, s.short()
		}
		h = s.buf[s.lo:]
		switch ngBOM {
		case binary.LittleEndian.Uint32(h[8:]):
			r.be = false
		case binary.BigEndian.Uint32(h[8:]):
			r.be = true
		default:
			return 0, 0, fmt.Errorf("section header at byte %d: byte-order magic 0x%08x", r.start, binary.BigEndian.Uint32(h[8:]))
		}
	}
	n = r.u32(h[4:])
	if n < 12 {
		return 0, 0, fmt.Errorf("block at byte %d: length %d, less than 12", r.start, n)
	}
	return typ, n, nil
}

// whole makes the n-byte block at the slab's position available and checks
// that its trailing length repeats n; it returns the block.
func (r *recordReader) whole(n uint32) ([]byte, error) {
	if n > maxBlock {
		return nil, fmt.Errorf("block at byte %d: length %d, more than %d", r.start, n, maxBlock)
	}
	s := r.s
	if !s.fill(int(n)) {
		return nil, s.short()
	}
	b := s.buf[s.lo : s.lo+int(n) : s.lo+int(n)]
	if t := r.u32(b[n-4:]); t != n {
		return nil, fmt.Errorf("block at byte %d: length %d, trailing length %d", r.start, n, t)
	}
	return b, nil
}

// section reads a Section Header Block: a new section forgets the
// interfaces of the last one; one of an unknown major version is skipped,
// as pcapng §4.1 asks.
func (r *recordReader) section(n uint32) error {
	b, err := r.whole(n)
	if err != nil {
		return err
	}
	if n < 28 {
		return fmt.Errorf("section header at byte %d: length %d, less than 28", r.start, n)
	}
	// pcapng §4.1 lets a reader skip a section of a major version it does
	// not know, but skipping a whole file printed nothing and exited 0
	// (issue 29): it is an error, and what came before it is kept.
	if major := r.u16(b[12:]); major != 1 {
		return fmt.Errorf("section header at byte %d: pcapng version %d.%d, this reader knows 1.x", r.start, major, r.u16(b[14:]))
	}
	r.ifaces = r.ifaces[:0]
	r.overHere = 0
	r.s.lo += int(n)
	return nil
}

// nextBlock reads blocks until one carries a frame.
func (r *recordReader) nextBlock() ([]byte, error) {
	s := r.s
	for {
		typ, n, err := r.blockHeader()
		if err != nil {
			return nil, err
		}
		switch {
		case typ == ngSection:
			if err := r.section(n); err != nil {
				return nil, err
			}
			continue
		case typ != ngInterface && typ != ngEnhanced && typ != ngSimple && typ != ngPacket:
			if !s.skip(int64(n)) {
				return nil, s.short()
			}
			continue
		}
		b, err := r.whole(n)
		if err != nil {
			return nil, err
		}
		if typ == ngInterface {
			if err := r.interfaceBlock(b); err != nil {
				return nil, err
			}
			s.lo += int(n)
			continue
		}
		data, err := r.packetBlock(typ, b)
		if err != nil {
			return nil, err
		}
		s.lo += int(n)
		return data, nil
	}
}

// interfaceBlock reads an Interface Description Block (pcapng §4.2) with
// its if_tsresol and if_tsoffset options. Past maxIfaces in a section the
// block is only counted: a million of them, each with one packet, took
// hundreds of megabytes downstream.
func (r *recordReader) interfaceBlock(b []byte) error {
	if len(b) < 20 {
		return fmt.Errorf("interface block at byte %d: length %d, less than 20", r.start, len(b))
	}
	if r.maxIfaces > 0 && len(r.ifaces) >= r.maxIfaces {
		r.ifacesOver++
		r.overHere++
		return nil
	}
	in := ngIface{link: layers.LinkType(r.u16(b[8:])), snap: r.u32(b[12:]), units: 1e6}
	for o := b[16 : len(b)-4]; len(o) >= 4; {
		code, l := r.u16(o), int(r.u16(o[2:]))
		if code == 0 || 4+l > len(o) {
			break // end of options, or one that overruns the block: the rest is ignored
		}
		v := o[4 : 4+l]
		switch {
		case code == 9 && l >= 1: // if_tsresol
			units, ok := tsUnits(v[0])
			if !ok {
				return fmt.Errorf("interface block at byte %d: timestamp resolution 0x%02x is finer than 64 bits can count", r.start, v[0])
			}
			in.units = units
		case code == 14 && l >= 8: // if_tsoffset
			if r.be {
				in.off = int64(binary.BigEndian.Uint64(v))
			} else {
				in.off = int64(binary.LittleEndian.Uint64(v))
			}
		}
		o = o[min(len(o), 4+(l+3)&^3):]
	}
	r.ifaces = append(r.ifaces, in)
	return nil
}

// tsUnits decodes if_tsresol: 10^-v seconds, or 2^-(v&0x7f) with the top
// bit set.
func tsUnits(v byte) (uint64, bool) {
	if v&0x80 != 0 {
		e := v & 0x7f
		return 1 << e, e < 64
	}
	if v > 19 {
		return 0, false
	}
	u := uint64(1)
	for range v {
		u *= 10
	}
	return u, true
}

// packetBlock returns the frame of an Enhanced, Simple or (obsolete)
// Packet Block, whose whole bytes are b.
func (r *recordReader) packetBlock(typ uint32, b []byte) ([]byte, error) {
	n := len(b)
	var id int
	var caplen, hdr int
	var ts uint64
	switch typ {
	case ngSimple:
		// No interface ID and no timestamp: interface 0, and the time of
		// the frame before (untimed counts them for the note at the end).
		if n < 16 {
			return nil, fmt.Errorf("simple packet block at byte %d: length %d, less than 16", r.start, n)
		}
		hdr = 12
		caplen = min(int(r.u32(b[8:])), n-16)
		if len(r.ifaces) > 0 && r.ifaces[0].snap != 0 {
			caplen = min(caplen, int(r.ifaces[0].snap))
		}
	default:
		if n < 32 {
			return nil, fmt.Errorf("packet block at byte %d: length %d, less than 32", r.start, n)
		}
		if typ == ngPacket {
			id = int(r.u16(b[8:]))
		} else {
			id = int(r.u32(b[8:]))
		}
		ts = uint64(r.u32(b[12:]))<<32 | uint64(r.u32(b[16:]))
		hdr = 28
		caplen = int(r.u32(b[20:]))
		if caplen < 0 || caplen > n-32 {
			return nil, fmt.Errorf("packet block at byte %d: captured length %d, more than its %d-byte block holds", r.start, r.u32(b[20:]), n)
		}
	}
	r.iface = id
	r.link = noIface
	if id >= len(r.ifaces) && id-len(r.ifaces) < r.overHere {
		r.framesOver++
	}
	if id >= 0 && id < len(r.ifaces) {
		in := &r.ifaces[id]
		r.link = in.link
		if typ != ngSimple {
			r.ts = in.time(ts)
		}
	} else if typ != ngSimple {
		r.ts = time.Unix(int64(ts/1e6), int64(ts%1e6)*1000).UTC()
	}
	if typ == ngSimple {
		// A Simple Packet Block has no timestamp (pcapng §4.4): it takes
		// the time of the frame before it, or 1970-01-01 before any, and
		// the end of input says so (a zero time wrapped to 1754 in
		// 64-bit nanoseconds; issue 29).
		r.untimed++
		if !r.timed {
			r.untimedFirst++
			r.ts = time.Unix(0, 0).UTC()
		}
	} else {
		r.timed = true
	}
	r.dataOff = r.start + int64(hdr)
	return b[hdr : hdr+caplen : hdr+caplen], nil
}

// maxSeconds bounds the seconds time adds up, so that neither the
// conversion to int64 nor the sum with if_tsoffset wraps: a time past it
// is far outside what the engine keeps (clampTime), and clamped there
// with a note.
const maxSeconds = 1 << 60

// time converts a timestamp in the interface's units to a time; the common
// resolutions avoid the general division.
func (in *ngIface) time(ts uint64) time.Time {
	var sec, nsec uint64
	switch in.units {
	case 1e6:
		sec, nsec = ts/1e6, ts%1e6*1000
	case 1e9:
		sec, nsec = ts/1e9, ts%1e9
	default:
		sec = ts / in.units
		hi, lo := bits.Mul64(ts%in.units, 1e9)
		nsec, _ = bits.Div64(hi, lo, in.units)
	}
	return time.Unix(int64(min(sec, maxSeconds))+max(-maxSeconds, min(in.off, maxSeconds)), int64(nsec)).UTC()
}
