// Command floor is the yardstick of issue 18, not product code: the least
// work any reader of a SystemSockets capture must do. It reads a pcap or
// pcapng file, appends each TCP flow direction's in-order payload to a
// buffer and cuts every frame with a 2-byte big-endian length header off
// it (wire.md 2), nothing more: no decoding, no tables, no output but one
// count line. `tables --json` is measured against its time (bench/report.sh).
//
// Usage: floor CAPTURE
package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// key is one direction of a TCP flow: addresses and ports as raw bytes.
type key struct {
	src, dst [16]byte
	sp, dp   uint16
}

type flow struct {
	next   uint32 // next expected sequence number
	synced bool
	buf    []byte
}

type floor struct {
	flows    map[key]*flow
	messages int
	bytes    int64
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor CAPTURE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	defer f.Close()
	fl := &floor{flows: map[key]*flow{}}
	if err := fl.read(bufio.NewReaderSize(f, 1<<20)); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Printf("%d messages, %d payload bytes, %d flow directions\n", fl.messages, fl.bytes, len(fl.flows))
}

// read walks the records of a pcap or pcapng file.
func (fl *floor) read(r *bufio.Reader) error {
	magic, err := r.Peek(4)
	if err != nil {
		return err
	}
	switch binary.LittleEndian.Uint32(magic) {
	case 0x0A0D0D0A:
		return fl.pcapng(r)
	case 0xa1b2c3d4, 0xa1b23c4d:
		return fl.pcap(r, binary.LittleEndian)
	case 0xd4c3b2a1, 0x4d3cb2a1:
		return fl.pcap(r, binary.BigEndian)
	}
	return fmt.Errorf("not a pcap or pcapng file")
}

func (fl *floor) pcap(r *bufio.Reader, bo binary.ByteOrder) error {
	var hdr [24]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	link := bo.Uint32(hdr[20:]) & 0xFFFF
	buf := make([]byte, 0, 1<<16)
	for {
		var ph [16]byte
		if _, err := io.ReadFull(r, ph[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		n := int(bo.Uint32(ph[8:]))
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		fl.packet(link, buf)
	}
}

func (fl *floor) pcapng(r *bufio.Reader) error {
	var links []uint32
	bo := binary.ByteOrder(binary.LittleEndian)
	buf := make([]byte, 0, 1<<16)
	for {
		var bh [8]byte
		if _, err := io.ReadFull(r, bh[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		typ := bo.Uint32(bh[:])
		if typ == 0x0A0D0D0A {
			// Section header: its byte-order magic follows the length.
			m, err := r.Peek(4)
			if err != nil {
				return err
			}
			if binary.LittleEndian.Uint32(m) == 0x1A2B3C4D {
				bo = binary.LittleEndian
			} else {
				bo = binary.BigEndian
			}
			links = links[:0]
		}
		n := int(bo.Uint32(bh[4:])) - 8
		if n < 4 {
			return fmt.Errorf("pcapng block of %d bytes", n+8)
		}
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		switch typ {
		case 1: // interface description
			links = append(links, uint32(bo.Uint16(buf)))
		case 6: // enhanced packet
			id, capLen := bo.Uint32(buf), int(bo.Uint32(buf[12:]))
			if int(id) < len(links) && 20+capLen <= len(buf) {
				fl.packet(links[id], buf[20:20+capLen])
			}
		case 3: // simple packet
			if len(links) > 0 {
				fl.packet(links[0], buf[4:len(buf)-4])
			}
		}
	}
}

// packet finds the TCP segment of one link-layer frame.
func (fl *floor) packet(link uint32, b []byte) {
	switch link {
	case 1: // Ethernet
		if len(b) < 14 {
			return
		}
		et := binary.BigEndian.Uint16(b[12:])
		b = b[14:]
		if et == 0x8100 && len(b) >= 4 {
			et, b = binary.BigEndian.Uint16(b[2:]), b[4:]
		}
		if et != 0x0800 && et != 0x86DD {
			return
		}
	case 101, 12, 14: // raw IP
	case 113: // Linux SLL
		if len(b) < 16 {
			return
		}
		b = b[16:]
	case 276: // Linux SLL2
		if len(b) < 20 {
			return
		}
		b = b[20:]
	case 0: // BSD null
		if len(b) < 4 {
			return
		}
		b = b[4:]
	default:
		return
	}
	fl.ip(b)
}

func (fl *floor) ip(b []byte) {
	var k key
	if len(b) < 20 {
		return
	}
	switch b[0] >> 4 {
	case 4:
		hl := int(b[0]&15) * 4
		total := int(binary.BigEndian.Uint16(b[2:]))
		if b[9] != 6 || hl < 20 || total < hl || total > len(b) || binary.BigEndian.Uint16(b[6:])&0x3FFF != 0 {
			return
		}
		copy(k.src[:], b[12:16])
		copy(k.dst[:], b[16:20])
		b = b[hl:total]
	case 6:
		if len(b) < 40 || b[6] != 6 {
			return
		}
		total := 40 + int(binary.BigEndian.Uint16(b[4:]))
		if total > len(b) {
			return
		}
		copy(k.src[:], b[8:24])
		copy(k.dst[:], b[24:40])
		b = b[40:total]
	default:
		return
	}
	fl.tcp(k, b)
}

func (fl *floor) tcp(k key, b []byte) {
	if len(b) < 20 {
		return
	}
	k.sp, k.dp = binary.BigEndian.Uint16(b), binary.BigEndian.Uint16(b[2:])
	seq := binary.BigEndian.Uint32(b[4:])
	off := int(b[12]>>4) * 4
	flags := b[13]
	if off < 20 || off > len(b) {
		return
	}
	payload := b[off:]
	f := fl.flows[k]
	if f == nil {
		f = &flow{}
		fl.flows[k] = f
	}
	if flags&0x02 != 0 { // SYN
		f.next, f.synced = seq+1, true
		return
	}
	if !f.synced {
		f.next, f.synced = seq, true
	}
	// In order only: a retransmitted head is trimmed, a segment past a
	// hole is dropped (the floor does no reassembly of its own).
	d := int32(f.next - seq)
	if d < 0 || int(d) >= len(payload) {
		return
	}
	payload = payload[d:]
	f.next += uint32(len(payload))
	fl.bytes += int64(len(payload))
	f.buf = append(f.buf, payload...)
	fl.cut(f)
}

// cut removes every whole frame from the front of f.buf.
func (fl *floor) cut(f *flow) {
	b := f.buf
	i := 0
	for len(b)-i >= 2 {
		n := int(b[i])<<8 | int(b[i+1])
		if len(b)-i-2 < n {
			break
		}
		i += 2 + n
		fl.messages++
	}
	if i == len(b) {
		f.buf = b[:0]
		return
	}
	f.buf = b[:copy(b, b[i:])]
}
