package capture

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

var update = flag.Bool("update", false, "rewrite the committed fuzz seed corpora under testdata/fuzz")

// fuzzSeeds are valid inputs of each fuzz target, written to testdata/fuzz
// by -update.
func readerSeeds(t testing.TB) [][]byte {
	eth := frameOpts{link: layers.LinkTypeEthernet}
	hs := handshake()
	rs := recs(t, eth, plain, hs[0], hs[1], hs[5], hs[3], hs[4])
	// Every pcapng block kind the reader knows, in both byte orders.
	richLE, _ := richPcapng(false)
	richBE, _ := richPcapng(true)
	return [][]byte{
		writePcap(t, false, layers.LinkTypeEthernet, rs),
		swapPcap(writePcap(t, true, layers.LinkTypeEthernet, rs)),
		writePcapng(t, append(rs, recs(t, frameOpts{link: layers.LinkTypeLinuxSLL2}, conv{cli6, srv6}, hs[3:6]...)...)),
		richLE, richBE,
	}
}

func frameSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, l := range []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2, layers.LinkTypeRaw, layers.LinkTypeNull} {
		out = append(out, append([]byte{byte(l >> 8), byte(l)}, frame(t, frameOpts{link: l}, plain, seg{false, 7, "PA", "\x00\x01x"})...))
	}
	out = append(out, append([]byte{0, 1}, frame(t, frameOpts{link: layers.LinkTypeEthernet, vlan: 9}, conv{cli6, srv6}, seg{true, 7, "SA", ""})...))
	out = append(out, append([]byte{0, 1}, udpFrame(t, mustAP("10.0.0.1:27015"), cli4, a2sReply("srv", "<net>sys</net>"))...))
	return out
}

// FuzzReader reads arbitrary bytes as a capture: no panic, no hang, io.EOF
// at the end.
func FuzzReader(f *testing.F) {
	for _, s := range readerSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		src, err := NewReader(bytes.NewReader(b), "fuzz", Options{MaxBufferedPerFlow: 4 * pageBytes})
		if err != nil {
			return
		}
		drain(t, src)
	})
}

// FuzzFrames feeds arbitrary frames (a 2-byte link type, then the frame)
// through link decoding, reassembly and UDP classification.
func FuzzFrames(f *testing.F) {
	for _, s := range frameSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 {
			return
		}
		link := layers.LinkType(uint16(b[0])<<8 | uint16(b[1]))
		// The frame twice, then cut: the second copy is a retransmission.
		pkts := []Packet{{Data: b[2:], Link: link, Time: t0}, {Data: b[2:], Link: link, Time: t0}, {Data: b[2 : 2+len(b[2:])/2], Link: link, Time: t0}}
		r := drain(t, NewPackets(pkts, Options{}))
		for _, n := range r.notes {
			for _, c := range n {
				if c < 0x20 || c == 0x7f {
					t.Fatalf("note %q carries a control character", n)
				}
			}
		}
	})
}

// FuzzA2SInfo checks that the A2S_INFO parser never panics.
func FuzzA2SInfo(f *testing.F) {
	f.Add(a2sReply("My Server", "<net>sys</net>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, _ := parseA2SInfo(b)
		_ = info.transport()
	})
}

// TestFuzzCorpus writes the seeds above as committed corpus files with
// -update, and otherwise checks that they are there.
func TestFuzzCorpus(t *testing.T) {
	sets := map[string][][]byte{
		"FuzzReader":    readerSeeds(t),
		"FuzzFrames":    frameSeeds(t),
		"FuzzA2SInfo":   {a2sReply("My Server", "gm:pvp,<net>sns</net>")},
		"FuzzFragments": fragmentSeeds(t),
	}
	for name, seeds := range sets {
		dir := filepath.Join("testdata", "fuzz", name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for i, s := range seeds {
				body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%d", i)), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) < len(seeds) {
			t.Errorf("%s: %d corpus files; want at least %d (run go test -run FuzzCorpus -update)", dir, len(m), len(seeds))
		}
	}
}
