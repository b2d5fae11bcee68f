package pipeline_test

import (
	"bytes"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

func TestParseDecodeAs(t *testing.T) {
	tests := []struct {
		in      string
		port    uint16
		proto   pipeline.Proto
		wantErr string
	}{
		{"27017=unturned", 27017, pipeline.ProtoUnturned, ""},
		{"6633=none", 6633, pipeline.ProtoNone, ""},
		{" 80 = unturned ", 80, pipeline.ProtoUnturned, ""},
		{"27017", 0, 0, "want PORT=PROTO"},
		{"0=unturned", 0, 0, "not a TCP port"},
		{"65536=unturned", 0, 0, "not a TCP port"},
		{"x=unturned", 0, 0, "not a TCP port"},
		{"27017=ulink", 0, 0, "want one of none, unturned"},
	}
	for _, tt := range tests {
		port, p, err := pipeline.ParseDecodeAs(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseDecodeAs(%q) = %v; want an error with %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || port != tt.port || p != tt.proto {
			t.Errorf("ParseDecodeAs(%q) = %d, %v, %v; want %d, %v", tt.in, port, p, err, tt.port, tt.proto)
		}
	}
	if got := pipeline.DecodeAsPorts("6633=none,28015=unturned,80=unturned"); !reflect.DeepEqual(got, []uint16{80, 28015}) {
		t.Errorf("DecodeAsPorts = %v; want [80 28015] (the ports decoded, sorted)", got)
	}
	got, err := pipeline.DecodeAs([]string{"6633=unturned", "27017=none", "6633=none"})
	if want := "6633=none,27017=none"; err != nil || got != want {
		t.Errorf("DecodeAs = %q, %v; want %q (sorted, the last value for a port wins)", got, err, want)
	}
}

// fixtureIndex decodes a fixture capture under the default profile with
// decode-as set.
func fixtureIndex(t *testing.T, name, decodeAs string) *session.Index {
	t.Helper()
	p := unturned.Default()
	p.DecodeAs = decodeAs
	src, err := capture.Open(filepath.Join("..", "..", "fixtures", "captures", name), capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ix := session.NewIndex(p)
	if err := pipeline.Feed(src, ix, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// rowsByServerPort counts the message rows per server port.
func rowsByServerPort(ix *session.Index) map[uint16]int {
	rows := map[uint16]int{}
	for _, ci := range ix.Connections() {
		rows[ci.Conn.Server.Port()] += ci.Messages
	}
	return rows
}

// TestPortsFixture (issue 13 point 4): game traffic on 27016 and on 28015
// (detected by its GetWorkshopFiles) gives rows; the length-prefixed
// protocol on 27017 and the mid-stream frames on 6633 give none and one
// connection note each, although their bytes frame as SystemSockets ones
// (the old code decoded 10 rows from them).
func TestPortsFixture(t *testing.T) {
	ix := fixtureIndex(t, "ports.pcapng", "")
	rows := rowsByServerPort(ix)
	if rows[27016] != 6 || rows[28015] != 5 {
		t.Errorf("rows by server port = %v; want 6 on 27016 and 5 on 28015", rows)
	}
	for _, ci := range ix.Connections() {
		port := ci.Conn.Server.Port()
		if port != 27017 && port != 6633 {
			continue
		}
		if ci.Messages != 0 || len(ci.Findings) != 1 {
			t.Errorf("%v: %d messages, %d findings %v; want none and one note", ci.Conn, ci.Messages, len(ci.Findings), ci.Findings)
			continue
		}
		if f := ci.Findings[0].Text; !strings.Contains(f, "not decoded as Unturned") || !strings.Contains(f, "--decode-as") {
			t.Errorf("%v: note %q; want it to say why and how to force it", ci.Conn, f)
		}
	}
	if rows[27017] != 0 || rows[6633] != 0 {
		t.Errorf("rows on 27017/6633 = %d/%d; want 0", rows[27017], rows[6633])
	}
}

// TestDecodeAs: PORT=unturned forces a port (with no SYN, the side on the
// named port is the server), PORT=none turns one off, transport_port
// included.
func TestDecodeAs(t *testing.T) {
	ix := fixtureIndex(t, "ports.pcapng", "6633=unturned,27016=none")
	rows := rowsByServerPort(ix)
	// 6633 joined mid-stream: framing resynchronises on its chained
	// lengths, so some of its three messages show.
	if rows[27016] != 0 || rows[28015] != 5 || rows[6633] == 0 {
		t.Errorf("rows by server port = %v; want 0 on 27016, 5 on 28015, some on 6633", rows)
	}
	for _, ci := range ix.Connections() {
		if ci.Conn.Client.Port() == 6633 {
			t.Errorf("%v: the named port is on the client side; want it the server", ci.Conn)
		}
	}
}

// TestCorpusNoGameRows: the whole shared tcpdump corpus (no Unturned
// traffic in it) gives no Unturned message rows (issue 13 point 4; the
// code before gave 1,683).
func TestCorpusNoGameRows(t *testing.T) {
	dir := os.Getenv("USMNSCOPE_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus", "tcpdump")
	}
	files, err := os.ReadDir(dir)
	if err != nil || len(files) == 0 {
		t.Skipf("needs a corpus of real-world captures (tcpdump's test captures, many malformed) in %s, or the folder $USMNSCOPE_CORPUS names; it is not part of the repository (%v)", dir, err)
	}
	if testing.Short() {
		t.Skip("-short: the corpus takes a few seconds")
	}
	total := 0
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		src, err := capture.NewReader(bytes.NewReader(raw), f.Name(), capture.Options{})
		if err != nil {
			continue // not a capture this reader opens: no rows either
		}
		ix := session.NewIndex(unturned.Default())
		_ = pipeline.Feed(src, ix, nil) // a cut capture keeps what it read
		if n := ix.Len(); n > 0 {
			total += n
			t.Errorf("%s: %d Unturned message rows from non-game traffic", f.Name(), n)
		}
	}
	t.Logf("message rows over the corpus: %d", total)
}

// heldSource is a source of n SYN'd connections on port 28015 whose server
// sends 40 KiB each and whose client never speaks.
type heldSource struct {
	n, i int
	data []byte
}

func (s *heldSource) Next() (*capture.Event, error) {
	if s.i >= 2*s.n {
		return nil, io.EOF
	}
	k := s.i / 2
	f := capture.Flow{
		Client: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(k >> 8), byte(k)}), 50000),
		Server: netip.MustParseAddrPort("10.1.0.1:28015"),
	}
	ev := capture.Event{Flow: f, Frame: s.i + 1, Time: time.Unix(0, int64(s.i)), Offset: -1}
	if s.i%2 == 0 {
		ev.Kind, ev.Rule = capture.EventOpen, capture.RuleSYN
	} else {
		ev.Kind, ev.FromServer, ev.Data = capture.EventData, true, s.data
	}
	s.i++
	return &ev, nil
}
func (s *heldSource) Stats() capture.Stats { return capture.Stats{} }
func (s *heldSource) Close() error         { return nil }

// TestRouterHeldBound: connections awaiting their first client message
// are held within a total bound: past it they are noted, not held, and
// none gives message rows.
func TestRouterHeldBound(t *testing.T) {
	src := &heldSource{n: 500, data: make([]byte, 40<<10)}
	ix := session.NewIndex(unturned.Default())
	if err := pipeline.Feed(src, ix, nil); err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 0 {
		t.Errorf("%d message rows; want none", ix.Len())
	}
	noted, bounded := 0, 0
	for _, ci := range ix.Connections() {
		if len(ci.Findings) == 1 && strings.Contains(ci.Findings[0].Text, "not decoded as Unturned") {
			noted++
			if strings.Contains(ci.Findings[0].Text, "MiB were held") {
				bounded++
			}
		}
	}
	// 500 × 40 KiB is 20 MiB; the router holds at most 4 MiB of it, about
	// 100 connections: the others are let go as they arrive.
	if bounded < 390 {
		t.Errorf("%d connections let go at the held-bytes bound; want the ~400 past 4 MiB", bounded)
	}
	if noted != 500 {
		t.Errorf("%d connections noted; want all 500, one note each", noted)
	}
}
