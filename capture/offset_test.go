package capture

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// offsetCount is what checkOffsets saw.
type offsetCount struct{ data, located int }

// checkOffsets reads the capture at path through Open and checks that every
// Data event with Offset ≥ 0 names the file bytes it carries, and that
// every other event has Offset -1.
func checkOffsets(t *testing.T, path string) offsetCount {
	t.Helper()
	return checkOffsetsOf(t, path, Options{}, EventData)
}

// checkOffsetsOf is checkOffsets with o, for the events of kind (EventData
// or EventDatagram).
func checkOffsetsOf(t *testing.T, path string, o Options, kind EventKind) offsetCount {
	t.Helper()
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Open(path, o)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	defer src.Close()
	var n offsetCount
	for i := 0; ; i++ {
		if i > 1_000_000 {
			t.Fatalf("%s: no io.EOF after 1M events", path)
		}
		ev, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: Next: %v", path, err)
		}
		if ev.Kind != kind {
			if ev.Offset != -1 {
				t.Errorf("%s: frame %d: %v event has Offset %d; want -1", path, ev.Frame, ev.Kind, ev.Offset)
			}
			continue
		}
		n.data++
		switch {
		case ev.Offset == -1:
		case ev.Offset < 0 || ev.Offset+int64(len(ev.Data)) > int64(len(file)):
			t.Errorf("%s: frame %d: Offset %d with %d bytes is outside the %d-byte file", path, ev.Frame, ev.Offset, len(ev.Data), len(file))
		case !bytes.Equal(file[ev.Offset:ev.Offset+int64(len(ev.Data))], ev.Data):
			t.Errorf("%s: frame %d: file[%d:+%d] = %q; want the event's Data %q", path, ev.Frame, ev.Offset, len(ev.Data),
				file[ev.Offset:ev.Offset+int64(len(ev.Data))], ev.Data)
		default:
			n.located++
		}
	}
	return n
}

// TestOffsetFixtures checks the offsets of every fixture capture.
func TestOffsetFixtures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(repoRoot(t), "fixtures", "captures", "*.pcap*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture captures (%v)", err)
	}
	for _, p := range paths {
		n := checkOffsets(t, p)
		t.Logf("%s: %d of %d data events located", filepath.Base(p), n.located, n.data)
	}
}

// TestOffsetDatagrams: the datagrams of the KCP fixtures, on their port
// and probed, carry their offsets in the file (a full index then points at
// the KCP frames in them).
func TestOffsetDatagrams(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(repoRoot(t), "fixtures", "ulinkrpc", "kcp-*.pcapng"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no KCP fixtures (%v)", err)
	}
	for _, p := range paths {
		seen := 0
		for _, o := range []Options{{DatagramPorts: [4]uint16{20000}}, {ProbeDatagrams: 8}} {
			n := checkOffsetsOf(t, p, o, EventDatagram)
			if n.located != n.data {
				t.Errorf("%s (ports %v, probing %d): %d of %d datagrams located; want all", filepath.Base(p), o.DatagramPorts, o.ProbeDatagrams, n.located, n.data)
			}
			seen += n.data
		}
		if seen == 0 {
			t.Errorf("%s: no datagrams", filepath.Base(p))
		}
	}
}

// multiFlow returns the frames of three interleaved flows: one in order with
// a retransmission and a partial overlap (both still contiguous runs of the
// file after trimming), one with two segments swapped (the slow path: no
// offsets), one over IPv6.
func multiFlow(t *testing.T) []rec {
	eth := frameOpts{link: layers.LinkTypeEthernet}
	a := conv{mustAP("10.0.0.2:40001"), srv4}
	b := conv{mustAP("10.0.0.3:40002"), srv4}
	c := conv{cli6, srv6}
	var rs []rec
	add := func(cv conv, s seg) {
		rs = append(rs, rec{data: frame(t, eth, cv, s), link: layers.LinkTypeEthernet, ts: t0.Add(time.Duration(len(rs)) * time.Millisecond)})
	}
	add(a, seg{false, 100, "S", ""})
	add(a, seg{true, 500, "SA", ""})
	add(b, seg{false, 1, "PA", "b-one."})
	add(a, seg{false, 101, "PA", "hello "})
	add(c, seg{false, 7, "PA", "six-one "})
	add(a, seg{false, 101, "PA", "hello "})      // retransmission: nothing new
	add(a, seg{false, 104, "PA", "lo world"})    // overlap: "world" is new
	add(b, seg{false, 13, "PA", "b-three."})     // ahead: the flow goes slow
	add(b, seg{false, 7, "PA", "b-two."})        // fills the hole
	add(a, seg{true, 501, "PA", "server says"})  // other direction
	add(c, seg{true, 9, "PA", "six-reply"})      // IPv6 server side
	add(c, seg{false, 15, "PA", "six-two"})      // IPv6 in order
	add(a, seg{false, 112, "FA", ""})            // FIN, no data
	add(a, seg{true, 512, "FA", "last bytes"})   // FIN with data
	add(b, seg{false, 21, "PA", "b-four, late"}) // slow path goes on
	return rs
}

// TestOffsetGenerated checks offsets over a generated multi-flow capture in
// every classic pcap flavour, and that inputs that are not plain files carry
// none.
func TestOffsetGenerated(t *testing.T) {
	rs := multiFlow(t)
	dir := t.TempDir()
	le := writePcap(t, false, layers.LinkTypeEthernet, rs)
	files := map[string][]byte{
		"le.pcap":   le,
		"be.pcap":   swapPcap(le),
		"nano.pcap": writePcap(t, true, layers.LinkTypeEthernet, rs),
		"ng.pcapng": writePcapng(t, rs),
	}
	// In-order segments with new bytes: a's "hello ", "world", "server
	// says", "last bytes"; c's three; b's first before it goes slow.
	const inOrder = 8
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		n := checkOffsets(t, p)
		if n.located != inOrder {
			t.Errorf("%s: %d of %d data events located; want %d", name, n.located, n.data, inOrder)
		}
	}

	// Neither a gzip file nor a reader that is not a file has offsets.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(le)
	zw.Close()
	p := filepath.Join(dir, "le.pcap.gz")
	if err := os.WriteFile(p, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := checkOffsets(t, p); n.located != 0 || n.data == 0 {
		t.Errorf("gzip: %d of %d data events located; want 0 of some", n.located, n.data)
	}
	r := drainOffsets(t, mustReader(t, le))
	if r != 0 {
		t.Errorf("NewReader: %d data events with an Offset; want 0", r)
	}
}

// drainOffsets counts the events of src whose Offset is not -1.
func drainOffsets(t *testing.T, src Source) int {
	t.Helper()
	n := 0
	for {
		ev, err := src.Next()
		if err != nil {
			return n
		}
		if ev.Offset != -1 {
			n++
		}
	}
}
