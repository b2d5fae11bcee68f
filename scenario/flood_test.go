package scenario

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// floodTOML is a small flood: 3 connections with a handshake, 10 frames of
// "0001 04" each (a one-byte C→S PingRequest, wire.md 2 and 3), 4 frames to
// a segment (segments of 4, 4, 2 frames), every 2nd segment from the first
// lost, closed with FINs.
const floodTOML = `
name = "flood"
[[flood]]
conns = 3
frames = 10
message = "04"
per_segment = 4
lose_every = 2
close = true
`

func tcpPackets(t *testing.T, data []byte) []*layers.TCP {
	t.Helper()
	ps, _ := readCapture(t, data)
	var out []*layers.TCP
	for _, p := range ps {
		tcp, _ := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if tcp == nil {
			t.Fatalf("packet without TCP: %v", p)
		}
		out = append(out, tcp)
	}
	return out
}

func TestFloodPackets(t *testing.T) {
	s, err := Parse("flood", []byte(floodTOML))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{PCAP, PCAPNG} {
		var buf bytes.Buffer
		st, err := s.Generate(&buf, f)
		if err != nil {
			t.Fatal(err)
		}
		tcps := tcpPackets(t, buf.Bytes())
		// Per connection: SYN, SYN/ACK, ACK, the 2nd data segment only
		// (the 1st and 3rd are lost), FIN, FIN, ACK.
		if len(tcps) != 21 || st.Packets != 21 || st.Conns != 3 || st.Messages != 30 {
			t.Fatalf("%s: %d packets, stats %+v; want 21 packets, 3 conns, 30 messages", f, len(tcps), st)
		}
		var data [][]byte
		ports := map[layers.TCPPort]int{}
		for _, tcp := range tcps {
			ports[tcp.DstPort]++
			if len(tcp.Payload) > 0 {
				data = append(data, tcp.Payload)
			}
		}
		want := bytes.Repeat([]byte{0, 1, 4}, 4)
		if len(data) != 3 {
			t.Fatalf("%s: %d data segments; want 3", f, len(data))
		}
		for _, d := range data {
			if !bytes.Equal(d, want) {
				t.Errorf("%s: data segment % x; want % x", f, d, want)
			}
		}
	}
}

// TestFloodTakesTurns: connections send segment by segment in turn, so all
// are open at once; the data of a connection after a lost segment starts 3
// bytes per frame later in sequence space.
func TestFloodTakesTurns(t *testing.T) {
	s, err := Parse("turns", []byte("[[flood]]\nconns = 2\nopen = \"data\"\nframes = 2\nmessage = \"04\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := s.Generate(&buf, PCAP); err != nil {
		t.Fatal(err)
	}
	ps, _ := readCapture(t, buf.Bytes())
	var srcs []string
	for _, p := range ps {
		srcs = append(srcs, p.NetworkLayer().NetworkFlow().Src().String())
	}
	if got, want := strings.Join(srcs, " "), "10.128.0.0 10.128.0.1 10.128.0.0 10.128.0.1"; got != want {
		t.Errorf("sources = %s; want %s", got, want)
	}
}

// TestFloodAfterConnections: a scenario's ordinary connections come first,
// the flood after them.
func TestFloodAfterConnections(t *testing.T) {
	s, err := ReadFile("../fixtures/scenarios/usmn-basic.toml")
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := s.Packets()
	if err != nil {
		t.Fatal(err)
	}
	s.Floods = []Flood{{Conns: 1, Frames: 5, Message: "04", PerSegment: 5, From: "client", Open: "data"}}
	var buf bytes.Buffer
	st, err := s.Generate(&buf, PCAPNG)
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := readCapture(t, buf.Bytes())
	if len(ps) != len(plain)+1 || st.Packets != len(ps) {
		t.Fatalf("%d packets (stats %d); want the %d of usmn-basic and 1", len(ps), st.Packets, len(plain))
	}
	last := ps[len(ps)-1]
	if !last.Metadata().Timestamp.After(ps[len(ps)-2].Metadata().Timestamp) {
		t.Errorf("flood packet at %v is not after the connections' last at %v", last.Metadata().Timestamp, ps[len(ps)-2].Metadata().Timestamp)
	}
	if got := last.TransportLayer().LayerPayload(); !bytes.Equal(got, bytes.Repeat([]byte{0, 1, 4}, 5)) {
		t.Errorf("flood payload % x", got)
	}
}

func u32(v uint32) *uint32 { return &v }

// records splits a little-endian nanosecond pcap by its own record headers,
// trusting them, and returns the snap length and each record's caplen and
// orig_len.
func pcapRecords(t *testing.T, b []byte) (snap uint32, caps, origs []uint32) {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 24 || le.Uint32(b) != 0xa1b23c4d {
		t.Fatalf("not a nanosecond pcap: % x", b[:min(len(b), 24)])
	}
	snap = le.Uint32(b[16:])
	for b = b[24:]; len(b) >= 16; {
		c, o := le.Uint32(b[8:]), le.Uint32(b[12:])
		caps, origs = append(caps, c), append(origs, o)
		if uint64(c) > uint64(len(b)-16) {
			break
		}
		b = b[16+c:]
	}
	return snap, caps, origs
}

func TestLiesPCAP(t *testing.T) {
	s, err := ReadFile("../fixtures/scenarios/two-conns.toml")
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := s.Packets()
	if err != nil {
		t.Fatal(err)
	}
	s.Lies = []Lie{{Record: 0, SnapLen: u32(64)}, {Record: 2, OrigLen: u32(10)}, {Record: 4, CapLen: u32(4294967000), End: true}}
	var buf bytes.Buffer
	if _, err := s.Generate(&buf, PCAP); err != nil {
		t.Fatal(err)
	}
	snap, caps, origs := pcapRecords(t, buf.Bytes())
	if snap != 64 || len(caps) != 4 {
		t.Fatalf("snap %d, %d records; want 64 and 4 (the file ends after the 4th)", snap, len(caps))
	}
	for i, c := range caps[:3] {
		if int(c) != len(plain[i].Data) {
			t.Errorf("record %d: caplen %d; want %d", i+1, c, len(plain[i].Data))
		}
	}
	if origs[1] != 10 || origs[0] != caps[0] || caps[3] != 4294967000 {
		t.Errorf("orig_len %v, caplen %v; want orig_len 10 at record 2, caplen 4294967000 at record 4", origs, caps)
	}
	// Record 4's bytes are its own packet, so the file is 24 + 4 records.
	want := 24
	for _, p := range plain[:4] {
		want += 16 + len(p.Data)
	}
	if buf.Len() != want {
		t.Errorf("file is %d bytes; want %d", buf.Len(), want)
	}
}

func TestLiesPCAPNG(t *testing.T) {
	s, err := ReadFile("../fixtures/scenarios/two-conns.toml")
	if err != nil {
		t.Fatal(err)
	}
	s.Lies = []Lie{{Record: 1, CapLen: u32(0xfffffff0), BlockLen: u32(0xffffff00), End: true}}
	var buf bytes.Buffer
	if _, err := s.Generate(&buf, PCAPNG); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	le := binary.LittleEndian
	// Section header (28 bytes), interface block (32), then the lying EPB.
	if le.Uint32(b) != 0x0a0d0d0a || le.Uint32(b[28:]) != 1 || le.Uint32(b[28+12:]) != snapLen {
		t.Fatalf("headers % x", b[:60])
	}
	epb := b[60:]
	if le.Uint32(epb) != 6 || le.Uint32(epb[4:]) != 0xffffff00 || le.Uint32(epb[20:]) != 0xfffffff0 || le.Uint32(epb[len(epb)-4:]) != 0xffffff00 {
		t.Errorf("EPB % x", epb[:28])
	}
	// Without lies the same writer gives a file pcapgo reads back whole.
	s.Lies = []Lie{{Record: 99, OrigLen: u32(1)}}
	buf.Reset()
	st, err := s.Generate(&buf, PCAPNG)
	if err != nil {
		t.Fatal(err)
	}
	if ps, _ := readCapture(t, buf.Bytes()); len(ps) != st.Packets {
		t.Errorf("read %d packets back; wrote %d", len(ps), st.Packets)
	}
}

func TestFloodErrors(t *testing.T) {
	for _, tc := range []struct{ toml, want string }{
		{"[[flood]]\nconns = -1", "conns"},
		{"[[flood]]\nfrom = \"middle\"", "from"},
		{"[[flood]]\nopen = \"rst\"", "open"},
		{"[[flood]]\nmessage = \"zz\"", "message"},
		{"[[flood]]\npad = 70000", "2-byte frame header"},
		{"[[flood]]\nframes = -2", "negative"},
		{"[[flood]]\nper_segment = 40000\nmessage = \"04\"", "65000"},
		{"[[flood]]\nserver = \"[::1]:27016\"", "IPv4"},
		{"[[flood]]\n[[lie]]\nrecord = -1", "negative"},
		{"[[flood]]\n[[lie]]\nrecord = 1\nsnaplen = 9", "record 0"},
		{"[[flood]]\n[[lie]]\nrecord = 2\n[[lie]]\nrecord = 2", "two lies"},
		{"[[lie]]\nrecord = 2", "no [[connection]]"},
	} {
		_, err := Parse("bad", []byte(tc.toml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v; want an error about %s", tc.toml, err, tc.want)
		}
	}
}

// TestScaleScenarios: the hostile scale scenarios parse. They live in
// fixtures/scenarios/scale/, outside the fixture glob, because their
// captures are generated by the tests that use them
// (cmd/usmnscope/hostile_scale_test.go), not committed.
func TestScaleScenarios(t *testing.T) {
	fs, err := filepath.Glob("../fixtures/scenarios/scale/*.toml")
	if err != nil || len(fs) < 4 {
		t.Fatalf("scale scenarios: %v %v", fs, err)
	}
	for _, f := range fs {
		s, err := ReadFile(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if !s.hostile() {
			t.Errorf("%s: neither floods nor lies", f)
		}
	}
}

// TestGoldenScaleCaptures: the committed lying-lengths captures are what the
// scenario generates (-update rewrites them). The other scale scenarios'
// captures are too big to commit; tests generate them.
func TestGoldenScaleCaptures(t *testing.T) {
	s, err := ReadFile("../fixtures/scenarios/scale/hostile-lyinglengths.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{PCAP, PCAPNG} {
		var buf bytes.Buffer
		if _, err := s.Generate(&buf, f); err != nil {
			t.Fatal(err)
		}
		path := "../fixtures/captures/scale/hostile-lyinglengths." + f.String()
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./scenario -run GoldenScaleCaptures -update)", err)
		}
		if !bytes.Equal(old, buf.Bytes()) {
			os.WriteFile(path+".got", buf.Bytes(), 0o644)
			t.Errorf("%s is stale (wrote %s.got)", path, path)
		}
	}
}

// BenchmarkFlood generates flood scenarios into io.Discard: oneframes
// streams 100,000 one-byte frames, 1000 to a segment, as hostile-oneframes
// does with ten times as many, and conns opens 10,000 connections with one
// frame each. Allocations must not grow with frames or connections (the
// writer reuses its buffers).
func BenchmarkFlood(b *testing.B) {
	for _, bc := range []struct{ name, toml string }{
		{"oneframes", "[[flood]]\nframes = 100000\nmessage = \"04\"\nper_segment = 1000\n"},
		{"conns", "[[flood]]\nconns = 10000\nframes = 1\nmessage = \"04\"\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := Parse("bench", []byte(bc.toml))
			if err != nil {
				b.Fatal(err)
			}
			benchGenerate(b, s)
		})
	}
}
