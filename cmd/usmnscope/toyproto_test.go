package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/decode/transport/lp"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/views"
)

// The proof that the protocol seam is real (issue 23): a toy protocol,
// defined and registered in this file only, is decoded, numbered, paired,
// filtered and shown by dump, dump -V, dump --json, tables --json and the
// TUI, and a selection of it written back (dump -w), with no change
// anywhere else.
//
// The toy protocol runs on TCP port toyPort: frames with a 2-byte
// big-endian length (lp.Config{Width: 2}), each a type byte (1 request,
// 2 response), a 2-byte big-endian id, and text: a request's key, a
// response's value. A response answers the request of its id.

const toyPort, toyUDPPort = 7777, 7778

// toyFraming is the toy protocol's framing: 2-byte big-endian lengths up to 4 KiB.
var toyFraming = lp.Config{Width: 2, MaxLen: 4096, Frame: "frame", Header: "length"}

// toyRecord is one toy frame: a decode.Record.
type toyRecord struct {
	meta  decode.Meta
	req   bool
	id    uint16
	text  string
	asker *toyRecord // a response's request, once paired
}

func (r *toyRecord) Meta() decode.Meta { return r.meta }

func (r *toyRecord) Line() string {
	s := fmt.Sprintf("%s id=%d ", r.meta.Name, r.id)
	if r.req {
		s += "key=" + strconv.Quote(r.text)
	} else {
		s += "value=" + strconv.Quote(r.text)
	}
	if r.meta.HasLatency {
		s += fmt.Sprintf(" latency %s", r.meta.Latency)
	}
	return s
}

func (r *toyRecord) Tree() []decode.Node {
	layer := decode.Node{Kind: decode.LayerNode, Name: "toy", Text: fmt.Sprintf("%d bytes", len(r.meta.Data)), Field: -1}
	for i, f := range r.meta.Fields {
		layer.Children = append(layer.Children, decode.Node{Kind: decode.FieldNode, Label: f.Name, Path: f.Name, Field: i, Span: f})
	}
	out := []decode.Node{layer}
	if r.meta.Pair != 0 {
		out = append(out, decode.Node{Kind: decode.InfoNode, Name: "pair", Text: strconv.Itoa(r.meta.Pair), Field: -1})
	}
	return out
}

func (r *toyRecord) TreeText() string {
	var b strings.Builder
	for _, f := range r.meta.Fields {
		fmt.Fprintf(&b, "    %s = %s @%d+%d\n", f.Name, dissect.FormatValue(f.Value, dissect.TextValues), f.Bit, f.Bits)
	}
	return b.String()
}

func (r *toyRecord) AppendJSON(dst, _ []byte) []byte {
	m := r.meta
	out := map[string]any{"n": m.N, "frame": m.Frame, "conn": m.Conn.String(), "dir": m.Dir.String(),
		"proto": m.Proto, "msg": m.Name, "len": m.Len, "id": r.id, "text": r.text}
	if m.Pair != 0 {
		out["pair"] = m.Pair
	}
	if m.HasLatency {
		out["latency_ns"] = int64(m.Latency)
	}
	b, _ := json.Marshal(out)
	return append(dst, b...)
}

func (r *toyRecord) Values(name string) ([]any, bool) {
	switch strings.ToLower(name) {
	case "payload.id":
		return []any{uint64(r.id)}, true
	case "payload.text":
		return []any{r.text}, true
	}
	return nil, false
}

func (r *toyRecord) Clone() decode.Record {
	cp := *r
	return &cp
}

// toyConn is one toy connection: a decode.Conn.
type toyConn struct {
	cfg     decode.Config
	framers [2]*lp.Framer
	asks    map[uint16]*toyRecord
	n       int
}

func newToyConn(cfg decode.Config) decode.Conn {
	return &toyConn{cfg: cfg, framers: [2]*lp.Framer{lp.New(toyFraming), lp.New(toyFraming)},
		asks: map[uint16]*toyRecord{}}
}

func (c *toyConn) Bytes(d dissect.Dir, b []byte, at decode.Stamp) {
	c.framers[d&1].Feed(b, func(frame []byte, _ lp.FrameInfo) { c.frame(d, frame, at) })
}

// Datagram takes a UDP datagram: one frame without its length.
func (c *toyConn) Datagram(d dissect.Dir, b []byte, at decode.Stamp) { c.frame(d, b, at) }

// frame decodes one frame into a record and hands it to the host.
func (c *toyConn) frame(d dissect.Dir, frame []byte, at decode.Stamp) {
	{
		data := append([]byte(nil), frame...)
		r := &toyRecord{meta: decode.Meta{Frame: at.Frame, Time: at.Time, Conn: c.cfg.Conn, Dir: d, Proto: "toy",
			Len: len(data), Wire: len(data) + 2, Size: len(data), Data: data}}
		if len(data) < 3 || data[0] < 1 || data[0] > 2 {
			r.meta.Name = "ToyBad"
			r.meta.Findings = []dissect.Finding{{Severity: dissect.Error, Group: dissect.Malformed, Bit: 0, Text: "not a toy frame"}}
		} else {
			r.req, r.id, r.text = data[0] == 1, binary.BigEndian.Uint16(data[1:3]), string(data[3:])
			r.meta.Name = map[bool]string{true: "ToyRequest", false: "ToyResponse"}[r.req]
			r.meta.Fields = []dissect.Field{
				{Name: "type", Bit: 0, Bits: 8, Value: uint64(data[0])},
				{Name: "id", Bit: 8, Bits: 16, Value: uint64(r.id)},
				{Name: "text", Bit: 24, Bits: 8 * len(r.text), Value: r.text},
			}
		}
		c.cfg.Yield(r, at)
	}
}

func (c *toyConn) Gap(d dissect.Dir, lost int, _ decode.Stamp) { c.framers[d&1].Gap(lost) }
func (c *toyConn) End(decode.Stamp)                            {}
func (c *toyConn) Finish()                                     {}
func (c *toyConn) Holding() (uint64, bool)                     { return 0, false }
func (c *toyConn) Abandon()                                    {}
func (c *toyConn) Findings() []decode.ConnFinding              { return nil }
func (c *toyConn) Len() int                                    { return c.n }
func (c *toyConn) AppendTablesJSON(dst []byte) []byte {
	return append(dst, `,"toy":{"open":`+strconv.Itoa(len(c.asks))+`}`...)
}
func (c *toyConn) Waiting(r decode.Record) bool {
	t := r.(*toyRecord)
	return t.req && c.asks[t.id] == t
}
func (c *toyConn) Numbered(r decode.Record, n int) {
	t := r.(*toyRecord)
	t.meta.N = n
	c.n++
	if t.req {
		c.asks[t.id] = t
		return
	}
	if a := c.asks[t.id]; a != nil {
		delete(c.asks, t.id)
		a.meta.Pair, t.meta.Pair = n, a.meta.N
		t.meta.Latency, t.meta.HasLatency = t.meta.Time.Sub(a.meta.Time), true
	}
}

// toyExport is how a selection of toy messages is written back (dump -w):
// each frame is its 2-byte length and its record's bytes, placed in order
// from the cursor; a request's answer is written with it by the host.
var toyExport = &decode.Export{Framing: func(decode.Record) decode.Framing {
	return decode.Framing{Place: placeToy}
}}

func placeToy(s []byte, _ func(from, to int64) bool, ms []decode.Placed, kept map[int]bool, _ map[int]decode.Range) ([]decode.Range, error) {
	var rs []decode.Range
	cur := 0
	for _, m := range ms {
		data := m.Rec.Meta().Data
		end := cur + 2 + len(data)
		if end > len(s) || int(binary.BigEndian.Uint16(s[cur:])) != len(data) {
			return nil, fmt.Errorf("toy message %d not at %d", m.N, cur)
		}
		if kept[m.N] {
			rs = append(rs, decode.Range{From: int64(cur), To: int64(end)})
		}
		cur = end
	}
	return rs, nil
}

// registerToy registers the toy protocol for the test.
func registerToy(t *testing.T) {
	t.Helper()
	t.Cleanup(decode.Register(&decode.Protocol{Name: "toy", Ports: []uint16{toyPort}, DatagramPorts: []uint16{toyUDPPort}, Names: []string{"ToyRequest", "ToyResponse"},
		New: newToyConn, Export: toyExport}))
}

// toyCapture writes a pcap of one toy connection: SYN handshake, two
// answered requests and one unanswered, then FIN; 10 ms between packets.
func toyCapture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "toy.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	cli, srv := net.IPv4(10, 0, 0, 1).To4(), net.IPv4(10, 0, 0, 2).To4()
	seq := [2]uint32{1000, 5000} // client, server
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write := func(fromServer bool, syn, ack, fin bool, payload []byte) {
		s, d, sp, dp, i := cli, srv, layers.TCPPort(40000), layers.TCPPort(toyPort), 0
		if fromServer {
			s, d, sp, dp, i = srv, cli, dp, sp, 1
		}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: s, DstIP: d}
		tcp := &layers.TCP{SrcPort: sp, DstPort: dp, Seq: seq[i], Ack: seq[1-i], SYN: syn, ACK: ack, FIN: fin, PSH: len(payload) > 0, Window: 65535}
		_ = tcp.SetNetworkLayerForChecksum(ip)
		buf := gopacket.NewSerializeBuffer()
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(payload)); err != nil {
			t.Fatal(err)
		}
		seq[i] += uint32(len(payload))
		if syn || fin {
			seq[i]++
		}
		at = at.Add(10 * time.Millisecond)
		b := buf.Bytes()
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(b), Length: len(b)}, b); err != nil {
			t.Fatal(err)
		}
	}
	frame := func(typ byte, id uint16, text string) []byte {
		b := binary.BigEndian.AppendUint16(nil, uint16(3+len(text)))
		b = append(b, typ)
		b = binary.BigEndian.AppendUint16(b, id)
		return append(b, text...)
	}
	write(false, true, false, false, nil)
	write(true, true, true, false, nil)
	write(false, false, true, false, nil)
	write(false, false, true, false, frame(1, 1, "alpha"))
	write(true, false, true, false, frame(2, 1, "one"))
	write(false, false, true, false, frame(1, 2, "beta"))
	write(true, false, true, false, frame(2, 2, "two"))
	write(false, false, true, false, frame(1, 3, "gamma"))
	write(false, false, true, true, nil)
	write(true, false, true, true, nil)
	return path
}

// TestToyProtocol: the toy protocol, registered here, is decoded (three
// requests, two responses), numbered by arrival, paired (1↔2, 3↔4, with
// latency; 5 unanswered), filtered (proto, msg, payload.id), and shown by
// dump, dump -V, dump -x, dump --json, tables --json and the TUI.
func TestToyProtocol(t *testing.T) {
	registerToy(t)
	c := toyCapture(t)

	code, out, errOut := run(t, nil, "dump", c)
	if code != exitOK {
		t.Fatalf("dump: exit %d, %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	want := []string{
		`1 ToyRequest id=1 key="alpha"`,
		`2 ToyResponse id=1 value="one" latency 10ms`,
		`3 ToyRequest id=2 key="beta"`,
		`4 ToyResponse id=2 value="two" latency 10ms`,
		`5 ToyRequest id=3 key="gamma"`,
	}
	if len(lines) != len(want) {
		t.Fatalf("dump: %d lines; want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		f := strings.Fields(w)
		if got := strings.Fields(lines[i]); got[0] != f[0] || !strings.HasSuffix(lines[i], strings.Join(f[1:], " ")) {
			t.Errorf("dump line %d = %q; want number %s and ending %q", i+1, lines[i], f[0], strings.Join(f[1:], " "))
		}
		if !strings.Contains(lines[i], "10.0.0.1:40000") {
			t.Errorf("dump line %d = %q; want the connection", i+1, lines[i])
		}
	}

	code, out, _ = run(t, nil, "dump", "-V", "-x", c)
	if code != exitOK || !strings.Contains(out, "    text = \"alpha\" @24+40\n") || !strings.Contains(out, "01 00 01 61 6c 70 68 61") {
		t.Errorf("dump -V -x: exit %d; want the field tree and the bytes:\n%s", code, out)
	}

	code, out, errOut = run(t, nil, "dump", "--json", c)
	if code != exitOK {
		t.Fatalf("dump --json: exit %d, %s", code, errOut)
	}
	type rec struct {
		N, Pair   int
		Proto     string
		Msg       string
		ID        int
		LatencyNS *int64 `json:"latency_ns"`
	}
	var recs []rec
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r rec
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		recs = append(recs, r)
	}
	wantPairs := []int{2, 1, 4, 3, 0}
	if len(recs) != 5 {
		t.Fatalf("dump --json: %d records; want 5:\n%s", len(recs), out)
	}
	for i, r := range recs {
		if r.N != i+1 || r.Proto != "toy" || r.Pair != wantPairs[i] || (r.Msg == "ToyResponse") != (r.LatencyNS != nil) {
			t.Errorf("dump --json record %d = %+v; want n %d, proto toy, pair %d, latency on responses", i+1, r, i+1, wantPairs[i])
		}
	}

	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"proto==toy", []string{"1", "2", "3", "4", "5"}},
		{"msg==ToyResponse", []string{"2", "4"}},
		{"payload.id==2", []string{"3", "4"}},
		{"proto==toy && latency>1ms", []string{"2", "4"}},
		{"proto==unturned", nil},
	} {
		code, out, errOut := run(t, nil, "dump", "--filter", tc.filter, c)
		if code != exitOK {
			t.Fatalf("dump --filter %q: exit %d, %s", tc.filter, code, errOut)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				got = append(got, f[0])
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("dump --filter %q = messages %v; want %v", tc.filter, got, tc.want)
		}
	}

	code, out, errOut = run(t, nil, "tables", "--json", c)
	if code != exitOK {
		t.Fatalf("tables --json: exit %d, %s", code, errOut)
	}
	var tables struct {
		Connections []struct {
			Conn, Proto string
			Messages    int
			Toy         *struct{ Open int }
		}
	}
	if err := json.Unmarshal([]byte(out), &tables); err != nil {
		t.Fatalf("tables --json: %v:\n%s", err, out)
	}
	if len(tables.Connections) != 1 || tables.Connections[0].Proto != "toy" || tables.Connections[0].Messages != 5 ||
		tables.Connections[0].Toy == nil || tables.Connections[0].Toy.Open != 1 {
		t.Errorf("tables --json = %s; want one toy connection of 5 messages, 1 request open", out)
	}

	code, out, errOut = run(t, nil, "tables", "--json", "--at", "2", c)
	if code != exitOK || !strings.Contains(out, `"messages": 2,`) {
		t.Errorf("tables --json --at 2: exit %d, %s; want 2 messages:\n%s", code, errOut, out)
	}
	code, out, errOut = run(t, nil, "tables", c)
	if code != exitOK || !strings.Contains(out, "connection 10.0.0.1:40000-10.0.0.2:7777: toy, 5 messages\n") {
		t.Errorf("tables: exit %d, %s; want the toy connection:\n%s", code, errOut, out)
	}

	// dump -w: a selection written back holds the messages asked for and
	// their partners (the context), which decode again with their bytes.
	for _, tc := range []struct {
		filter string
		want   []string // the dump of what was written
	}{
		{"n==4", []string{`ToyRequest id=2 key="beta"`, `ToyResponse id=2 value="two" latency 10ms`}},
		{"n==1 || n==5", []string{`ToyRequest id=1 key="alpha"`, `ToyResponse id=1 value="one" latency 10ms`, `ToyRequest id=3 key="gamma"`}},
	} {
		w := filepath.Join(t.TempDir(), "toy-sel.pcapng")
		if code, _, errOut := run(t, nil, "dump", "--filter", tc.filter, "-w", w, c); code != exitOK {
			t.Fatalf("dump --filter %q -w: exit %d, %s", tc.filter, code, errOut)
		}
		code, out, errOut := run(t, nil, "dump", w)
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if code != exitOK || len(lines) != len(tc.want) {
			t.Fatalf("dump of the toy selection %q: exit %d, %s; want %d messages:\n%s", tc.filter, code, errOut, len(tc.want), out)
		}
		for i, w := range tc.want {
			if !strings.HasSuffix(lines[i], w) {
				t.Errorf("dump of the toy selection %q, line %d = %q; want it to end %q", tc.filter, i+1, lines[i], w)
			}
		}
	}

	// The TUI: open's decode, the views model over it; the list shows every
	// message with its name and summary, the detail pane the toy layer.
	o, err := parseOptions(t, newCmdOpen, "open "+c)
	if err != nil || o == nil {
		t.Fatalf("open: %v", err)
	}
	lf, _, err := openFeed(o)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Source.Close()
	if err := lf.Feed(nil); err != nil {
		t.Fatal(err)
	}
	if lf.Index.Len() != 5 {
		t.Fatalf("open lists %d messages; want 5", lf.Index.Len())
	}
	m := views.New(lf.Index, tuiConfig(c, lf.Index))
	m, _ = drive(m, tea.WindowSizeMsg{Width: 160, Height: 48}, views.ProgressMsg{Fraction: 1, Done: true}, keyPress("j"))
	screen := ansi.Strip(m.View().Content)
	for _, w := range []string{"ToyRequest", "ToyResponse", `value="one"`, `key="gamma"`, "10.0.0.2:7777  toy  5 msgs", "#2 frame 5 s2c 10.0.0.1:40000-10.0.0.2:7777 toy 6 bytes",
		"toy: 6 bytes", `@24+24 text = "one"`, "pair: 1"} {
		if !strings.Contains(screen, w) {
			t.Errorf("the TUI does not show %q:\n%s", w, screen)
		}
	}
}

// TestToyProtocolDatagrams: the toy protocol's datagram port (its
// DatagramPorts) makes capture yield its UDP datagrams and the router hand
// them to one connection per flow: a request and its response, paired.
func TestToyProtocolDatagrams(t *testing.T) {
	registerToy(t)
	path := filepath.Join(t.TempDir(), "toy-udp.pcap")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pcapgo.NewWriter(f)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	cli, srv := net.IPv4(10, 0, 0, 1).To4(), net.IPv4(10, 0, 0, 2).To4()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, body := range [][]byte{{1, 0, 9, 'k'}, {2, 0, 9, 'v'}} {
		s, d, sp, dp := cli, srv, layers.UDPPort(40001), layers.UDPPort(toyUDPPort)
		if i == 1 {
			s, d, sp, dp = srv, cli, dp, sp
		}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: s, DstIP: d}
		udp := &layers.UDP{SrcPort: sp, DstPort: dp}
		_ = udp.SetNetworkLayerForChecksum(ip)
		buf := gopacket.NewSerializeBuffer()
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, udp, gopacket.Payload(body)); err != nil {
			t.Fatal(err)
		}
		at = at.Add(5 * time.Millisecond)
		b := buf.Bytes()
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(b), Length: len(b)}, b); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	code, out, errOut := run(t, nil, "dump", path)
	if code != exitOK {
		t.Fatalf("dump: exit %d, %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], `ToyRequest id=9 key="k"`) || !strings.HasSuffix(lines[1], `ToyResponse id=9 value="v" latency 5ms`) ||
		!strings.Contains(lines[1], "10.0.0.1:40001-10.0.0.2:7778 s2c") {
		t.Errorf("dump of the toy datagrams =\n%s\nwant the request and its paired response on 10.0.0.1:40001-10.0.0.2:7778", out)
	}
}
