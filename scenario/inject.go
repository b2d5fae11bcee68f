package scenario

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/usmnscope/usmnscope/unturned"
)

// Inject replays generated traffic onto a network interface, like
// tcpreplay: the frames the capture generator writes (Ethernet, IPv4, TCP
// with consistent sequence and acknowledgement numbers, the profile's
// transport port; wire.md 2) are sent as they are through a packet socket,
// with no TCP stack on either end. On lo the kernel loops every such frame
// back to the packet-socket readers, so that 'usmnscope live -i lo' sees it
// as real traffic, while the frames' MAC addresses are not lo's and so the
// IP stack ignores them. It measures the reader: a sender over real TCP
// connections (Sim) costs several times what the reader does per packet.
type Inject struct {
	Iface string  // interface to send on; "lo" when empty
	Rate  float64 // packets per second at most (0: as fast as possible)
	Count int     // load mix messages (Scale) sent after the scenario
	Conns int     // connections the load is spread over (default 1)
	Seed  uint64  // of the load mix
	// P is the profile of the load mix; nil: the scenario's, else the
	// default of wire.md 6.
	P *unturned.Profile
}

// InjectResult says what an injection sent.
type InjectResult struct {
	Packets  int
	Messages int
	Bytes    int64 // frame bytes
	Elapsed  time.Duration
}

// ErrInjectPermission is wrapped by Run's error when the packet socket
// cannot be opened for want of CAP_NET_RAW.
var ErrInjectPermission = errors.New("sending raw frames needs CAP_NET_RAW (run as root)")

// frameSender sends whole link-layer frames; the packet socket on Linux,
// a fake in tests.
type frameSender interface {
	send(frames [][]byte) error
	close() error
}

// maxBatch is the most frames handed to the kernel in one call
// (sendmmsg's limit is UIO_MAXIOV, 1024).
const maxBatch = 256

// Run sends the frames of every connection of sc (nil: none), then those
// of Count load mix messages, paced to Rate.
func (in *Inject) Run(ctx context.Context, sc *Scenario) (InjectResult, error) {
	iface := in.Iface
	if iface == "" {
		iface = "lo"
	}
	s, err := openFrameSender(iface)
	if err != nil {
		return InjectResult{}, err
	}
	res, err := in.run(ctx, s, sc)
	if cerr := s.close(); err == nil && cerr != nil {
		err = fmt.Errorf("inject: %w", cerr)
	}
	return res, err
}

// run generates into a frameWriter feeding s. The generators write
// classic pcap, which frameWriter cuts back into frames as it arrives, so
// that memory stays bounded by the generator's buffer however long the
// load.
func (in *Inject) run(ctx context.Context, s frameSender, sc *Scenario) (InjectResult, error) {
	var res InjectResult
	fw := newFrameWriter(ctx, s, in.Rate)
	if sc != nil {
		c := *sc
		// Frames go onto the wire as they are: an Ethernet header is what
		// lo and Ethernet interfaces take.
		c.Link = "ethernet"
		fw.reset()
		st, err := c.Generate(fw, PCAP)
		if err == nil {
			err = fw.flush()
		}
		res.Messages += st.Messages
		if err != nil {
			return fw.result(res), fmt.Errorf("inject: scenario: %w", err)
		}
	}
	if in.Count > 0 {
		p := in.P
		if p == nil && sc != nil {
			p = sc.P
		}
		fw.reset()
		st, err := Scale{Messages: in.Count, Conns: max(in.Conns, 1), Seed: in.Seed, Link: "ethernet", P: p}.Generate(fw, PCAP)
		if err == nil {
			err = fw.flush()
		}
		res.Messages += st.Messages
		if err != nil {
			return fw.result(res), fmt.Errorf("inject: load: %w", err)
		}
	}
	return fw.result(res), nil
}

// frameWriter is the io.Writer the generators write a classic pcap file
// to (little-endian, as pcapgo writes it): it cuts the stream into frames
// and sends them in batches, paced against a monotonic clock.
type frameWriter struct {
	ctx    context.Context
	s      frameSender
	rate   float64
	batch  int
	buf    []byte // bytes not yet cut into frames
	header bool   // the 24-byte file header has been skipped
	frames [][]byte

	start   time.Time // of the first frame sent (monotonic)
	packets int
	bytes   int64
}

const (
	pcapFileHeader   = 24
	pcapRecordHeader = 16
)

func newFrameWriter(ctx context.Context, s frameSender, rate float64) *frameWriter {
	b := maxBatch
	if rate > 0 {
		// About a millisecond of frames per batch: coarse enough that
		// pacing sleeps rarely, fine enough that the reader sees a steady
		// stream rather than bursts.
		b = min(max(int(rate/1000), 1), maxBatch)
	}
	return &frameWriter{ctx: ctx, s: s, rate: rate, batch: b}
}

// reset prepares for the next pcap file, which starts with its header.
func (fw *frameWriter) reset() {
	fw.buf = fw.buf[:0]
	fw.header = false
}

func (fw *frameWriter) Write(p []byte) (int, error) {
	if err := fw.ctx.Err(); err != nil {
		return 0, err
	}
	fw.buf = append(fw.buf, p...)
	b := fw.buf
	if !fw.header {
		if len(b) < pcapFileHeader {
			return len(p), nil
		}
		if binary.LittleEndian.Uint32(b) != 0xa1b23c4d {
			return 0, fmt.Errorf("inject: generator wrote no nanosecond pcap header (% x)", b[:4])
		}
		b = b[pcapFileHeader:]
		fw.header = true
	}
	for len(b) >= pcapRecordHeader {
		n := int(binary.LittleEndian.Uint32(b[8:]))
		if len(b) < pcapRecordHeader+n {
			break
		}
		fw.frames = append(fw.frames, b[pcapRecordHeader:pcapRecordHeader+n])
		b = b[pcapRecordHeader+n:]
		if len(fw.frames) == fw.batch {
			if err := fw.sendBatch(); err != nil {
				return 0, err
			}
		}
	}
	// The frames still queued point into buf: send them before the tail
	// is moved to its front.
	if err := fw.sendBatch(); err != nil {
		return 0, err
	}
	fw.buf = fw.buf[:copy(fw.buf, b)]
	return len(p), nil
}

// flush sends what is queued; the generator has flushed its buffer, so a
// partial record left over means a cut file.
func (fw *frameWriter) flush() error {
	if err := fw.sendBatch(); err != nil {
		return err
	}
	if len(fw.buf) > 0 {
		return fmt.Errorf("inject: %d bytes of a cut pcap record left", len(fw.buf))
	}
	return nil
}

// sendBatch sends the queued frames once the clock has caught up with
// them: the frames before them at Rate took packets/Rate seconds from
// the start. Waiting per batch, not per packet, keeps the sleeps few and
// long enough for the timer to honour them.
func (fw *frameWriter) sendBatch() error {
	if len(fw.frames) == 0 {
		return nil
	}
	if fw.start.IsZero() {
		fw.start = time.Now()
	} else if fw.rate > 0 {
		due := time.Duration(float64(fw.packets) / fw.rate * float64(time.Second))
		if ahead := due - time.Since(fw.start); ahead > 100*time.Microsecond {
			t := time.NewTimer(ahead)
			select {
			case <-t.C:
			case <-fw.ctx.Done():
				t.Stop()
				return fw.ctx.Err()
			}
		}
	}
	if err := fw.s.send(fw.frames); err != nil {
		return fmt.Errorf("inject: %w", err)
	}
	fw.packets += len(fw.frames)
	for _, f := range fw.frames {
		fw.bytes += int64(len(f))
	}
	clear(fw.frames)
	fw.frames = fw.frames[:0]
	return nil
}

func (fw *frameWriter) result(r InjectResult) InjectResult {
	r.Packets = fw.packets
	r.Bytes = fw.bytes
	if !fw.start.IsZero() {
		r.Elapsed = time.Since(fw.start)
	}
	return r
}
