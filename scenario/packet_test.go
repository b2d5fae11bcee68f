package scenario

import (
	"bytes"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/usmnscope/usmnscope/dissect"
)

var update = flag.Bool("update", false, "rewrite fixtures/captures from fixtures/scenarios")

// TestChecksums decodes packets of every link type over IPv4 and IPv6 with
// gopacket and checks lengths and checksums against gopacket's own
// serialisation of the same layers.
func TestChecksums(t *testing.T) {
	v4 := [2]netip.AddrPort{netip.MustParseAddrPort("10.0.0.2:50412"), netip.MustParseAddrPort("10.0.0.1:27016")}
	v6 := [2]netip.AddrPort{netip.MustParseAddrPort("[fd00::2]:50412"), netip.MustParseAddrPort("[fd00::1]:27016")}
	for name, l := range linkTypes {
		for _, ends := range [][2]netip.AddrPort{v4, v6} {
			for _, payload := range [][]byte{nil, {0x01}, []byte("odd-length payload!"), bytes.Repeat([]byte{0xff}, 1448)} {
				s := segment{src: ends[0], dst: ends[1], fromClient: true, seq: 0xfffffff0, ack: 77, flags: flagPSH | flagACK, ipID: 9, payload: payload}
				data := appendPacket(nil, l, &s)
				where := fmt.Sprintf("%s %s %d bytes", name, ends[0].Addr(), len(payload))
				p := gopacket.NewPacket(data, l.Type, gopacket.Default)
				if el := p.ErrorLayer(); el != nil {
					t.Fatalf("%s: gopacket: %v", where, el.Error())
				}
				tcp, _ := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
				if tcp == nil || !bytes.Equal(tcp.Payload, payload) || tcp.Seq != s.seq || tcp.Ack != s.ack || !tcp.PSH || !tcp.ACK {
					t.Fatalf("%s: TCP layer = %+v", where, tcp)
				}
				net := p.NetworkLayer()
				switch ip := net.(type) {
				case *layers.IPv4:
					want, wantLen := ip.Checksum, ip.Length
					buf := gopacket.NewSerializeBuffer()
					opts := gopacket.SerializeOptions{ComputeChecksums: true, FixLengths: true}
					if err := gopacket.SerializeLayers(buf, opts, ip, gopacket.Payload(ip.Payload)); err != nil {
						t.Fatal(err)
					}
					if ip.Checksum != want || ip.Length != wantLen {
						t.Errorf("%s: IPv4 checksum %#04x length %d; want %#04x length %d", where, want, wantLen, ip.Checksum, ip.Length)
					}
					tcp.SetNetworkLayerForChecksum(ip)
				case *layers.IPv6:
					if int(ip.Length) != 20+len(payload) {
						t.Errorf("%s: IPv6 payload length %d; want %d", where, ip.Length, 20+len(payload))
					}
					tcp.SetNetworkLayerForChecksum(ip)
				default:
					t.Fatalf("%s: network layer %T", where, net)
				}
				want := tcp.Checksum
				buf := gopacket.NewSerializeBuffer()
				if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{ComputeChecksums: true}, tcp, gopacket.Payload(payload)); err != nil {
					t.Fatal(err)
				}
				if tcp.Checksum != want {
					t.Errorf("%s: TCP checksum %#04x; want %#04x", where, want, tcp.Checksum)
				}
			}
		}
	}
}

// readCapture reads a pcapng or pcap file's packets.
func readCapture(t *testing.T, data []byte) ([]gopacket.Packet, layers.LinkType) {
	t.Helper()
	var src gopacket.PacketDataSource
	var lt layers.LinkType
	if ng, err := pcapgo.NewNgReader(bytes.NewReader(data), pcapgo.DefaultNgReaderOptions); err == nil {
		src, lt = ng, ng.LinkType()
	} else {
		r, err := pcapgo.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		src, lt = r, r.LinkType()
	}
	var ps []gopacket.Packet
	for {
		d, ci, err := src.ReadPacketData()
		if err != nil {
			break
		}
		p := gopacket.NewPacket(d, lt, gopacket.Default)
		p.Metadata().CaptureInfo = ci
		ps = append(ps, p)
	}
	return ps, lt
}

// reassemble rebuilds each direction's stream from the TCP sequence
// numbers, relative to the SYN, as a receiver would.
func reassemble(t *testing.T, ps []gopacket.Packet, server uint16) [2][]byte {
	t.Helper()
	var base [2]uint32
	var out [2][]byte
	for _, p := range ps {
		tcp := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		d := dissect.C2S
		if uint16(tcp.SrcPort) == server {
			d = dissect.S2C
		}
		if tcp.SYN {
			base[d] = tcp.Seq + 1
			continue
		}
		if len(tcp.Payload) == 0 {
			continue
		}
		off := int(tcp.Seq - base[d])
		if need := off + len(tcp.Payload); need > len(out[d]) {
			out[d] = append(out[d], make([]byte, need-len(out[d]))...)
		}
		copy(out[d][off:], tcp.Payload)
	}
	return out
}

// TestStreams generates transport-mess without its loss and checks that
// reassembly by sequence number gives back exactly the messages the script
// wrote, that no segment is longer than the segment size and that every
// frame header is split (wire.md 2).
func TestStreams(t *testing.T) {
	s := readFixture(t, "transport-mess")
	s.Conns[0].Transport.Loss = nil
	scripts, err := s.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	var want [2][]byte
	for _, w := range scripts[0].Writes {
		want[w.Dir] = append(want[w.Dir], w.Data...)
	}
	for _, f := range []Format{PCAPNG, PCAP} {
		var buf bytes.Buffer
		if _, err := s.Generate(&buf, f); err != nil {
			t.Fatal(err)
		}
		ps, lt := readCapture(t, buf.Bytes())
		if lt != layers.LinkTypeLinuxSLL2 {
			t.Errorf("%s link type %v; want SLL2", f, lt)
		}
		got := reassemble(t, ps, 27016)
		for d := range got {
			if !bytes.Equal(got[d], want[d]) {
				t.Errorf("%s %s stream: %d bytes; want the %d the script wrote", f, dissect.Dir(d), len(got[d]), len(want[d]))
			}
		}
		for _, p := range ps {
			if n := len(p.Layer(layers.LayerTypeTCP).(*layers.TCP).Payload); n > 24 {
				t.Errorf("%s: segment of %d bytes; want at most 24", f, n)
			}
		}
	}
	// Every frame header's first byte ends a segment.
	var fl flow
	fl.t.Segment, fl.t.SplitHeaders = 24, true
	for _, w := range scripts[0].Writes {
		cuts := fl.cuts(&w)
		for _, o := range w.Frames {
			if !containsInt(cuts, o+1) {
				t.Errorf("write at frames %v: cuts %v do not split the header at %d", w.Frames, cuts, o)
			}
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func scenarioFiles(t *testing.T) []string {
	t.Helper()
	fs, err := filepath.Glob("../fixtures/scenarios/*.toml")
	if err != nil || len(fs) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	return fs
}

func capturePath(scenario string) string {
	return filepath.Join("../fixtures/captures", strings.TrimSuffix(filepath.Base(scenario), ".toml")+".pcapng")
}

// TestGoldenCaptures regenerates every fixture capture and fails when the
// committed one differs; -update rewrites them (make fixtures).
func TestGoldenCaptures(t *testing.T) {
	for _, f := range scenarioFiles(t) {
		s, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := s.Generate(&buf, PCAPNG); err != nil {
			t.Fatal(err)
		}
		path := capturePath(f)
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run make fixtures)", path, err)
			continue
		}
		if !bytes.Equal(old, buf.Bytes()) {
			os.WriteFile(path+".got", buf.Bytes(), 0o644)
			t.Errorf("%s is stale: %s generates something else now (wrote %s.got; run make fixtures)", path, f, path)
		}
	}
}

// TestGenerateDeterministic: the same scenario gives the same bytes.
func TestGenerateDeterministic(t *testing.T) {
	s := readFixture(t, "two-conns")
	var a, b bytes.Buffer
	if _, err := s.Generate(&a, PCAPNG); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Generate(&b, PCAPNG); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two runs of two-conns differ")
	}
}

var expertSection = regexp.MustCompile(`^(Errors|Warns) \((\d+)\)`)

// TestTshark opens every fixture capture with tshark, checksum validation
// on, and fails on any error and on warnings a scenario did not ask for
// (loss, reordering, retransmission and a mid-stream start make TCP
// analysis warn, which is the point of those scenarios).
func TestTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (.ci/run installs it): skipping the tshark check")
	}
	for _, f := range scenarioFiles(t) {
		s, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := s.Generate(&buf, PCAPNG); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), filepath.Base(f)+".pcapng")
		os.WriteFile(path, buf.Bytes(), 0o644)
		out, err := exec.Command(tshark, "-r", path, "-q", "-z", "expert",
			"-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE").CombinedOutput()
		if err != nil {
			t.Fatalf("tshark -r %s: %v\n%s", path, err, out)
		}
		mess := s.messy()
		for _, line := range strings.Split(string(out), "\n") {
			m := expertSection.FindStringSubmatch(line)
			if strings.Contains(line, "Malformed") || m != nil && (m[1] == "Errors" || !mess) {
				t.Errorf("%s: tshark expert info: %q\n%s", f, line, out)
			}
		}
	}
}

// messy reports whether the scenario asks for what TCP analysis warns
// about: loss, reordering, retransmission or a capture started mid-stream.
func (s *Scenario) messy() bool {
	for _, c := range s.Conns {
		if len(c.Transport.Loss)+len(c.Transport.Reorder)+len(c.Transport.Retransmit) > 0 || hasCapture(c.Actions) {
			return true
		}
	}
	return false
}

// TestCaptureCut: a "capture" action leaves earlier packets, the TCP
// handshake included, out of the capture, and cut drops the first bytes of
// the next segment; the rest of the stream is captured as written.
func TestCaptureCut(t *testing.T) {
	s, err := Parse("cut", []byte(`
[[connection]]
[[connection.action]]
do = "handshake"
[[connection.action]]
do = "capture"
cut = 3
[[connection.action]]
do = "kick"
reason = "bye"
[[connection.action]]
do = "ping"
from = "server"
`))
	if err != nil {
		t.Fatal(err)
	}
	ps, _, err := s.Packets()
	if err != nil {
		t.Fatal(err)
	}
	var s2c []byte
	for _, p := range ps {
		g := gopacket.NewPacket(p.Data, layers.LinkTypeEthernet, gopacket.Default)
		tcp := g.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if tcp.SYN {
			t.Errorf("SYN captured before the capture action")
		}
		if tcp.SrcPort == 27016 {
			s2c = append(s2c, tcp.Payload...)
		}
	}
	// Kicked("bye") framed is 00 06 8c 00 00 62 79 65, less its first 3
	// bytes; then the server's PingRequest (2, vanilla width) framed 00 01 02.
	want := []byte{0x00, 0x00, 0x62, 0x79, 0x65, 0x00, 0x01, 0x02}
	if !bytes.Equal(s2c, want) {
		t.Errorf("captured s2c stream = % x; want % x", s2c, want)
	}
}

// TestTsharkCatches makes sure the tshark check can fail: a capture with a
// broken TCP checksum must be reported.
func TestTsharkCatches(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (.ci/run installs it): skipping")
	}
	s := readFixture(t, "vanilla")
	ps, _, err := s.Packets()
	if err != nil {
		t.Fatal(err)
	}
	ps[5].Data[len(ps[5].Data)-1] ^= 0xff // payload byte: the TCP checksum no longer matches
	var buf bytes.Buffer
	pw, _ := newPacketWriter(&buf, PCAPNG, linkTypes[s.Link])
	for _, p := range ps {
		pw.write(p)
	}
	pw.flush()
	path := filepath.Join(t.TempDir(), "bad.pcapng")
	os.WriteFile(path, buf.Bytes(), 0o644)
	out, _ := exec.Command(tshark, "-r", path, "-q", "-z", "expert", "-o", "tcp.check_checksum:TRUE").CombinedOutput()
	if !strings.Contains(string(out), "Errors (") {
		t.Errorf("tshark did not report the broken checksum:\n%s", out)
	}
}

// TestCoalesce: with coalesce, consecutive messages of one side share a
// write and so a segment; without it each has its own.
func TestCoalesce(t *testing.T) {
	src := `
[transport]
coalesce = %v
tcp_handshake = false
close = false
[[connection]]
[[connection.action]]
do = "kick"
reason = "a"
count = 3
[[connection.action]]
do = "ping"
from = "client"
`
	for _, tt := range []struct {
		coalesce bool
		want     []int // data segment lengths
	}{
		{false, []int{6, 6, 6, 3, 3}}, // Kicked("a") framed: 2 + 4 bytes each; pings 2 + 1
		{true, []int{18, 3, 3}},
	} {
		s, err := Parse("coalesce", []byte(fmt.Sprintf(src, tt.coalesce)))
		if err != nil {
			t.Fatal(err)
		}
		ps, _, err := s.Packets()
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, p := range ps {
			g := gopacket.NewPacket(p.Data, layers.LinkTypeEthernet, gopacket.Default)
			if n := len(g.Layer(layers.LayerTypeTCP).(*layers.TCP).Payload); n > 0 {
				got = append(got, n)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("coalesce = %v: segments %v; want %v", tt.coalesce, got, tt.want)
		}
	}
}

// TestCheckLink: every link type the generator writes passes, anything
// else (the empty name included: scenarios default it before) is refused
// with the list.
func TestCheckLink(t *testing.T) {
	for name := range linkTypes {
		if err := checkLink(name); err != nil {
			t.Errorf("checkLink(%q) = %v; want nil", name, err)
		}
	}
	for _, name := range []string{"", "token-ring", "Ethernet"} {
		if err := checkLink(name); err == nil || !strings.Contains(err.Error(), "is not one of ethernet") {
			t.Errorf("checkLink(%q) = %v; want the list of link types", name, err)
		}
	}
}
