package capture

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// pcapReader reads classic pcap records straight out of the bufio buffer
// (Peek and Discard: no copy for records that fit in it). It replaces
// pcapgo.Reader on the hot path, whose two io.ReadFull calls per record cost
// more than decoding the record; pcapgo still reads pcapng.
type pcapReader struct {
	br    *bufio.Reader
	order binary.ByteOrder
	nano  bool
	snap  uint32
	link  layers.LinkType
	big   []byte // records larger than the bufio buffer
	prev  int    // bytes of the previous record still to discard
	off   int64  // file offset of the next record
	start int64  // file offset of the record last returned
}

// maxRecord is libpcap's MAXIMUM_SNAPLEN; longer records are corrupt.
const maxRecord = 262144

func newPcapReader(br *bufio.Reader) (*pcapReader, error) {
	h, err := br.Peek(24)
	if err != nil {
		return nil, fmt.Errorf("file header: %w", unexpected(err))
	}
	r := &pcapReader{br: br}
	switch magic := binary.LittleEndian.Uint32(h); magic {
	case magicPcapMicro, magicPcapNano:
		r.order, r.nano = binary.LittleEndian, magic == magicPcapNano
	default:
		r.order, r.nano = binary.BigEndian, binary.BigEndian.Uint32(h) == magicPcapNano
	}
	if major := r.order.Uint16(h[4:]); major != 2 {
		return nil, fmt.Errorf("file header: version %d.%d, want 2.4", major, r.order.Uint16(h[6:]))
	}
	r.snap = r.order.Uint32(h[16:])
	// The upper bits of the link field carry FCS flags (pcap-linktype(7)).
	r.link = layers.LinkType(r.order.Uint32(h[20:]) & 0x0fffffff)
	br.Discard(24)
	r.off = 24
	return r, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// next returns the next record; data is valid until the next call. io.EOF
// means a clean end, io.ErrUnexpectedEOF a cut record.
func (r *pcapReader) next() ([]byte, gopacket.CaptureInfo, error) {
	var ci gopacket.CaptureInfo
	r.start = r.off
	if r.prev > 0 {
		r.br.Discard(r.prev)
		r.prev = 0
	}
	h, err := r.br.Peek(16)
	if err != nil {
		if err == io.EOF && len(h) == 0 {
			return nil, ci, io.EOF
		}
		return nil, ci, unexpected(err)
	}
	sec, frac := int64(r.order.Uint32(h[0:])), int64(r.order.Uint32(h[4:]))
	if !r.nano {
		frac *= 1000
	}
	ci.Timestamp = time.Unix(sec, frac).UTC()
	n, orig := r.order.Uint32(h[8:]), r.order.Uint32(h[12:])
	if n > maxRecord && n > r.snap {
		return nil, ci, fmt.Errorf("record length %d exceeds the snap length %d", n, r.snap)
	}
	ci.CaptureLength, ci.Length = int(n), int(orig)
	r.off += 16 + int64(n)
	if 16+int(n) <= r.br.Size() {
		b, err := r.br.Peek(16 + int(n))
		if err != nil {
			return nil, ci, unexpected(err)
		}
		r.prev = 16 + int(n)
		return b[16:], ci, nil
	}
	r.br.Discard(16)
	if cap(r.big) < int(n) {
		r.big = make([]byte, n)
	}
	b := r.big[:n]
	if _, err := io.ReadFull(r.br, b); err != nil {
		return nil, ci, unexpected(err)
	}
	return b, ci, nil
}
