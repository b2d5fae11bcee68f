package session_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// packets reads every packet of a capture file with its capture info.
func packets(t *testing.T, path string) ([][]byte, []gopacket.CaptureInfo, layers.LinkType) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		next func() ([]byte, gopacket.CaptureInfo, error)
		lt   layers.LinkType
	)
	if ng, err := pcapgo.NewNgReader(bytes.NewReader(data), pcapgo.DefaultNgReaderOptions); err == nil {
		next, lt = ng.ReadPacketData, ng.LinkType()
	} else if r, err := pcapgo.NewReader(bytes.NewReader(data)); err == nil {
		next, lt = r.ReadPacketData, r.LinkType()
	} else {
		t.Fatalf("%s: %v", path, err)
	}
	var pkts [][]byte
	var cis []gopacket.CaptureInfo
	for {
		p, ci, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Logf("%s: %v after %d packets", path, err, len(pkts))
			break
		}
		pkts = append(pkts, append([]byte(nil), p...))
		ci.CaptureLength = len(p)
		ci.Length = max(ci.Length, len(p))
		cis = append(cis, ci)
	}
	return pkts, cis, lt
}

// decodeFrom writes packets k… as a classic pcap and decodes it.
func decodeFrom(t *testing.T, pkts [][]byte, cis []gopacket.CaptureInfo, lt layers.LinkType, k int) *session.Index {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	if err := w.WriteFileHeader(262144, lt); err != nil {
		t.Fatal(err)
	}
	for i := k; i < len(pkts); i++ {
		if err := w.WritePacket(cis[i], pkts[i]); err != nil {
			t.Fatal(err)
		}
	}
	p := unturned.Default()
	src, err := capture.NewReader(bytes.NewReader(buf.Bytes()), "cut.pcap", capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ix := session.NewIndex(p)
	_ = pipeline.Feed(src, ix, nil)
	return ix
}

// TestOrderInvariant (outputs.md "Ordering"): every fixture capture cut at
// every packet boundary (the capture starting at packet k) numbers its
// messages densely from 1, and frame and time never decrease as n grows,
// however the framing had to resynchronise.
func TestOrderInvariant(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/captures/*.pcap*")
	more, _ := filepath.Glob("../fixtures/captures/*/*.pcap*")
	paths = append(paths, more...)
	if len(paths) == 0 {
		t.Fatal("no fixture captures")
	}
	for _, path := range paths {
		pkts, cis, lt := packets(t, path)
		for k := range pkts {
			ix := decodeFrom(t, pkts, cis, lt, k)
			prevFrame, prevTime := 0, int64(0)
			for n := 1; n <= ix.Len(); n++ {
				m := ix.Message(n)
				if m == nil || m.N != n {
					t.Fatalf("%s from packet %d: message %d missing or numbered %v", filepath.Base(path), k+1, n, m)
				}
				if m.Frame < prevFrame || m.Time.UnixNano() < prevTime {
					t.Errorf("%s from packet %d: message %d frame %d at %v after frame %d at %v",
						filepath.Base(path), k+1, n, m.Frame, m.Time.UnixNano(), prevFrame, prevTime)
					break
				}
				prevFrame, prevTime = m.Frame, m.Time.UnixNano()
			}
		}
	}
}
