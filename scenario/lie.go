package scenario

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// Lie is one [[lie]] table of a scenario: a length field of the written
// capture file that does not match what follows it, as a corrupt or
// hostile file has. Record numbers count the packet records of the file
// from 1; record 0 is the file header (pcap) or the interface block
// (pcapng), where only snaplen applies.
//
// A caplen larger than the record makes the reader take the next records'
// bytes as this one's (or run off the end of the file); a smaller one
// makes it read the rest of the record as the next header. The bytes
// written are always the packet's own.
type Lie struct {
	Record   int     `toml:"record"`
	CapLen   *uint32 `toml:"caplen"`    // the record's captured length
	OrigLen  *uint32 `toml:"orig_len"`  // the record's original length
	SnapLen  *uint32 `toml:"snaplen"`   // record 0: the file's snap length
	BlockLen *uint32 `toml:"block_len"` // pcapng: the block total length, both copies
	End      bool    `toml:"end"`       // the file ends after this record
}

// checkLies validates the [[lie]] tables.
func (s *Scenario) checkLies() error {
	seen := map[int]bool{}
	for i, l := range s.Lies {
		where := fmt.Sprintf("lie %d", i+1)
		if l.Record < 0 {
			return fmt.Errorf("%s: record: %d is negative", where, l.Record)
		}
		if seen[l.Record] {
			return fmt.Errorf("%s: record %d has two lies", where, l.Record)
		}
		seen[l.Record] = true
		if (l.Record == 0) != (l.SnapLen != nil) {
			return fmt.Errorf("%s: snaplen applies to record 0 only, and record 0 has only snaplen", where)
		}
	}
	return nil
}

// snapLen is the snap length written when no lie says otherwise.
const snapLen = 65535

// lyingWriter writes classic pcap (nanosecond) or pcapng by hand, so that
// any length field can hold what a Lie says.
type lyingWriter struct {
	bw    *bufio.Writer
	f     Format
	lies  map[int]Lie
	n     int  // records written
	ended bool // a lie ended the file
	b     []byte
}

func newLyingWriter(w io.Writer, f Format, l link, lies []Lie) (*lyingWriter, error) {
	lw := &lyingWriter{bw: bufio.NewWriterSize(w, 1<<16), f: f, lies: map[int]Lie{}}
	for _, l := range lies {
		lw.lies[l.Record] = l
	}
	snap := uint32(snapLen)
	if l0, ok := lw.lies[0]; ok && l0.SnapLen != nil {
		snap = *l0.SnapLen
	}
	le := binary.LittleEndian
	b := lw.b[:0]
	switch f {
	case PCAP:
		b = le.AppendUint32(b, 0xa1b23c4d) // nanosecond magic
		b = le.AppendUint16(b, 2)
		b = le.AppendUint16(b, 4)
		b = le.AppendUint64(b, 0) // thiszone, sigfigs
		b = le.AppendUint32(b, snap)
		b = le.AppendUint32(b, uint32(l.Type))
	case PCAPNG:
		// Section header block: no options, section length unknown (-1).
		b = le.AppendUint32(b, 0x0a0d0d0a)
		b = le.AppendUint32(b, 28)
		b = le.AppendUint32(b, 0x1a2b3c4d)
		b = le.AppendUint16(b, 1)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint64(b, ^uint64(0))
		b = le.AppendUint32(b, 28)
		// Interface description block with if_tsresol = 9 (nanoseconds).
		b = le.AppendUint32(b, 1)
		b = le.AppendUint32(b, 32)
		b = le.AppendUint16(b, uint16(l.Type))
		b = le.AppendUint16(b, 0)
		b = le.AppendUint32(b, snap)
		b = le.AppendUint16(b, 9)
		b = le.AppendUint16(b, 1)
		b = append(b, 9, 0, 0, 0)
		b = le.AppendUint32(b, 0) // opt_endofopt
		b = le.AppendUint32(b, 32)
	default:
		return nil, fmt.Errorf("scenario: format %s", f)
	}
	lw.b = b
	if _, err := lw.bw.Write(b); err != nil {
		return nil, fmt.Errorf("scenario: %s: %w", f, err)
	}
	return lw, nil
}

// write writes one packet record, lying where a Lie names it.
func (lw *lyingWriter) write(p Packet) error {
	if lw.ended {
		return nil
	}
	lw.n++
	l := lw.lies[lw.n]
	lw.ended = l.End
	capLen, origLen := uint32(len(p.Data)), uint32(len(p.Data))
	if l.CapLen != nil {
		capLen = *l.CapLen
	}
	if l.OrigLen != nil {
		origLen = *l.OrigLen
	}
	le := binary.LittleEndian
	ns := uint64(p.Time.UnixNano())
	b := lw.b[:0]
	if lw.f == PCAP {
		b = le.AppendUint32(b, uint32(ns/1e9))
		b = le.AppendUint32(b, uint32(ns%1e9))
		b = le.AppendUint32(b, capLen)
		b = le.AppendUint32(b, origLen)
		b = append(b, p.Data...)
	} else {
		pad := -len(p.Data) & 3
		block := uint32(32 + len(p.Data) + pad)
		if l.BlockLen != nil {
			block = *l.BlockLen
		}
		b = le.AppendUint32(b, 6) // enhanced packet block
		b = le.AppendUint32(b, block)
		b = le.AppendUint32(b, 0) // interface 0
		b = le.AppendUint32(b, uint32(ns>>32))
		b = le.AppendUint32(b, uint32(ns))
		b = le.AppendUint32(b, capLen)
		b = le.AppendUint32(b, origLen)
		b = append(b, p.Data...)
		b = append(b, make([]byte, pad)...)
		b = le.AppendUint32(b, block)
	}
	lw.b = b
	_, err := lw.bw.Write(b)
	return err
}

func (lw *lyingWriter) flush() error { return lw.bw.Flush() }
