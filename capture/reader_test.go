package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// ngFile builds pcapng files block by block (pcapng §3), in either byte
// order, so that tests can write what gopacket's writer cannot: other
// resolutions, simple and obsolete packet blocks, unknown blocks, several
// sections, and lies.
type ngFile struct {
	be bool
	b  []byte
}

func (w *ngFile) order() binary.AppendByteOrder {
	if w.be {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func (w *ngFile) u16(v uint16) []byte { return w.order().AppendUint16(nil, v) }
func (w *ngFile) u32(v uint32) []byte { return w.order().AppendUint32(nil, v) }
func (w *ngFile) u64(v uint64) []byte { return w.order().AppendUint64(nil, v) }

func pad4(b []byte) []byte { return append(b, make([]byte, (4-len(b)%4)%4)...) }

// block appends a block of the given type around body (padded to 32 bits);
// it returns the block's offset.
func (w *ngFile) block(typ uint32, body ...[]byte) int {
	var bb []byte
	for _, p := range body {
		bb = append(bb, p...)
	}
	bb = pad4(bb)
	at := len(w.b)
	n := uint32(12 + len(bb))
	w.b = append(w.b, w.u32(typ)...)
	w.b = append(w.b, w.u32(n)...)
	w.b = append(w.b, bb...)
	w.b = append(w.b, w.u32(n)...)
	return at
}

func (w *ngFile) opt(code uint16, v []byte) []byte {
	return pad4(append(append(w.u16(code), w.u16(uint16(len(v)))...), v...))
}

func (w *ngFile) shb(major uint16) {
	w.block(ngSection, w.u32(ngBOM), w.u16(major), w.u16(0), w.u64(^uint64(0)))
}

func (w *ngFile) idb(link layers.LinkType, snap uint32, opts ...[]byte) {
	body := [][]byte{w.u16(uint16(link)), w.u16(0), w.u32(snap)}
	body = append(body, opts...)
	if len(opts) > 0 {
		body = append(body, w.opt(0, nil))
	}
	w.block(ngInterface, body...)
}

// epb appends an Enhanced Packet Block; it returns the offset of the data.
func (w *ngFile) epb(iface uint32, ts uint64, data []byte) int {
	return w.block(ngEnhanced, w.u32(iface), w.u32(uint32(ts>>32)), w.u32(uint32(ts)), w.u32(uint32(len(data))), w.u32(uint32(len(data))), data) + 28
}

// pb appends an obsolete Packet Block; it returns the offset of the data.
func (w *ngFile) pb(iface uint16, ts uint64, data []byte) int {
	return w.block(ngPacket, w.u16(iface), w.u16(0), w.u32(uint32(ts>>32)), w.u32(uint32(ts)), w.u32(uint32(len(data))), w.u32(uint32(len(data))), data) + 28
}

// spb appends a Simple Packet Block; it returns the offset of the data.
func (w *ngFile) spb(orig uint32, data []byte) int {
	return w.block(ngSimple, w.u32(orig), data) + 12
}

// frameRead is one frame as recordReader returned it.
type frameRead struct {
	link  layers.LinkType
	iface int
	ts    time.Time
	data  string
	off   int64
}

func (f frameRead) String() string {
	return fmt.Sprintf("{link %d iface %d ts %s data %q off %d}", f.link, f.iface, f.ts.Format(time.RFC3339Nano), f.data, f.off)
}

// readFrames reads every frame of a capture through recordReader.
func readFrames(t *testing.T, r io.Reader) ([]frameRead, error) {
	t.Helper()
	s := newSlab(r)
	s.fill(4)
	var rd *recordReader
	var err error
	if s.buffered() >= 4 && binary.LittleEndian.Uint32(s.buf[s.lo:]) == magicPcapng {
		rd, err = newPcapngReader(s)
	} else {
		rd, err = newPcapReader(s)
	}
	if err != nil {
		return nil, err
	}
	var out []frameRead
	for range 1_000_000 {
		data, err := rd.next()
		if err != nil {
			return out, err
		}
		out = append(out, frameRead{rd.link, rd.iface, rd.ts, string(data), rd.dataOff})
	}
	t.Fatal("readFrames: no end after 1M frames")
	return nil, nil
}

// richPcapng is a pcapng with three interfaces of different resolutions,
// every packet block type, skipped blocks, more sections, and a packet on
// an interface no block described.
func richPcapng(be bool) ([]byte, []frameRead) {
	w := &ngFile{be: be}
	var want []frameRead
	at := func(sec, nsec int64) time.Time { return time.Unix(sec, nsec).UTC() }
	w.shb(1)
	w.block(0x0bad, []byte("an unknown block"))
	w.idb(layers.LinkTypeEthernet, 65535, w.opt(2, []byte("eth0"))) // name only: microseconds
	w.idb(layers.LinkTypeRaw, 0, w.opt(9, []byte{9}), w.opt(14, w.u64(100)))
	w.idb(layers.LinkTypeLinuxSLL, 0, w.opt(9, []byte{0x83}))   // 1/8 s
	w.block(4, w.u16(0), w.u16(0))                              // name resolution, skipped
	off := w.epb(0, 1_700_000_000_123_456, []byte("eth frame")) // µs
	want = append(want, frameRead{layers.LinkTypeEthernet, 0, at(1_700_000_000, 123_456_000), "eth frame", int64(off)})
	off = w.epb(1, 5_000_000_007, []byte("raw")) // ns, +100 s
	want = append(want, frameRead{layers.LinkTypeRaw, 1, at(105, 7), "raw", int64(off)})
	off = w.epb(2, 8*3+5, []byte("sll!")) // 3 s + 5/8 s
	want = append(want, frameRead{layers.LinkTypeLinuxSLL, 2, at(3, 625_000_000), "sll!", int64(off)})
	w.block(5, w.u32(0), w.u32(0), w.u32(0)) // interface statistics, skipped
	off = w.spb(5, []byte("simple"))         // original length 5: one byte is padding
	// No timestamp: the time of the frame before (issue 29).
	want = append(want, frameRead{layers.LinkTypeEthernet, 0, at(3, 625_000_000), "simpl", int64(off)})
	off = w.pb(1, 2_000_000_000, []byte("old block"))
	want = append(want, frameRead{layers.LinkTypeRaw, 1, at(102, 0), "old block", int64(off)})

	w.shb(1) // a new section forgets the interfaces
	w.idb(layers.LinkTypeLinuxSLL2, 0)
	off = w.epb(0, 1_000_000, []byte("second section"))
	want = append(want, frameRead{layers.LinkTypeLinuxSLL2, 0, at(1, 0), "second section", int64(off)})

	w.shb(1)
	w.idb(layers.LinkTypeEthernet, 0)
	off = w.epb(7, 2_000_000, []byte("no such interface"))
	want = append(want, frameRead{noIface, 7, at(2, 0), "no such interface", int64(off)})
	return w.b, want
}

func TestPcapngReader(t *testing.T) {
	for _, be := range []bool{false, true} {
		file, want := richPcapng(be)
		for name, r := range map[string]io.Reader{
			"whole":    bytes.NewReader(file),
			"one byte": iotest.OneByteReader(bytes.NewReader(file)),
		} {
			got, err := readFrames(t, r)
			if err != io.EOF {
				t.Errorf("big-endian %v, %s: error %v; want io.EOF", be, name, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("big-endian %v, %s: frames\n%v\nwant\n%v", be, name, got, want)
			}
			for _, f := range got {
				if string(file[f.off:f.off+int64(len(f.data))]) != f.data {
					t.Errorf("big-endian %v, %s: file at %d is not %q", be, name, f.off, f.data)
				}
			}
		}
	}
}

// TestPcapngReaderCuts cuts the rich pcapng at every byte: the frames read
// are a prefix of the whole file's, and the error is io.EOF exactly at a
// block boundary, io.ErrUnexpectedEOF elsewhere.
func TestPcapngReaderCuts(t *testing.T) {
	file, want := richPcapng(false)
	bounds := map[int]bool{}
	for o := 0; o+8 <= len(file); o += int(binary.LittleEndian.Uint32(file[o+4:])) {
		bounds[o] = true
	}
	for n := 28; n < len(file); n++ {
		got, err := readFrames(t, bytes.NewReader(file[:n]))
		if len(got) > len(want) || fmt.Sprint(got) != fmt.Sprint(want[:len(got)]) {
			t.Fatalf("cut at %d: frames %v are not a prefix of %v", n, got, want)
		}
		wantErr := io.ErrUnexpectedEOF
		if bounds[n] {
			wantErr = io.EOF
		}
		if err != wantErr {
			t.Errorf("cut at %d: error %v; want %v", n, err, wantErr)
		}
	}
}

// TestPcapngReaderLies gives blocks whose lengths or fields lie: each is a
// clean error naming the block's offset, after the frames before it.
func TestPcapngReaderLies(t *testing.T) {
	head := func() *ngFile {
		w := &ngFile{}
		w.shb(1)
		w.idb(layers.LinkTypeEthernet, 0)
		w.epb(0, 0, []byte("good"))
		return w
	}
	tests := []struct {
		name string
		lie  func(w *ngFile)
		want string
	}{
		{"length under 12", func(w *ngFile) {
			w.b = append(w.b, w.u32(ngEnhanced)...)
			w.b = append(w.b, w.u32(8)...)
		}, "block at byte 84: length 8, less than 12"},
		{"trailing length differs", func(w *ngFile) {
			w.epb(0, 0, []byte("bad"))
			binary.LittleEndian.PutUint32(w.b[len(w.b)-4:], 99)
		}, "block at byte 84: length 36, trailing length 99"},
		{"captured length beyond the block", func(w *ngFile) {
			w.epb(0, 0, []byte("bad"))
			binary.LittleEndian.PutUint32(w.b[84+20:], 5000)
		}, "packet block at byte 84: captured length 5000, more than its 36-byte block holds"},
		{"enhanced block too short", func(w *ngFile) {
			w.block(ngEnhanced, w.u32(0), w.u32(0))
		}, "packet block at byte 84: length 20, less than 32"},
		{"huge block", func(w *ngFile) {
			w.b = append(w.b, w.u32(ngEnhanced)...)
			w.b = append(w.b, w.u32(1<<30)...)
			w.b = append(w.b, make([]byte, 64)...)
		}, "block at byte 84: length 1073741824, more than 16777216"},
		{"resolution beyond 64 bits", func(w *ngFile) {
			w.idb(layers.LinkTypeEthernet, 0, w.opt(9, []byte{20}))
		}, "interface block at byte 84: timestamp resolution 0x14"},
		{"section of an unknown major version", func(w *ngFile) {
			w.shb(2)
			w.idb(layers.LinkTypeEthernet, 0)
			w.epb(0, 0, []byte("never seen"))
		}, "section header at byte 84: pcapng version 2.0, this reader knows 1.x"},
		{"section with a bad byte-order magic", func(w *ngFile) {
			w.shb(1)
			binary.LittleEndian.PutUint32(w.b[84+8:], 0x01020304)
		}, "section header at byte 84: byte-order magic 0x04030201"},
		{"skipped block longer than the file", func(w *ngFile) {
			w.b = append(w.b, w.u32(0x0bad)...)
			w.b = append(w.b, w.u32(1<<31)...)
		}, io.ErrUnexpectedEOF.Error()},
	}
	for _, tt := range tests {
		w := head()
		if len(w.b) != 84 {
			t.Fatalf("head is %d bytes; the offsets below assume 84", len(w.b))
		}
		tt.lie(w)
		got, err := readFrames(t, bytes.NewReader(w.b))
		if len(got) != 1 || got[0].data != "good" {
			t.Errorf("%s: frames %v; want the one good frame before the lie", tt.name, got)
		}
		if err == nil || err == io.EOF || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v; want %q", tt.name, err, tt.want)
		}
	}
}

// TestPcapngHeaderErrors checks what NewReader says about a bad first
// block.
func TestPcapngHeaderErrors(t *testing.T) {
	w := &ngFile{}
	w.shb(1)
	shb := w.b
	bom := append([]byte(nil), shb...)
	binary.LittleEndian.PutUint32(bom[8:], 7)
	tests := []struct {
		in   []byte
		want string
	}{
		{shb[:10], "pcapng header: unexpected EOF"},
		{shb[:20], "pcapng header: unexpected EOF"},
		{bom, "pcapng header: section header at byte 0: byte-order magic 0x07000000"},
	}
	for _, tt := range tests {
		_, err := NewReader(bytes.NewReader(tt.in), "x", Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewReader(% x) error = %v; want %q", tt.in, err, tt.want)
		}
	}
	if _, err := NewReader(bytes.NewReader(shb), "x", Options{}); err != nil {
		t.Errorf("NewReader(section header only) error = %v; want none", err)
	}
}

// TestSlabGrowth reads a pcap record larger than the slab and one whose
// length lies about what follows: the first arrives whole, the second is a
// cut, and the slab never holds more than twice the input.
func TestSlabGrowth(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 3*slabSize/16+1)
	hdr := func(snap uint32) []byte {
		h := binary.LittleEndian.AppendUint32(nil, magicPcapMicro)
		h = binary.LittleEndian.AppendUint16(h, 2)
		h = binary.LittleEndian.AppendUint16(h, 4)
		h = append(h, make([]byte, 8)...)
		h = binary.LittleEndian.AppendUint32(h, snap)
		return binary.LittleEndian.AppendUint32(h, uint32(layers.LinkTypeEthernet))
	}
	rec := func(n int, data []byte) []byte {
		r := binary.LittleEndian.AppendUint32(nil, 1)
		r = binary.LittleEndian.AppendUint32(r, 2)
		r = binary.LittleEndian.AppendUint32(r, uint32(n))
		r = binary.LittleEndian.AppendUint32(r, uint32(n))
		return append(r, data...)
	}
	file := append(append(hdr(1<<24), rec(len(big), big)...), rec(1<<24, []byte("short"))...)
	s := newSlab(bytes.NewReader(file))
	rd, err := newPcapReader(s)
	if err != nil {
		t.Fatal(err)
	}
	data, err := rd.next()
	if err != nil || !bytes.Equal(data, big) || rd.dataOff != 24+16 {
		t.Fatalf("big record: %d bytes at %d, error %v; want %d bytes at 40", len(data), rd.dataOff, err, len(big))
	}
	if _, err := rd.next(); err != io.ErrUnexpectedEOF {
		t.Errorf("lying record: error %v; want io.ErrUnexpectedEOF", err)
	}
	if c := cap(s.buf); c > 2*len(file) {
		t.Errorf("slab grew to %d bytes for a %d-byte input", c, len(file))
	}
}

// stuckReader returns no bytes and no error, forever.
type stuckReader struct{}

func (stuckReader) Read([]byte) (int, error) { return 0, nil }

// TestSlabNoProgress ends a reader that never returns bytes with an error
// rather than a hang.
func TestSlabNoProgress(t *testing.T) {
	s := newSlab(stuckReader{})
	if s.fill(4) || !errors.Is(s.err, io.ErrNoProgress) {
		t.Errorf("fill on a stuck reader = true or error %v; want false, io.ErrNoProgress", s.err)
	}
	s = newSlab(stuckReader{})
	if s.skip(4) || !errors.Is(s.err, io.ErrNoProgress) {
		t.Errorf("skip on a stuck reader = true or error %v; want false, io.ErrNoProgress", s.err)
	}
}

// TestReaderMatchesPcapgo reads every capture of the shared corpus and the
// fixtures with recordReader and with gopacket's pcapgo readers: where
// pcapgo reads a file to its end, both give the same frames, interfaces
// and link types, and for pcapng the same timestamps.
func TestReaderMatchesPcapgo(t *testing.T) {
	root := repoRoot(t)
	paths, _ := filepath.Glob(filepath.Join(root, "..", "shared", "corpus", "tcpdump", "*"))
	fx, _ := filepath.Glob(filepath.Join(root, "fixtures", "captures", "*.pcap*"))
	paths = append(paths, fx...)
	compared := 0
	for _, p := range paths {
		file, err := os.ReadFile(p)
		if err != nil || len(file) < 4 {
			continue
		}
		want, ok := pcapgoFrames(file)
		if !ok {
			continue
		}
		got, err := readFrames(t, bytes.NewReader(file))
		if err != io.EOF {
			t.Errorf("%s: error %v; pcapgo read it to the end", filepath.Base(p), err)
		}
		classic := binary.LittleEndian.Uint32(file) != magicPcapng
		for i := range got {
			got[i].off = 0
			if classic && i < len(want) {
				// pcapgo scales a classic record's fraction in 32 bits, so
				// an invalid one (a million microseconds or more) wraps
				// there and not here; pcapng times are compared.
				got[i].ts = want[i].ts
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %d frames differ from pcapgo's %d", filepath.Base(p), len(got), len(want))
		}
		compared++
	}
	t.Logf("%d captures compared", compared)
	if compared < len(fx) {
		t.Errorf("only %d captures compared", compared)
	}
}

// pcapgoFrames reads a capture with pcapgo; false when pcapgo does not read
// it to a clean end.
func pcapgoFrames(file []byte) ([]frameRead, bool) {
	var next func() ([]byte, gopacket.CaptureInfo, layers.LinkType, error)
	switch binary.LittleEndian.Uint32(file) {
	case magicPcapng:
		r, err := pcapgo.NewNgReader(bytes.NewReader(file), pcapgo.NgReaderOptions{SkipUnknownVersion: true, WantMixedLinkType: true})
		if err != nil {
			return nil, false
		}
		next = func() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
			data, ci, err := r.ReadPacketData()
			if err != nil {
				return nil, ci, 0, err
			}
			intf, _ := r.Interface(ci.InterfaceIndex)
			return data, ci, intf.LinkType, nil
		}
	default:
		r, err := pcapgo.NewReader(bytes.NewReader(file))
		if err != nil {
			return nil, false
		}
		next = func() ([]byte, gopacket.CaptureInfo, layers.LinkType, error) {
			data, ci, err := r.ReadPacketData()
			return data, ci, layers.LinkType(uint32(r.LinkType()) & 0x0fffffff), err
		}
	}
	var out []frameRead
	for {
		data, ci, link, err := next()
		if err == io.EOF {
			return out, true
		}
		if err != nil {
			return nil, false
		}
		out = append(out, frameRead{link, ci.InterfaceIndex, ci.Timestamp.UTC(), string(data), 0})
	}
}
