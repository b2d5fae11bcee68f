package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

func TestNotPcap(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"hello world", "not a pcap or pcapng file (magic 0x68656c6c)"},
		{"ab", "not a pcap or pcapng file (only 2 bytes)"},
		{"", "not a pcap or pcapng file (only 0 bytes)"},
	}
	for _, tt := range tests {
		_, err := NewReader(strings.NewReader(tt.in), "x", Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewReader(%q) error = %v; want it to contain %q", tt.in, err, tt.want)
		}
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.pcap"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing) error = %v; want os.ErrNotExist", err)
	}
}

// TestTruncated cuts a valid capture at every byte after its header: each
// cut yields the flows read before it, then at most a note, then io.EOF.
func TestTruncated(t *testing.T) {
	for _, format := range []string{"pcap", "pcapng"} {
		rs := recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, handshake()...)
		full := writePcap(t, false, layers.LinkTypeEthernet, rs)
		if format == "pcapng" {
			full = writePcapng(t, rs)
		}
		whole := drain(t, mustReader(t, full)).stream(Flow{cli4, srv4}, false)
		for n := 24; n < len(full); n++ {
			src, err := NewReader(bytes.NewReader(full[:n]), "cut", Options{})
			if err != nil {
				if format == "pcapng" && n < int(binary.LittleEndian.Uint32(full[4:])) {
					continue // the section or interface header itself is cut
				}
				t.Fatalf("%s cut at %d: NewReader: %v", format, n, err)
			}
			r := drain(t, src)
			got := r.stream(Flow{cli4, srv4}, false)
			if !strings.HasPrefix(whole, got) {
				t.Errorf("%s cut at %d: client stream %q is not a prefix of %q", format, n, got, whole)
			}
			if format == "pcap" && (n-24)%(16+60) != 0 {
				// Every frame is 60 bytes: the cut record starts at the
				// last record boundary before n.
				want := fmt.Sprintf("truncated record at byte %d:", 24+(n-24)/(16+60)*(16+60))
				if !slices.ContainsFunc(r.notes, func(s string) bool { return strings.Contains(s, want) }) {
					t.Errorf("pcap cut at %d: notes = %q; want %q", n, r.notes, want)
				}
			}
		}
	}
}

func mustReader(t *testing.T, b []byte) Source {
	t.Helper()
	src, err := NewReader(bytes.NewReader(b), "test", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestOpenFileAndGzip writes a capture to disk, plain and gzipped, and
// checks progress counters.
func TestOpenFileAndGzip(t *testing.T) {
	rs := recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, handshake()...)
	raw := writePcap(t, true, layers.LinkTypeEthernet, rs)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	for name, b := range map[string][]byte{"a.pcap": raw, "a.pcap.gz": gz.Bytes()} {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(p, Options{})
		if err != nil {
			t.Fatalf("Open(%s): %v", name, err)
		}
		r := drain(t, src)
		if got := r.stream(Flow{cli4, srv4}, true); got != wantS {
			t.Errorf("%s: server stream = %q; want %q", name, got, wantS)
		}
		st := src.Stats()
		if st.Size != int64(len(b)) {
			t.Errorf("%s: Size = %d; want %d", name, st.Size, len(b))
		}
		if name == "a.pcap" && st.Read != int64(len(raw)) {
			t.Errorf("%s: Read = %d; want %d", name, st.Read, len(raw))
		}
		if err := src.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// TestNanosecondTime checks that a nanosecond pcap keeps its timestamps.
func TestNanosecondTime(t *testing.T) {
	ts := t0.Add(123456789 * time.Nanosecond)
	rs := []rec{{data: frame(t, frameOpts{link: layers.LinkTypeEthernet}, plain, seg{false, 1, "PA", "x"}), link: layers.LinkTypeEthernet, ts: ts}}
	for _, b := range [][]byte{writePcap(t, true, layers.LinkTypeEthernet, rs), swapPcap(writePcap(t, true, layers.LinkTypeEthernet, rs))} {
		r := drain(t, mustReader(t, b))
		if len(r.opens) != 1 || !r.opens[0].Time.Equal(ts) {
			t.Errorf("open time = %v; want %v", r.opens, ts)
		}
	}
}

// TestUnsupportedLink notes an unknown link type once.
func TestUnsupportedLink(t *testing.T) {
	pkts := []Packet{{Data: []byte{1, 2, 3}, Link: 147, Time: t0}, {Data: []byte{1, 2, 3}, Link: 147, Time: t0}}
	r := drain(t, NewPackets(pkts, Options{}))
	if len(r.notes) != 1 || !strings.Contains(r.notes[0], "unsupported link type 147") || !strings.Contains(r.notes[0], "on interface 0") {
		t.Errorf("notes = %q; want one unsupported link type 147 on interface 0", r.notes)
	}
}

// TestGarbageFrames feeds every cut of a frame and random bytes on every
// link type: nothing panics and nothing but notes come out.
func TestGarbageFrames(t *testing.T) {
	links := []layers.LinkType{layers.LinkTypeEthernet, layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2, layers.LinkTypeRaw, layers.LinkTypeNull, layers.LinkTypeLoop, layers.LinkTypeIPv4, layers.LinkTypeIPv6}
	for _, l := range links {
		f := frame(t, frameOpts{link: l}, plain, seg{false, 1, "PA", "payload"})
		var pkts []Packet
		for n := 0; n < len(f); n++ {
			pkts = append(pkts, Packet{Data: f[:n], Link: l, Time: t0})
		}
		src := NewPackets(pkts, Options{})
		r := drain(t, src)
		if got := r.stream(Flow{cli4, srv4}, false); !strings.HasPrefix("payload", got) && !strings.Contains(got, "pay") {
			t.Errorf("%v: cut frames gave client stream %q", l, got)
		}
		if _, err := src.Next(); err != io.EOF {
			t.Errorf("%v: Next after end = %v; want io.EOF", l, err)
		}
	}
}

// TestStdinStreaming opens "-" on a pipe, as `tcpdump -U -w - | usmnscope
// open -` does: events of the first frames come out before the writer has
// sent the rest, so a live pipe is decoded as it arrives.
func TestStdinStreaming(t *testing.T) {
	rs := recs(t, frameOpts{link: layers.LinkTypeEthernet}, plain, handshake()...)
	file := writePcap(t, false, layers.LinkTypeEthernet, rs)
	firstData := 24 + 4*(16+60) // header and the first four records (SYN, SYN+ACK, ACK, "abc")
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = pr
	defer func() { os.Stdin = old }()
	rest := make(chan struct{})
	go func() {
		pw.Write(file[:firstData])
		<-rest
		pw.Write(file[firstData:])
		pw.Close()
	}()
	src, err := Open("-", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan Event, 1)
	go func() {
		for {
			ev, err := src.Next()
			if err != nil {
				got <- Event{}
				return
			}
			if ev.Kind == EventData {
				got <- *ev
				return
			}
		}
	}()
	select {
	case ev := <-got:
		if string(ev.Data) != "\x00\x03abc" {
			t.Errorf("first data from stdin = %q; want %q", ev.Data, "\x00\x03abc")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event from a partly written pipe: the reader waits for more than one record")
	}
	close(rest)
	var server []byte
	for {
		ev, err := src.Next()
		if err != nil {
			break
		}
		if ev.Kind == EventData && ev.FromServer {
			server = append(server, ev.Data...)
		}
	}
	if string(server) != wantS {
		t.Errorf("rest of stdin: server stream = %q; want %q", server, wantS)
	}
	if st := src.Stats(); st.Size != -1 {
		t.Errorf("stdin Size = %d; want -1", st.Size)
	}
}
