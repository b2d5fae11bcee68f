package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

const benchPackets = 1_000_000

// benchFiles are the generated benchmark captures, pcap and pcapng.
var benchFiles [2]struct {
	once sync.Once
	path string
	err  error
}

// benchCapture writes, once, a pcap (or, with ng, a pcapng) of benchPackets Ethernet/IPv4/TCP frames
// of game-sized segments (96–223 byte payloads, wire.md §2 framing sizes of
// ordinary NetMessages) over 8 concurrent established flows, in order, both
// directions. Frames come from one serialised template per flow and
// direction with the sequence number patched (checksums are not checked).
func benchCapture(b *testing.B, ng bool) string {
	bf := &benchFiles[0]
	name := "1m.pcap"
	if ng {
		bf, name = &benchFiles[1], "1m.pcapng"
	}
	bf.once.Do(func() {
		dir, err := os.MkdirTemp("", "capture-bench")
		if err != nil {
			bf.err = err
			return
		}
		bf.path = filepath.Join(dir, name)
		f, err := os.Create(bf.path)
		if err != nil {
			bf.err = err
			return
		}
		defer f.Close()
		bw := bufio.NewWriterSize(f, 1<<20)
		var write func(gopacket.CaptureInfo, []byte) error
		if ng {
			w, err := pcapgo.NewNgWriter(bw, layers.LinkTypeEthernet)
			if err != nil {
				bf.err = err
				return
			}
			defer func() {
				if err := w.Flush(); err != nil && bf.err == nil {
					bf.err = err
				}
			}()
			write = w.WritePacket
		} else {
			w := pcapgo.NewWriter(bw)
			w.WriteFileHeader(65535, layers.LinkTypeEthernet)
			write = w.WritePacket
		}
		const flows = 8
		type tmpl struct {
			frame []byte
			seq   uint32
		}
		var ts [flows][2]tmpl
		payload := make([]byte, 223)
		for i := range flows {
			c := conv{mustAP("10.0.0.2:" + itoa(40000+i)), srv4}
			for d := range 2 {
				s := seg{fromServer: d == 1, seq: 1, flags: "PA", payload: string(payload)}
				ts[i][d] = tmpl{frame: frame(b, frameOpts{link: layers.LinkTypeEthernet}, c, s), seq: 1}
			}
		}
		t := t0
		for n := range benchPackets {
			i, d := n%flows, (n/flows)%2
			tp := &ts[i][d]
			size := 96 + n%128
			fr := tp.frame[:14+20+20+size]
			binary.BigEndian.PutUint16(fr[14+2:], uint16(20+20+size)) // IPv4 total length
			binary.BigEndian.PutUint32(fr[14+20+4:], tp.seq)
			tp.seq += uint32(size)
			t = t.Add(50 * time.Microsecond)
			if err := write(gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(fr), Length: len(fr)}, fr); err != nil {
				bf.err = err
				return
			}
		}
		defer func() {
			if err := bw.Flush(); err != nil && bf.err == nil {
				bf.err = err
			}
		}()
	})
	if bf.err != nil {
		b.Fatal(bf.err)
	}
	return bf.path
}

func itoa(n int) string {
	var b [8]byte
	i := len(b)
	for n > 0 || i == len(b) {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// BenchmarkReadReassemble reads the 1M-packet capture from disk through
// Open: pcap parsing, link decoding and reassembly. One op is one packet;
// the file is reopened when it ends.
func BenchmarkReadReassemble(b *testing.B) { benchReadReassemble(b, benchCapture(b, false)) }

// BenchmarkReadReassemblePcapng is BenchmarkReadReassemble on the same
// packets in a pcapng file (Enhanced Packet Blocks).
func BenchmarkReadReassemblePcapng(b *testing.B) { benchReadReassemble(b, benchCapture(b, true)) }

func benchReadReassemble(b *testing.B, path string) {
	b.ReportAllocs()
	var peak uint64
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	src, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var data int64
	cpu0 := cpuTime()
	b.ResetTimer()
	for n := 0; n < b.N; {
		ev, err := src.Next()
		if errors.Is(err, io.EOF) {
			src.Close()
			if src, err = Open(path, Options{}); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		if ev.Kind == EventData {
			n++
			data += int64(len(ev.Data))
			if n%(1<<17) == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
	}
	b.StopTimer()
	// CPU time per packet: the machine is shared, and wall time counts
	// waiting for the other processes.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/pkt")
	src.Close()
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapInuse)
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "peak-heap-MiB")
	b.SetBytes(data / int64(b.N))
}

// BenchmarkReassembleOutOfOrder swaps every other pair of segments of one
// flow: each flow moves to the gopacket/reassembly slow path.
func BenchmarkReassembleOutOfOrder(b *testing.B) {
	const n = 4096
	var pkts []Packet
	seq := uint32(1)
	var segs []seg
	for i := range n {
		segs = append(segs, seg{false, seq, "PA", string(make([]byte, 100+i%64))})
		seq += uint32(100 + i%64)
	}
	for i := 0; i+1 < n; i += 4 {
		segs[i], segs[i+1] = segs[i+1], segs[i]
	}
	for _, r := range recs(b, frameOpts{link: layers.LinkTypeEthernet}, plain, segs...) {
		pkts = append(pkts, Packet{Data: r.data, Link: r.link, Time: r.ts})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += n {
		src := NewPackets(pkts, Options{})
		for {
			if _, err := src.Next(); err != nil {
				break
			}
		}
	}
}
