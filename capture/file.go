package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// readFunc yields the next frame; its data is valid until the next call.
type readFunc func() ([]byte, gopacket.CaptureInfo, layers.LinkType, error)

// source is the Source of files, stdin, memory and live interfaces: frames
// from a recordReader (files) or from read, fed to an engine.
type source struct {
	e      *engine
	rd     *recordReader // files and stdin: called directly, no closure
	read   readFunc      // memory and live
	closer func() error
	count  *counter
	// recStart is the offset where the current record began.
	recStart int64
	// offsets says the input is a plain regular file, whose offsets the
	// Data events may carry.
	offsets bool
	gz      *inflated // gzip input, else nil
	size    int64
	name    string
	done    bool
	// stats, when set, adds live counters to Stats.
	stats func(Stats) Stats
	// quietEvery is Options.Quiet for a source that may wait; quiet its
	// read-ahead once started (quiet.go).
	quietEvery time.Duration
	quiet      *quietState
}

var _ Source = (*source)(nil)

// ClaimDatagrams implements DatagramClaimer.
func (s *source) ClaimDatagrams(f Flow) { s.e.udp.claim(s.e, f) }

func (s *source) Next() (*Event, error) {
	for {
		if s.e.pending() {
			return s.e.pop(), nil
		}
		if s.done {
			return nil, io.EOF
		}
		if q := s.quiet; q != nil && q.say {
			q.say = false
			return nil, ErrQuiet
		}
		s.e.reset()
		if s.quietEvery > 0 && s.rd != nil {
			if s.quiet == nil {
				s.startQuiet(s.quietEvery)
			}
			rec, ok := s.nextQuiet()
			if !ok {
				continue // the held data, then ErrQuiet
			}
			if rec.err != nil {
				s.recStart = rec.start
				s.end(rec.err)
				continue
			}
			s.e.packet(rec.data, -1, rec.ts, rec.iface, rec.link)
			continue
		}
		if r := s.rd; r != nil {
			data, err := r.next()
			if err != nil {
				s.recStart = r.start
				s.end(err)
				continue
			}
			off := int64(-1)
			if s.offsets {
				off = r.dataOff
			}
			s.e.packet(data, off, r.ts, r.iface, r.link)
			continue
		}
		data, ci, link, err := s.read()
		if err != nil {
			s.end(err)
			continue
		}
		s.e.packet(data, -1, ci.Timestamp, ci.InterfaceIndex, link)
	}
}

// end finishes the input; an error other than io.EOF is reported as a note
// after whatever was read before it.
func (s *source) end(err error) {
	s.done = true
	switch {
	case errors.Is(err, io.EOF):
	case errors.Is(err, errDecompressed):
		s.e.note("", Flow{}, LevelWarn, "%s: gzip input expands past %d bytes, the bound on decompressed input: read up to it, the rest is skipped", s.name, s.gz.max)
	case errors.Is(err, io.ErrUnexpectedEOF):
		s.e.note("", Flow{}, LevelWarn, "%s: truncated record at byte %d: read up to the cut", s.name, s.recStart)
	default:
		s.e.note("", Flow{}, LevelError, "%s: unreadable record at byte %d: %v; read up to it", s.name, s.recStart, err)
	}
	if r := s.rd; r != nil && r.untimed > 0 {
		first := ""
		if r.untimedFirst > 0 {
			first = fmt.Sprintf("; the %d before any timed frame take 1970-01-01 00:00:00 UTC", r.untimedFirst)
		}
		s.e.note("", Flow{}, LevelWarn, "%s: %d pcapng simple packet blocks carry no timestamp: each takes the time of the frame before it%s, so times and round trips through them are not measured",
			s.name, r.untimed, first)
	}
	if r := s.rd; r != nil && r.ifacesOver > 0 {
		s.e.note("", Flow{}, LevelWarn, "%s: %d pcapng interface description blocks past the first %d of their section were ignored, and the %d frames on those interfaces skipped",
			s.name, r.ifacesOver, r.maxIfaces, r.framesOver)
	}
	s.e.finish()
}

func (s *source) offset() int64 {
	if s.quiet != nil {
		return s.quiet.read // the reader's goroutine counts s.count
	}
	if s.count == nil {
		return 0
	}
	return s.count.n
}

func (s *source) Stats() Stats {
	st := s.e.stats
	st.Size = s.size
	st.Read = s.offset()
	if s.gz != nil && s.quiet == nil { // the quiet reader's goroutine counts it
		st.Decompressed = s.gz.n
	}
	if s.stats != nil {
		st = s.stats(st)
	}
	return st
}

func (s *source) Close() error {
	if q := s.quiet; q != nil && !q.closed {
		q.closed = true
		close(q.stop)
	}
	if s.closer == nil {
		return nil
	}
	c := s.closer
	s.closer = nil
	return c()
}

// errDecompressed ends a gzip input that expands past
// Options.MaxDecompressed.
var errDecompressed = errors.New("gzip input expands past the bound on decompressed input")

// inflated counts the bytes a gzip stream expands to, and ends it at max:
// a plain file's size bounds what it holds, a gzip file's does not
// (deflate packs up to 1032 bytes into one).
type inflated struct {
	r      io.Reader
	n, max int64
}

func (z *inflated) Read(p []byte) (int, error) {
	if z.n >= z.max {
		// At the bound: a stream that ends exactly here ends cleanly.
		var b [1]byte
		if m, err := z.r.Read(b[:]); m == 0 {
			return 0, err
		}
		return 0, errDecompressed
	}
	if rest := z.max - z.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := z.r.Read(p)
	z.n += int64(n)
	return n, err
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Open reads a pcap or pcapng file; "-" reads standard input, so that
// `tcpdump -U -w - port 27016 | usmnscope open -` works.
func Open(path string, opt Options) (Source, error) {
	if path == "-" {
		return NewReader(os.Stdin, "stdin", opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	src, err := newReader(f, path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		src.size = fi.Size()
		src.quietEvery = 0 // a regular file never waits
		src.offsets = src.gz == nil
	}
	src.closer = f.Close
	return src, nil
}

// NewReader reads a pcap (either byte order, micro- or nanosecond) or pcapng
// stream, told apart by its magic number; gzip-compressed input is unpacked
// first, up to Options.MaxDecompressed bytes. Input that is neither is an
// error naming the magic found.
func NewReader(r io.Reader, name string, opt Options) (Source, error) {
	s, err := newReader(r, name, opt)
	if err != nil {
		return nil, err
	}
	return s, nil
}

const (
	magicPcapMicro = 0xa1b2c3d4
	magicPcapNano  = 0xa1b23c4d
	magicPcapng    = 0x0a0d0d0a
)

func newReader(r io.Reader, name string, opt Options) (*source, error) {
	// raw counts input bytes for progress; the recordReader's slab knows
	// the exact offset reached, for notes.
	raw := &counter{r: r}
	sl := newSlab(raw)
	opt = opt.withDefaults()
	var gz *inflated
	sl.fill(4)
	head := sl.buf[sl.lo:sl.hi]
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(io.MultiReader(bytes.NewReader(head), raw))
		if err != nil {
			return nil, fmt.Errorf("capture: %s: gzip: %w", name, err)
		}
		gz = &inflated{r: zr, max: opt.MaxDecompressed}
		sl = newSlab(gz)
		sl.fill(4)
		head = sl.buf[sl.lo:sl.hi]
	}
	if len(head) < 4 {
		if sl.err != nil && sl.err != io.EOF {
			return nil, fmt.Errorf("capture: %s: %w", name, sl.err)
		}
		return nil, fmt.Errorf("capture: %s: not a pcap or pcapng file (only %d bytes)", name, len(head))
	}
	s := &source{e: newEngine(opt), name: name, size: -1, count: raw, gz: gz, quietEvery: opt.Quiet}
	le, be := binary.LittleEndian.Uint32(head), binary.BigEndian.Uint32(head)
	switch {
	case le == magicPcapMicro || le == magicPcapNano || be == magicPcapMicro || be == magicPcapNano:
		pr, err := newPcapReader(sl)
		if err != nil {
			return nil, fmt.Errorf("capture: %s: pcap %w", name, err)
		}
		s.rd = pr
	case le == magicPcapng:
		nr, err := newPcapngReader(sl)
		if err != nil {
			return nil, fmt.Errorf("capture: %s: pcapng header: %w", name, err)
		}
		nr.maxIfaces = opt.MaxInterfaces
		s.rd = nr
	default:
		return nil, fmt.Errorf("capture: %s: not a pcap or pcapng file (magic 0x%08x)", name, be)
	}
	return s, nil
}

// NewPackets returns a Source over frames held in memory (tests, replays).
func NewPackets(pkts []Packet, opt Options) Source {
	i := 0
	s := &source{e: newEngine(opt), name: "memory", size: -1}
	s.read = func() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
		if i >= len(pkts) {
			return nil, gopacket.CaptureInfo{}, 0, io.EOF
		}
		p := pkts[i]
		i++
		ci := gopacket.CaptureInfo{Timestamp: p.Time, CaptureLength: len(p.Data), Length: len(p.Data)}
		return p.Data, ci, p.Link, nil
	}
	return s
}
