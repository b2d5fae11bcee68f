package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

const rpcFixtures = "../fixtures/ulinkrpc"

func rpcScenarioFiles(t *testing.T) []string {
	t.Helper()
	fs, err := filepath.Glob(filepath.Join(rpcFixtures, "*.toml"))
	if err != nil || len(fs) == 0 {
		t.Fatalf("no ULinkRPC scenarios in %s: %v", rpcFixtures, err)
	}
	return fs
}

func generateRPC(t *testing.T, path string) (*RPC, []byte) {
	t.Helper()
	s, err := ReadRPCFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := s.Generate(&buf, PCAPNG); err != nil {
		t.Fatal(err)
	}
	return s, buf.Bytes()
}

// decodeRPC decodes a generated capture as the pipeline will: TCP and
// WebSocket through package capture's reassembly, KCP datagrams read with
// gopacket (capture yields no UDP payloads yet), every connection into an
// rpc.Session numbered capture-wide. keys overrides the scenario's key
// (nil: none).
func decodeRPC(t *testing.T, s *RPC, data []byte, keys *ulinkrpc.Keys) []*rpc.Session {
	t.Helper()
	n := 0
	cfg := rpc.Config{Contracts: s.contracts, Transform: ulinkrpc.TransformConfig{Keys: keys}, Number: func() int { n++; return n }}
	cfg.Transport, _ = rpc.ParseTransport(s.U.Transport)
	cfg.MidStream = slices.ContainsFunc(s.Conns[0].Actions, func(a RPCAction) bool { return a.Do == "capture" })
	var out []*rpc.Session
	byConn := map[dissect.Conn]*rpc.Session{}
	session := func(c dissect.Conn) *rpc.Session {
		if byConn[c] == nil {
			byConn[c] = rpc.New(c, cfg)
			out = append(out, byConn[c])
		}
		return byConn[c]
	}
	var last rpc.Stamp
	port := uint16(20000) // the ULinkRPC default, which the scale captures use
	if len(s.Conns) > 0 && s.Conns[0].ServerAddr.Port() != 0 {
		port = s.Conns[0].ServerAddr.Port() // the scenario's server port, 20000 or not
	}
	if cfg.Transport == rpc.KCP {
		pkts, _ := readCapture(t, data)
		for i, p := range pkts {
			udp, _ := p.Layer(layers.LayerTypeUDP).(*layers.UDP)
			if udp == nil {
				t.Fatalf("packet %d is not UDP", i+1)
			}
			src, dst := p.NetworkLayer().NetworkFlow().Endpoints()
			c := dissect.Conn{Client: addrPort(src.String(), uint16(udp.SrcPort)), Server: addrPort(dst.String(), uint16(udp.DstPort))}
			d := dissect.C2S
			if uint16(udp.SrcPort) == port {
				c.Client, c.Server, d = c.Server, c.Client, dissect.S2C
			}
			last = rpc.Stamp{Frame: i + 1, Time: p.Metadata().Timestamp}
			session(c).Datagram(d, udp.Payload, last)
		}
	} else {
		src, err := capture.NewReader(bytes.NewReader(data), "fixture", capture.Options{TransportPort: 20000})
		if err != nil {
			t.Fatal(err)
		}
		for {
			ev, err := src.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			c := dissect.Conn{Client: ev.Flow.Client, Server: ev.Flow.Server}
			d := dissect.C2S
			if ev.FromServer {
				d = dissect.S2C
			}
			last = rpc.Stamp{Frame: ev.Frame, Time: ev.Time}
			switch ev.Kind {
			case capture.EventData:
				session(c).Bytes(d, ev.Data, last)
			case capture.EventGap:
				session(c).Gap(d, ev.Lost, last)
			}
		}
	}
	for _, s := range out {
		s.End(last)
	}
	return out
}

func addrPort(ip string, port uint16) netip.AddrPort {
	return netip.AddrPortFrom(netip.MustParseAddr(ip), port)
}

// renderRPC is the three outputs of the sessions: dump lines, dump --json
// lines and the tables --json connections.
func renderRPC(ss []*rpc.Session) (txt, ndjson, tables []byte) {
	var rs []*rpc.Record
	conns := []byte(`{"connections":[`)
	for i, s := range ss {
		rs = append(rs, s.Records()...)
		if i > 0 {
			conns = append(conns, ',')
		}
		conns = rpc.AppendConnJSON(conns, s)
	}
	conns = append(conns, "]}"...)
	slices.SortFunc(rs, func(a, b *rpc.Record) int { return a.N - b.N })
	for _, r := range rs {
		txt = fmt.Appendf(txt, "%d %s %s %s\n", r.N, r.Conn, r.Dir, rpc.Line(r))
		ndjson = append(rpc.AppendJSON(ndjson, r), '\n')
	}
	var buf bytes.Buffer
	json.Indent(&buf, conns, "", "  ")
	buf.WriteByte('\n')
	return txt, ndjson, buf.Bytes()
}

func rpcGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(rpcFixtures, "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./scenario -run Golden -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		os.WriteFile(path+".got", got, 0o644)
		t.Errorf("%s differs from its golden file; see %s.got", name, path)
	}
}

// TestRPCGolden generates every ULinkRPC fixture scenario, checks the
// capture is the committed one byte for byte, decodes it and compares the
// dump, dump --json and tables --json outputs with the golden files. The
// encrypted scenario is also decoded without its key and with a wrong one.
func TestRPCGolden(t *testing.T) {
	for _, f := range rpcScenarioFiles(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".toml")
		t.Run(name, func(t *testing.T) {
			s, data := generateRPC(t, f)
			capPath := filepath.Join(rpcFixtures, name+".pcapng")
			if *update {
				if err := os.WriteFile(capPath, data, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if want, err := os.ReadFile(capPath); err != nil || !bytes.Equal(data, want) {
				t.Errorf("%s is not what %s generates (go test ./scenario -run Golden -update): %v", capPath, f, err)
			}
			variants := []struct {
				suffix string
				keys   *ulinkrpc.Keys
			}{{"", s.keys}}
			if s.keys != nil {
				wrong := ulinkrpc.DeriveKeys([]byte("not the key"), ulinkrpc.HKDF)
				variants = append(variants, struct {
					suffix string
					keys   *ulinkrpc.Keys
				}{".nokey", nil}, struct {
					suffix string
					keys   *ulinkrpc.Keys
				}{".wrongkey", &wrong})
			}
			for _, v := range variants {
				txt, nd, tb := renderRPC(decodeRPC(t, s, data, v.keys))
				rpcGolden(t, name+v.suffix+".dump.txt", txt)
				rpcGolden(t, name+v.suffix+".dump.ndjson", nd)
				rpcGolden(t, name+v.suffix+".tables.json", tb)
			}
		})
	}
}

// TestRPCTshark opens every ULinkRPC fixture capture with tshark, checksum
// validation on: no malformed packet, no checksum complaint, and the
// WebSocket ones read by its websocket dissector (Decode As on port 20000)
// with every binary message seen.
func TestRPCTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not installed (.ci/run installs it): skipping the tshark check")
	}
	for _, f := range rpcScenarioFiles(t) {
		s, data := generateRPC(t, f)
		path := filepath.Join(t.TempDir(), filepath.Base(f)+".pcapng")
		os.WriteFile(path, data, 0o644)
		args := []string{"-r", path, "-q", "-z", "expert",
			"-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE"}
		if s.U.Transport == "websocket" {
			args = append(args, "-d", "tcp.port==20000,http")
		}
		out, err := exec.Command(tshark, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("tshark -r %s: %v\n%s", path, err, out)
		}
		mess := len(s.Transport.Loss)+len(s.Transport.Reorder)+len(s.Transport.Retransmit) > 0 ||
			slices.ContainsFunc(s.Conns[0].Actions, func(a RPCAction) bool { return a.Do == "capture" })
		for _, line := range strings.Split(string(out), "\n") {
			m := expertSection.FindStringSubmatch(line)
			if strings.Contains(line, "Malformed") || strings.Contains(strings.ToLower(line), "checksum") ||
				m != nil && (m[1] == "Errors" || !mess) {
				t.Errorf("%s: tshark expert info: %q\n%s", f, line, out)
			}
		}
		if s.U.Transport != "websocket" || mess { // joined mid-stream: no upgrade for tshark to follow
			continue
		}
		out, err = exec.Command(tshark, "-r", path, "-d", "tcp.port==20000,http", "-Y", "websocket",
			"-T", "fields", "-e", "websocket.opcode", "-e", "websocket.mask").Output()
		if err != nil {
			t.Fatalf("tshark -Y websocket: %v\n%s", err, out)
		}
		// One WebSocket frame a packet here: opcode and mask bit in send
		// order, masked from the client only.
		var want []string
		sends, _, _ := s.play(0)
		for _, sd := range sends {
			mask := 0
			if sd.dir == dissect.C2S {
				mask = 1
			}
			want = append(want, fmt.Sprintf("%d\t%d", sd.op, mask))
		}
		got := strings.Split(strings.TrimSpace(string(out)), "\n")
		if !slices.Equal(got, want) {
			t.Errorf("%s: tshark's websocket dissector read %q; want %q", f, got, want)
		}
	}
}

// TestRPCParseErrors: a ULinkRPC scenario says what is wrong with it.
func TestRPCParseErrors(t *testing.T) {
	for _, tc := range []struct{ toml, want string }{
		{`protocol = "unturned"`, `protocol: "unturned"`},
		{"protocol = \"ulinkrpc\"\n[ulinkrpc]\ntransport = \"quic\"", "ulinkrpc.transport"},
		{"protocol = \"ulinkrpc\"\n[ulinkrpc]\nserializer = \"memorypack\"\n[[connection]]", "needs ulinkrpc.contracts"},
		{"protocol = \"ulinkrpc\"\n[ulinkrpc]\nkey = \"!!\"\n[[connection]]", "ulinkrpc.key"},
		{"protocol = \"ulinkrpc\"\n[[connection]]\n[[connection.action]]\ndo = \"dance\"", `unknown action "dance"`},
		{"protocol = \"ulinkrpc\"\n[[connection]]\n[[connection.action]]\ndo = \"ws_ping\"", "needs ulinkrpc.transport websocket"},
		{"protocol = \"ulinkrpc\"\n[[connection]]\n[[connection.action]]\ndo = \"call\"\nstatus = \"Fine\"", `status: "Fine"`},
		{"protocol = \"ulinkrpc\"\nbogus = 1\n[[connection]]", "unknown key bogus"},
		{"protocol = \"ulinkrpc\"", "no [[connection]]"},
	} {
		_, err := ParseRPC("t", []byte(tc.toml), "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRPC(%q) = %v; want an error with %q", tc.toml, err, tc.want)
		}
	}
	if !IsRPC([]byte(`protocol = "ulinkrpc"`)) || IsRPC([]byte(`name = "x"`)) {
		t.Error("IsRPC does not tell the protocols apart")
	}
}

// TestRPCWire checks the KCP generator's first datagram: the UKCP
// handshake with the scenario's conv, under a UDP checksum over IPv6 that
// gopacket computes the same. (The segments' reassembly and the encrypted
// frames with, without and with a wrong key are held by TestRPCGolden.)
func TestRPCWire(t *testing.T) {
	s, data := generateRPC(t, filepath.Join(rpcFixtures, "kcp-json.toml"))
	pkts, _ := readCapture(t, data)
	if len(pkts) < 4 {
		t.Fatalf("%d packets", len(pkts))
	}
	udp := pkts[0].Layer(layers.LayerTypeUDP).(*layers.UDP)
	h, ok := ulinkrpc.ParseHandshake(udp.Payload)
	if !ok || h.Ack || h.Conv != s.Conns[0].Conv {
		t.Fatalf("first datagram %x is not UKCP conv %d", udp.Payload, s.Conns[0].Conv)
	}
	if err := udp.SetNetworkLayerForChecksum(pkts[0].NetworkLayer()); err != nil {
		t.Fatal(err)
	}
	want := udp.Checksum
	buf := gopacket.NewSerializeBuffer()
	gopacket.SerializeLayers(buf, gopacket.SerializeOptions{ComputeChecksums: true}, udp, gopacket.Payload(udp.Payload))
	if udp.Checksum != want {
		t.Errorf("UDP checksum %#04x; gopacket computes %#04x", want, udp.Checksum)
	}
}
