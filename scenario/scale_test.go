package scenario

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestScale generates a load capture, reassembles every connection and
// decodes every frame: the message count must be what Stats says, every
// message must decode cleanly in its connection's USMN state, and packets
// must stay close to one per message.
func TestScale(t *testing.T) {
	var buf bytes.Buffer
	st, err := Scale{Messages: 5000, Conns: 7, Seed: 9}.Generate(&buf, PCAPNG)
	if err != nil {
		t.Fatal(err)
	}
	if st.Messages < 5000 || st.Messages > 5002 || st.Conns != 7 {
		t.Errorf("Stats = %+v; want 5000 (+ a reply) messages over 7 connections", st)
	}
	ps, _ := readCapture(t, buf.Bytes())
	if len(ps) != st.Packets {
		t.Errorf("capture has %d packets; Stats says %d", len(ps), st.Packets)
	}
	if st.Packets > st.Messages*3/2 {
		t.Errorf("%d packets for %d messages; want about one per message", st.Packets, st.Messages)
	}
	byConn := map[layers.TCPPort][]int{}
	for i, p := range ps {
		tcp := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		port := tcp.SrcPort
		if port == 27016 {
			port = tcp.DstPort
		}
		byConn[port] = append(byConn[port], i)
	}
	if len(byConn) != 7 {
		t.Errorf("%d connections in the capture; want 7", len(byConn))
	}
	msgs := 0
	kinds := map[unturned.Kind]int{}
	for _, idx := range byConn {
		streams := reassemble(t, pick(ps, idx), 27016)
		var st [2]unturned.State
		for d, s := range streams {
			for len(s) >= 2 {
				n := int(binary.BigEndian.Uint16(s))
				if len(s) < 2+n {
					t.Fatalf("%s stream ends inside a frame", dissect.Dir(d))
				}
				var m unturned.Decoded
				unturned.Decode(nil, dissect.Dir(d), st[d], s[2:2+n], nil, &m)
				if !m.Clean() {
					t.Fatalf("load message does not decode cleanly: %+v", m.Findings)
				}
				if m.Kind == unturned.KindDownloadWorkshopFiles || m.Kind == unturned.KindGetWorkshopFiles {
					st[d].Widened, st[d].IDBits = true, 3
				}
				kinds[m.Kind]++
				msgs++
				s = s[2+n:]
			}
		}
	}
	if msgs != st.Messages {
		t.Errorf("%d messages in the streams; Stats says %d", msgs, st.Messages)
	}
	for _, k := range []unturned.Kind{unturned.KindInvokeMessageListener, unturned.KindNegotiateListenerDetails, unturned.KindServerPingRequest, unturned.KindClientPingResponse, unturned.KindAccepted} {
		if kinds[k] == 0 {
			t.Errorf("no %s in the load mix: %v", k, kinds)
		}
	}
	if tshark, err := exec.LookPath("tshark"); err == nil {
		path := filepath.Join(t.TempDir(), "scale.pcapng")
		os.WriteFile(path, buf.Bytes(), 0o644)
		out, err := exec.Command(tshark, "-r", path, "-q", "-z", "expert", "-o", "tcp.check_checksum:TRUE").CombinedOutput()
		if err != nil || strings.Contains(string(out), "Warns (") || strings.Contains(string(out), "Errors (") {
			t.Errorf("tshark on the load capture: %v\n%s", err, out)
		}
	}
}

func pick[T any](xs []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

func TestScaleErrors(t *testing.T) {
	for _, sc := range []Scale{{Messages: -1}, {Messages: 1, Link: "carrier-pigeon"}, {Messages: 1, Conns: 70000}} {
		if _, err := sc.Generate(io.Discard, PCAPNG); err == nil {
			t.Errorf("Scale%+v.Generate: no error", sc)
		}
	}
}

// BenchmarkScale writes a load capture; one op is one message, so ns/op is
// the cost per message (target: 1M messages in a few seconds).
func BenchmarkScale(b *testing.B) {
	b.ReportAllocs()
	st, err := Scale{Messages: b.N, Conns: 64, Seed: 1}.Generate(io.Discard, PCAPNG)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Packets)/float64(b.N), "packets/msg")
}

// BenchmarkGenerate generates the usmn-basic fixture.
func BenchmarkGenerate(b *testing.B) {
	s, err := ReadFile("../fixtures/scenarios/usmn-basic.toml")
	if err != nil {
		b.Fatal(err)
	}
	benchGenerate(b, s)
}

// benchGenerate generates s into io.Discard, b.N times.
func benchGenerate(b *testing.B, s *Scenario) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Generate(io.Discard, PCAPNG); err != nil {
			b.Fatal(err)
		}
	}
}
