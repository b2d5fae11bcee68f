//go:build linux

package capture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/afpacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"golang.org/x/sys/unix"
)

// pollTimeout bounds how long Close waits for a blocked read.
const pollTimeout = 100 * time.Millisecond

// The ring is TPACKET_V3: the kernel packs packets of any size back to back
// into blocks and hands user space a whole block at once, so a burst of
// small segments (simulate --full-speed on lo: tens to hundreds of
// thousands a second) costs one poll per block, not one per packet. 64 MiB
// buffer some 500,000 small packets (each takes its 48-byte V3 header, the
// address and its bytes: ~130 bytes for a small segment on lo) while the
// decoder catches up: the ring is what keeps the kernel from dropping when
// the reader is descheduled on a loaded machine. A block is handed over
// when full or ringBlockTimeout after its first packet, so a slow trickle
// leaves blocks part empty: 256 KiB blocks waste less of the ring at
// moderate rates than 1 MiB ones and still hold the largest packet lo
// delivers (its MTU, 64 KiB). The memory is the kernel's, locked for the
// life of the capture.
const (
	ringBlockSize    = 256 << 10
	ringFrameSize    = 1 << 16 // V3 only checks that it divides the block size; packets are packed
	ringBlocks       = 256
	ringBlockTimeout = 100 * time.Millisecond // a block is handed over at most this late
)

// live is the Source of OpenLive: an AF_PACKET TPACKET_V3 ring read without
// libpcap or cgo.
type live struct {
	*source
	mu     sync.Mutex // held while reading the ring and writing the file, so Close never unmaps or flushes under them
	h      *afpacket.TPacket
	ring   Ring // LiveOptions.Ring (tests): read instead of h, which is nil
	closed atomic.Bool
	iface  string // the interface asked for, "" for all
	// inUse (under mu) says the engine still holds the last packet read,
	// which lives in the ring: a Close from another goroutine must leave
	// the unmapping to the reader's next read (Ctrl-C under load).
	inUse    bool
	finished bool  // under mu: the Write file is flushed and closed
	closeErr error // under mu: what Close returns, every time
	rerr     error // the read error that ended the capture, for Next

	// Kernel counters, refreshed by the reading goroutine at most every
	// statsEvery so that new drops become a note.
	lastStats        time.Time
	kPackets, kDrops atomic.Uint64
	notedDrops       uint64
	lastNote         time.Time // of kernel drops
	filterAt         time.Time // when the kernel filter took effect
	lastFlush        time.Time // of the Write file

	// The Write file. wmu guards it (taken under mu by the reader, alone
	// by Sync), so that a decoder reading the file back flushes it without
	// waiting out a blocked ring poll.
	wmu   sync.Mutex
	file  *os.File
	fw    *sizeWriter // between bw and file: the bytes the file holds
	saved int64       // file size after the last packet saved whole
	bw    *bufio.Writer
	ng    *pcapgo.NgWriter
	werr  error
	// pos is the file offset of the next packet block, counting what the
	// writers still buffer; a flush checks it against the file's size.
	pos int64
	// failNote is a write error Sync met, for the reader to note (the
	// engine is the reader's).
	failNote error

	// The last packet read (reader only): its bytes, and the file offset
	// of its first byte in the Write file, -1 when it is not saved. Next
	// gives a Data event that is a run of those bytes its file offset.
	pktData []byte
	pktOff  int64
}

// epbHeader is the size of a pcapng Enhanced Packet Block before the
// packet bytes (type, length, interface, two timestamp words, captured and
// original length); the block ends with the bytes padded to 4 and the
// length again (pcapng EPB, no options: what pcapgo's WritePacket writes).
const epbHeader = 28

// epbSize is the size of the block pcapgo writes for a packet of n bytes.
func epbSize(n int) int64 {
	return int64(epbHeader + n + (4-n&3)&3 + 4)
}

// The --write file goes through a large buffer flushed at most flushEvery
// after a packet was saved (checked on every packet and on every idle poll
// timeout) and on Close. Flushing every packet cost a write system call per
// packet and was the live reader's slowest step under load.
const (
	writeBuffer = 4 << 20
	flushEvery  = 100 * time.Millisecond
)

// OpenLive captures on a network interface. The socket is cooked
// (SOCK_DGRAM): frames start at the IP header on every interface, "any"
// included, so they are handed on as LINKTYPE_RAW, and saved so with Write.
// It needs CAP_NET_RAW; without it the error wraps ErrPermission.
func OpenLive(opt LiveOptions) (Source, error) {
	snap := opt.SnapLen
	if snap <= 0 {
		snap = DefaultSnapLen
	}
	if opt.Ring != nil {
		// A test's packets: no socket, no kernel filter, no stamps to
		// drop; the same saving and offsets as the ring's packets.
		return openWrite(opt, &live{ring: opt.Ring, pktOff: -1}, snap)
	}
	iface := opt.Interface
	if iface == "any" {
		iface = ""
	}
	if iface != "" {
		if _, err := net.InterfaceByName(iface); err != nil {
			return nil, fmt.Errorf("capture: no interface %q: %s", opt.Interface, interfaceList())
		}
	}
	args := []any{
		afpacket.SocketDgram,
		afpacket.OptPollTimeout(pollTimeout),
		afpacket.OptTPacketVersion(afpacket.TPacketVersion3),
		afpacket.OptBlockSize(ringBlockSize),
		afpacket.OptFrameSize(ringFrameSize),
		afpacket.OptNumBlocks(ringBlocks),
		afpacket.OptBlockTimeout(ringBlockTimeout),
	}
	if iface != "" {
		args = append(args, afpacket.OptInterface(iface))
	}
	h, err := afpacket.NewTPacket(args...)
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil, fmt.Errorf("%w (%v)", ErrPermission, err)
		}
		return nil, fmt.Errorf("capture: live capture on %q: %w", opt.Interface, err)
	}
	l := &live{h: h, iface: iface, pktOff: -1}
	fail := func(err error) (Source, error) {
		h.Close()
		return nil, err
	}
	lo := loopbackIndex()
	if opt.BPF {
		if err := h.SetBPF(portFilter(kernelPorts(opt), snap, lo)); err != nil {
			return fail(fmt.Errorf("capture: kernel filter: %w", err))
		}
	} else if err := h.SetBPF(acceptAll(snap, lo)); err != nil {
		return fail(fmt.Errorf("capture: kernel snap length: %w", err))
	}
	// From socket() to SetBPF the kernel queued every packet of the
	// interface, unfiltered and uncut, and the ring keeps them: read drops
	// those stamped before now, as libpcap drains its socket after setting
	// a filter.
	l.filterAt = time.Now()
	if opt.Promiscuous && iface != "" {
		if err := h.SetPromiscuous(true); err != nil {
			return fail(fmt.Errorf("capture: promiscuous mode on %q: %w", iface, err))
		}
	}
	return openWrite(opt, l, snap)
}

// openWrite opens opt's Write file for l, a live capture whose packets
// come from its ring or from opt.Ring, and makes l a Source.
func openWrite(opt LiveOptions, l *live, snap int) (Source, error) {
	fail := func(err error) (Source, error) {
		l.closeRing()
		if l.file != nil {
			l.file.Close()
		}
		return nil, err
	}
	if opt.Write != "" {
		f, err := os.Create(opt.Write)
		if err != nil {
			return fail(fmt.Errorf("capture: --write: %w", err))
		}
		l.file = f
		l.fw = &sizeWriter{w: f}
		l.bw = bufio.NewWriterSize(l.fw, writeBuffer)
		name := opt.Interface
		if name == "" {
			name = "any"
		}
		ng, err := pcapgo.NewNgWriterInterface(l.bw, pcapgo.NgInterface{Name: name, LinkType: layers.LinkTypeRaw, SnapLength: uint32(snap)}, pcapgo.DefaultNgWriterOptions)
		if err == nil {
			err = ng.Flush()
		}
		if err == nil {
			err = l.bw.Flush()
		}
		if err != nil {
			return fail(fmt.Errorf("capture: --write %s: %w", opt.Write, err))
		}
		l.ng = ng
		l.saved = l.fw.n
		l.pos = l.fw.n
	}
	l.source = &source{e: newEngine(opt.withDefaults()), name: opt.Interface, size: -1, read: l.read, stats: l.kernelStats}
	return l, nil
}

// closeRing closes the packet socket (a no-op for LiveOptions.Ring's).
func (l *live) closeRing() {
	if l.h != nil {
		l.h.Close()
	}
}

// readRing reads the next packet from the ring, or from LiveOptions.Ring.
func (l *live) readRing() ([]byte, gopacket.CaptureInfo, error) {
	if l.ring != nil {
		return l.ring.ReadPacket()
	}
	return l.h.ZeroCopyReadPacketData()
}

// interfaceList says which interfaces there are, for an error naming one
// that is not (issue 30: Go's "route ip+net: no such network interface"
// left the user to find the names).
func interfaceList() string {
	ifs, err := net.Interfaces()
	if err != nil || len(ifs) == 0 {
		return "no network interface could be listed (\"any\" captures on all)"
	}
	names := make([]string, 0, len(ifs)+1)
	for _, ifc := range ifs {
		names = append(names, termsafe.Escape(ifc.Name))
	}
	names = append(names, "any (all of them)")
	return "the interfaces here are " + strings.Join(names, ", ")
}

// loopbackIndex returns the index of the loopback interface, 0 if none.
func loopbackIndex() int {
	ifs, err := net.Interfaces()
	if err != nil {
		return 0
	}
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback != 0 {
			return i.Index
		}
	}
	return 0
}

// read returns the next packet of the ring, saving it first when writing:
// what a later event shows is on disk before the event exists.
func (l *live) read() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
	for {
		l.mu.Lock()
		l.inUse = false // the engine is done with the previous packet
		if l.closed.Load() {
			l.closeRing() // a no-op unless Close left it to us
			l.mu.Unlock()
			return nil, gopacket.CaptureInfo{}, 0, io.EOF
		}
		data, ci, err := l.readRing()
		if errors.Is(err, afpacket.ErrTimeout) || errors.Is(err, unix.EINTR) {
			now := time.Now()
			l.wmu.Lock()
			l.flush(now)
			l.wmu.Unlock()
			l.mu.Unlock()
			l.checkDrops(now)
			continue
		}
		if err != nil && l.ring != nil && errors.Is(err, io.EOF) {
			l.mu.Unlock()
			return nil, ci, 0, io.EOF // LiveOptions.Ring's packets are all read
		}
		if err != nil {
			l.mu.Unlock()
			// The source ends cleanly (no "unreadable record" note);
			// Next returns the reason instead of io.EOF.
			l.rerr = l.readError(err)
			return nil, ci, 0, io.EOF
		}
		if ci.Timestamp.Before(l.filterAt) {
			l.mu.Unlock()
			continue
		}
		l.inUse = true
		l.pktData, l.pktOff = data, l.save(ci, data)
		l.mu.Unlock()
		l.checkDrops(ci.Timestamp)
		return data, ci, layers.LinkTypeRaw, nil
	}
}

// Next is the source's Next, except that a capture stopped by a failed
// read (a deleted or downed interface) ends with that error, not io.EOF:
// the command then exits with a message naming the interface.
//
// With Write, a Data event that is a run of the last packet's bytes (an
// in-order segment's payload as it is, the case file sources give an
// offset for) carries the file offset of Data[0] in the Write file, so that
// a decoder given the file as its store (Sync before reading) need not
// keep the bytes.
func (l *live) Next() (*Event, error) {
	ev, err := l.source.Next()
	if errors.Is(err, io.EOF) && l.rerr != nil {
		return nil, l.rerr
	}
	if err != nil {
		return nil, err
	}
	if ev.Kind == EventData && l.pktOff >= 0 && len(ev.Data) > 0 {
		// As engine.offset: the capacity difference locates the run in
		// the packet, the address check proves it is not a copy.
		d := l.pktData
		if i := cap(d) - cap(ev.Data); i >= 0 && i+len(ev.Data) <= len(d) && &d[i] == &ev.Data[0] {
			ev.Offset = l.pktOff + int64(i)
		}
	}
	return ev, err
}

// Sync writes the packets the Write file buffers out to it, so that every
// offset Next gave is readable from the file. It is safe to call from any
// goroutine while the capture runs, and a no-op without Write or after
// Close.
func (l *live) Sync() error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if l.ng == nil || l.werr != nil {
		return l.werr
	}
	if err := l.flushNow(); err != nil {
		l.failNote = err
		return err
	}
	return nil
}

// readError explains a failed ring read. The kernel reports a deleted or
// downed interface by setting ENETDOWN on the socket, which poll shows as
// POLLERR and afpacket returns as ErrPoll; the interface's state says which.
func (l *live) readError(err error) error {
	if l.iface != "" {
		ifc, ierr := net.InterfaceByName(l.iface)
		switch {
		case ierr != nil:
			return fmt.Errorf("capture: interface %q went away (%v): capture stopped", l.iface, err)
		case ifc.Flags&net.FlagUp == 0:
			return fmt.Errorf("capture: interface %q went down (%v): capture stopped", l.iface, err)
		}
	}
	name := l.iface
	if name == "" {
		name = "any"
	}
	return fmt.Errorf("capture: live read on %q: %w: capture stopped", name, err)
}

// save writes the packet to the Write file and returns the file offset of
// its first byte, -1 when it is not saved.
func (l *live) save(ci gopacket.CaptureInfo, data []byte) int64 {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if err := l.failNote; err != nil {
		l.failNote = nil
		l.e.note("", Flow{}, LevelError, "--write: %v: later packets are not saved", err)
	}
	if l.ng == nil || l.werr != nil {
		return -1
	}
	ci.InterfaceIndex = 0
	if err := l.ng.WritePacket(ci, data); err != nil {
		l.writeFailed(err)
		l.e.note("", Flow{}, LevelError, "--write: %v: later packets are not saved", l.werr)
		return -1
	}
	at := l.pos + epbHeader
	l.pos += epbSize(len(data))
	l.flush(ci.Timestamp)
	if l.werr != nil {
		return -1
	}
	return at
}

// flush writes the buffered packets out when the last flush is flushEvery
// old (under wmu). now is a packet's capture time or the clock on an idle
// poll; either advances, so saved packets reach the disk within about
// flushEvery.
func (l *live) flush(now time.Time) {
	if l.ng == nil || l.werr != nil || now.Sub(l.lastFlush) < flushEvery {
		return
	}
	l.lastFlush = now
	if err := l.flushNow(); err != nil {
		l.e.note("", Flow{}, LevelError, "--write: %v: later packets are not saved", err)
	}
}

// flushNow writes the buffers out (under wmu); a failure stops saving
// (writeFailed) and is returned for the caller to note.
func (l *live) flushNow() error {
	err := l.ng.Flush()
	if err == nil {
		err = l.bw.Flush()
	}
	if err == nil && l.fw.n != l.pos {
		// The offsets Next gives assume pcapgo's block layout; should
		// it ever differ, they must stop rather than point wrong.
		err = fmt.Errorf("file holds %d bytes, %d expected: packet offsets lost", l.fw.n, l.pos)
	}
	if err != nil {
		l.writeFailed(err)
		return l.werr
	}
	l.saved = l.fw.n // a flush ends at a packet boundary
	return nil
}

// writeFailed stops saving after a failed write. The file is cut back to
// the last flush, so that it stays a valid capture; the packets buffered
// since (at most flushEvery of them) are lost with the later ones.
func (l *live) writeFailed(err error) {
	l.werr = err
	// A full disk (or RLIMIT_FSIZE) takes part of the packet's block:
	// cut it off so that the file stays a valid capture of every
	// packet before it (tshark reads it without "cut short").
	if terr := l.file.Truncate(l.saved); terr != nil {
		l.werr = fmt.Errorf("%w (and cutting the partial packet off: %v)", err, terr)
	}
}

// sizeWriter counts the bytes written through it.
type sizeWriter struct {
	w io.Writer
	n int64
}

func (s *sizeWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.n += int64(n)
	return n, err
}

// statsEvery is the least time between two notes of kernel drops.
const statsEvery = time.Second

// refresh reads the kernel's packet and drop counters (afpacket
// accumulates them: the kernel resets them on each read).
func (l *live) refresh() {
	if l.h == nil {
		return
	}
	s2, s3, err := l.h.SocketStats()
	if err != nil {
		return
	}
	l.kPackets.Store(uint64(s2.Packets()) + uint64(s3.Packets()))
	l.kDrops.Store(uint64(s2.Drops()) + uint64(s3.Drops()))
}

// statsFresh is how old the kernel counters Stats reports may be: the
// reader refreshes them at most this often, timed by the packets' capture
// times (free: the ring carries them) or by the clock on an idle poll.
// Stats runs after every event (feed's progress) and only loads them;
// reading the clock or the counters there (a system call) cost more than
// a tenth of the reader's time at 50,000 packets/s.
const statsFresh = 100 * time.Millisecond

// checkDrops notes packets the kernel dropped since the last note: the
// reassembly will show gaps there.
func (l *live) checkDrops(now time.Time) {
	if now.Sub(l.lastStats) < statsFresh {
		return
	}
	l.lastStats = now
	l.mu.Lock()
	if !l.closed.Load() {
		l.refresh()
	}
	l.mu.Unlock()
	if d := l.kDrops.Load(); d > l.notedDrops && now.Sub(l.lastNote) >= statsEvery {
		l.lastNote = now
		l.e.noteOf(noteDrops, "", Flow{}, LevelWarn, "the kernel dropped %d packets (%d in all): expect gaps; filter harder or use a faster disk for --write", d-l.notedDrops, d)
		l.notedDrops = d
	}
}

func (l *live) kernelStats(st Stats) Stats {
	st.Live = true
	st.KernelPackets = l.kPackets.Load()
	st.KernelDrops = l.kDrops.Load()
	return st
}

// Close stops the capture (a Next blocked in another goroutine returns
// io.EOF within pollTimeout) and flushes and closes the Write file. It may
// be called from any goroutine (a signal handler's) and more than once;
// every call returns once the file is closed, with the same error. While
// the reader still holds a packet, the ring is unmapped by its next read
// instead, so that Ctrl-C under load never faults.
func (l *live) Close() error {
	l.closed.Store(true)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.finished {
		l.refresh() // the final counters, for a Stats after Close
	}
	if !l.inUse {
		l.closeRing()
	}
	if l.finished {
		return l.closeErr
	}
	l.finished = true
	var err error
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if l.file != nil {
		err = l.ng.Flush()
		if e := l.bw.Flush(); err == nil {
			err = e
		}
		if e := l.file.Close(); err == nil {
			err = e
		}
		l.ng = nil // a packet read after this is not saved
	}
	if err == nil {
		err = l.werr
	}
	if err != nil {
		err = fmt.Errorf("capture: --write: %w (the packets before it are saved)", err)
	}
	l.closeErr = err
	return err
}
