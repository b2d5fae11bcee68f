package scenario

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// Format is a capture file format.
type Format uint8

const (
	PCAPNG Format = iota
	PCAP          // classic libpcap, nanosecond timestamps
)

var formatNames = [...]string{PCAPNG: "pcapng", PCAP: "pcap"}

func (f Format) String() string { return enum.Name(formatNames[:], f) }

// packetWriter writes packets in one format through a buffer.
type packetWriter struct {
	bw *bufio.Writer
	ng *pcapgo.NgWriter
	pc *pcapgo.Writer
	ci gopacket.CaptureInfo
	n  int
}

func newPacketWriter(w io.Writer, f Format, l link) (*packetWriter, error) {
	pw := &packetWriter{}
	switch f {
	case PCAPNG:
		// Fixed section and interface options (no host OS or architecture)
		// so that the file depends only on the scenario.
		intf := pcapgo.NgInterface{Name: "usmnscope", LinkType: l.Type, TimestampResolution: 9}
		opts := pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "usmnscope gen"}}
		ng, err := pcapgo.NewNgWriterInterface(w, intf, opts)
		if err != nil {
			return nil, fmt.Errorf("scenario: pcapng: %w", err)
		}
		pw.ng = ng
	case PCAP:
		pw.bw = bufio.NewWriterSize(w, 1<<16)
		pw.pc = pcapgo.NewWriterNanos(pw.bw)
		if err := pw.pc.WriteFileHeader(65535, l.Type); err != nil {
			return nil, fmt.Errorf("scenario: pcap: %w", err)
		}
	default:
		return nil, fmt.Errorf("scenario: format %s", f)
	}
	return pw, nil
}

func (pw *packetWriter) write(p Packet) error {
	pw.ci.Timestamp = p.Time
	pw.ci.CaptureLength = len(p.Data)
	pw.ci.Length = len(p.Data)
	pw.n++
	if pw.ng != nil {
		return pw.ng.WritePacket(pw.ci, p.Data)
	}
	return pw.pc.WritePacket(pw.ci, p.Data)
}

func (pw *packetWriter) flush() error {
	if pw.ng != nil {
		return pw.ng.Flush()
	}
	return pw.bw.Flush()
}

// Stats counts what a generator wrote.
type Stats struct {
	Conns    int
	Messages int
	Packets  int
	Bytes    int64 // packet bytes
}

// connStagger is how far apart the connections of a scenario start, so
// that connections with the same script interleave in the capture.
const connStagger = 300 // microseconds

// Packets plays the scenario and returns its packets in capture order:
// each connection's packets in the order sent, connections merged by time.
func (s *Scenario) Packets() ([]Packet, Stats, error) {
	scripts, err := s.Scripts()
	if err != nil {
		return nil, Stats{}, err
	}
	l := linkTypes[s.Link]
	var all []Packet
	st := Stats{Conns: len(scripts)}
	for i := range scripts {
		sc := &scripts[i]
		start := s.Start.Add(time.Duration(i*connStagger) * time.Microsecond)
		f := newFlow(s.Seed, sc.Conn, l, sc.Transport, start, func(p Packet) { p.Data = slices.Clone(p.Data); all = append(all, p) })
		f.play(sc)
		st.Messages += sc.Messages
	}
	slices.SortStableFunc(all, func(a, b Packet) int { return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano()) })
	st.Packets = len(all)
	for _, p := range all {
		st.Bytes += int64(len(p.Data))
	}
	return all, st, nil
}

// Generate writes the scenario's capture to w.
func (s *Scenario) Generate(w io.Writer, f Format) (Stats, error) {
	if s.hostile() {
		return s.generateHostile(w, f)
	}
	ps, st, err := s.Packets()
	if err != nil {
		return st, err
	}
	return st, writePackets(w, f, s.Link, ps)
}

// writePackets writes ps as a capture of format f on the named link: the
// one writer of Unturned and ULinkRPC scenarios.
func writePackets(w io.Writer, f Format, link string, ps []Packet) error {
	pw, err := newPacketWriter(w, f, linkTypes[link])
	if err != nil {
		return err
	}
	for _, p := range ps {
		if err := pw.write(p); err != nil {
			return fmt.Errorf("scenario: %w", err)
		}
	}
	if err := pw.flush(); err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	return nil
}
