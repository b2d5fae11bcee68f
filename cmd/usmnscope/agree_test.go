package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// Every path agrees (issue 24): the streaming index (dump, dump --json,
// tables --json, tables --json --at N, from a file with its Store and from
// standard input), the full index (the TUI's, set up as runOpen sets it up),
// `live --write F` and F replayed (agreeLive) and the same capture cut at
// a packet give the same records for what they share. agree runs them all over one capture and says where they
// first differ ("" when they agree, or when the bytes are no capture).

// tuiIndex decodes the capture at path as `usmnscope open` does (runOpen):
// the full index from the one decode builder (pipeline.Open) with the
// file as its Store, ULinkRPC through the profile's ports and KCP probing.
func tuiIndex(path string) (*session.Index, error) {
	p := unturned.Default()
	rp, err := newRPC(p.ULinkRPC, "")
	if err != nil {
		return nil, err
	}
	d, err := pipeline.Open(pipeline.Options{Config: pipeline.Config{Profile: p, RPC: rp}, Path: path})
	if err != nil {
		return nil, err
	}
	defer d.Source.Close()
	dc := d.Index
	if err := d.Feed(nil); err != nil && strings.HasPrefix(err.Error(), "internal error") {
		return nil, fmt.Errorf("the TUI's index: %v", err)
	}
	return dc, nil
}

// agree checks every path over the capture data (written under dir) and
// its cuts after the packets numbered in cuts (from 1; past the last,
// ignored).
func agree(t testing.TB, dir string, data []byte, cuts []int) string {
	t.Helper()
	path := filepath.Join(dir, "agree.pcap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	full, err := tuiIndex(path)
	if err != nil {
		if strings.Contains(err.Error(), "TUI") {
			return err.Error()
		}
		return "" // not a capture: every path refuses it
	}
	ref := string(full.AppendJSONRange(nil, 1, full.Len(), nil))
	exec := func(stdin []byte, args ...string) (string, string) {
		var out, errw bytes.Buffer
		Execute(args, bytes.NewReader(stdin), &out, &errw)
		return out.String(), errw.String()
	}
	bug := func(what, out, errOut string) string {
		if strings.Contains(out, "usmnscope bug") || strings.Contains(errOut, "internal error") {
			return fmt.Sprintf("%s: a usmnscope bug: %.300s %.300s", what, errOut, out)
		}
		return ""
	}
	if b := bug("the TUI's index", ref, ""); b != "" {
		return b
	}
	// live --write F, replayed (agreeLive).
	if d := agreeLive(dir, data, ref, exec); d != "" {
		return d
	}
	// dump --json, from the file and from standard input.
	for _, src := range []string{path, "-"} {
		out, errOut := exec(data, "dump", "--json", src)
		if b := bug("dump --json "+src, out, errOut); b != "" {
			return b
		}
		// The index's records name no file; the streams name theirs
		// (host, capture), which is all they may differ in.
		if out = withoutOrigin(out); out != ref {
			return fmt.Sprintf("dump --json %s and the TUI's index differ:\n%s", src, firstDiff([]byte(out), []byte(ref)))
		}
	}
	// dump: one line per message, from the file and from standard input.
	var text [2]string
	for k, src := range []string{path, "-"} {
		out, errOut := exec(data, "dump", src)
		if b := bug("dump "+src, out, errOut); b != "" {
			return b
		}
		text[k] = dumpMessages(out, []string{"dump"})
	}
	if text[0] != text[1] {
		return fmt.Sprintf("dump of the file and of standard input differ:\n%s", firstDiff([]byte(text[0]), []byte(text[1])))
	}
	if got, want := strings.Count(text[0], "\n"), full.Len(); got != want {
		return fmt.Sprintf("dump printed %d message lines; the TUI's index has %d messages", got, want)
	}
	// tables --json from standard input (no profile hint) and the TUI's.
	tab, errOut := exec(data, "tables", "--json", "-")
	if b := bug("tables --json -", tab, errOut); b != "" {
		return b
	}
	want, err := full.TablesJSONAt(0)
	if err != nil {
		t.Fatal(err)
	}
	if tab != string(want) {
		return fmt.Sprintf("tables --json and the TUI's tables differ:\n%s", firstDiff([]byte(tab), want))
	}
	// tables --json --at N: the tables of every connection as of N.
	for _, n := range []int{1, (full.Len() + 1) / 2, full.Len()} {
		if n < 1 || n > full.Len() {
			continue
		}
		out, errOut := exec(data, "tables", "--json", "--at", fmt.Sprint(n), "-")
		if b := bug("tables --at", out, errOut); b != "" {
			return b
		}
		want, err := full.TablesJSONAt(n)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameTables(out, string(want)); d != "" {
			return fmt.Sprintf("tables --json --at %d and the TUI's tables as of %d differ: %s", n, n, d)
		}
	}
	// A cut: a record dump hands out (final) after packet k is the same
	// in the capture cut after packet k, whole line for line: bytes,
	// fields, findings, pair.
	final, err := finalAt(path)
	if err != nil {
		return err.Error()
	}
	if len(final) != full.Len() {
		return fmt.Sprintf("the stream handed out %d messages; the TUI's index has %d", len(final), full.Len())
	}
	ends := packetEnds(data)
	refs := strings.SplitAfter(ref, "\n")
	for _, k := range cuts {
		if k < 1 || k >= len(ends) {
			continue
		}
		out, errOut := exec(data[:ends[k-1]], "dump", "--json", "-")
		if b := bug(fmt.Sprintf("dump --json of the capture cut after packet %d", k), out, errOut); b != "" {
			return b
		}
		cut := strings.SplitAfter(withoutOrigin(out), "\n")
		for i, at := range final {
			if at > k {
				break
			}
			if i >= len(cut) || cut[i] != refs[i] {
				got := "nothing"
				if i < len(cut) {
					got = cut[i]
				}
				return fmt.Sprintf("the capture cut after packet %d: record %d, final after packet %d, is\n%.400s\nwant\n%.400s", k, i+1, at, got, refs[i])
			}
		}
	}
	return ""
}

// finalAt reads the capture at path through a streaming Index as dump
// --json does and returns, for each message in order, how many packets had
// been read when it was handed out (final).
func finalAt(path string) ([]int, error) {
	p := unturned.Default()
	rp, err := newRPC(p.ULinkRPC, "")
	if err != nil {
		return nil, err
	}
	opts := captureOptions(p)
	opts.DatagramPorts = rp.DatagramPorts(decodeAsOf(p))
	opts.ProbeDatagrams = pipeline.KCPProbeDatagrams
	src, err := openSourceWith(&streams{}, path, opts)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	dc := newDecoder(p)
	var final []int
	dc.SetStream(session.Stream{Spans: true, Settled: func(n int) error {
		final = append(final, int(src.Stats().Packets))
		return nil
	}})
	attachStore(dc, path)
	// inline: the source's count is the decoder's position only when
	// the source is read on the decoder's goroutine (not ahead).
	if err := pipeline.FeedRPC(inline{src}, dc, rp, nil); err != nil && strings.HasPrefix(err.Error(), "internal error") {
		return nil, fmt.Errorf("the stream: %v", err)
	}
	return final, nil
}

// inline is a file source that reports no size, so that the feed reads
// it on its own goroutine as it reads a stream (pipeline's ahead.go reads
// a file ahead on another), and Stats, read while a message is handed
// out, counts the packets up to that message.
type inline struct{ capture.Source }

func (s inline) Stats() capture.Stats {
	st := s.Source.Stats()
	st.Size = -1
	return st
}

// ClaimDatagrams passes a claim on (KCP on another port, capture's
// DatagramClaimer).
func (s inline) ClaimDatagrams(f capture.Flow) {
	if c, ok := s.Source.(capture.DatagramClaimer); ok {
		c.ClaimDatagrams(f)
	}
}

// jsonLines parses NDJSON records.
func jsonLines(s string) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			m = map[string]any{"unparsable": l}
		}
		out = append(out, m)
	}
	return out
}

// tablesKeys are what tables --at N shares with the full index's tables as
// of N, per connection: the cut reports findings, pending requests and the
// USMN markers as of N (README "tables --at N"), the full index's
// connection summary is the end's.
var tablesKeys = []string{"conn", "proto", "transport", "messages", "server_listeners", "client_listeners", "missing_on_server", "missing_on_client", "unresolved", "ping"}

// sameTables compares two tables --json documents on tablesKeys.
func sameTables(got, want string) string {
	var g, w struct {
		Connections []map[string]any `json:"connections"`
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return fmt.Sprintf("unparsable: %v: %.200s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return fmt.Sprintf("unparsable: %v", err)
	}
	if len(g.Connections) > len(w.Connections) {
		return fmt.Sprintf("%d connections; want at most %d", len(g.Connections), len(w.Connections))
	}
	for i, gc := range g.Connections {
		for _, key := range tablesKeys {
			a, _ := json.Marshal(gc[key])
			b, _ := json.Marshal(w.Connections[i][key])
			if !bytes.Equal(a, b) {
				return fmt.Sprintf("connection %d %v: %s is %s; want %s", i, gc["conn"], key, a, b)
			}
		}
	}
	return ""
}

// packetEnds is the byte offset of the end of each packet record of a
// pcap or pcapng capture, in order: cutting there keeps the first packets
// whole. A malformed capture ends the list where it stops making sense.
func packetEnds(data []byte) []int {
	var ends []int
	if len(data) < 24 {
		return nil
	}
	le := binary.LittleEndian
	var bo binary.ByteOrder = le
	switch m := le.Uint32(data); {
	case m == 0xa1b2c3d4 || m == 0xa1b23c4d:
	case m == 0xd4c3b2a1 || m == 0x4d3cb2a1:
		bo = binary.BigEndian
	case m == 0x0a0d0d0a:
		for off := 0; off+12 <= len(data); {
			typ := bo.Uint32(data[off:])
			if typ == 0x0a0d0d0a {
				if off+12 > len(data) {
					break
				}
				if le.Uint32(data[off+8:]) == 0x1a2b3c4d {
					bo = le
				} else {
					bo = binary.BigEndian
				}
			}
			n := int(bo.Uint32(data[off+4:]))
			if n < 12 || off+n > len(data) {
				break
			}
			off += n
			if typ == 6 || typ == 3 || typ == 2 {
				ends = append(ends, off)
			}
		}
		return ends
	default:
		return nil
	}
	for off := 24; off+16 <= len(data); {
		n := int(bo.Uint32(data[off+8:]))
		if n < 0 || off+16+n > len(data) {
			break
		}
		off += 16 + n
		ends = append(ends, off)
	}
	return ends
}

// agreeCuts are the cut points tried on a capture of np packets: a few
// spread over it.
func agreeCuts(np int) []int {
	if np <= 1 {
		return nil
	}
	var cuts []int
	for _, f := range []int{1, 2, 3, 5, 8} {
		if k := np * f / 9; k >= 1 && (len(cuts) == 0 || cuts[len(cuts)-1] != k) {
			cuts = append(cuts, k)
		}
	}
	return cuts
}

// TestEveryPathAgrees runs agree over every fixture capture of both
// protocols, the real-stack captures kept in internal/realnet/testdata,
// every capture of the tcpdump corpus (skipped with -short: 830 files) and
// every file of $USMNSCOPE_AGREE_DIR when set (a lab run's captures:
// USMNSCOPE_REALNET_KEEP_ALL=1 USMNSCOPE_REALNET_KEEP=DIR go test
// ./internal/realnet keeps them all).
func TestEveryPathAgrees(t *testing.T) {
	t.Parallel()
	files := quietFixtures(t)
	real, _ := filepath.Glob("../../internal/realnet/testdata/*.pcap")
	files = append(files, real...)
	corpus, _ := filepath.Glob("../../../shared/corpus/tcpdump/*")
	if !testing.Short() {
		files = append(files, corpus...)
	}
	if dir := os.Getenv("USMNSCOPE_AGREE_DIR"); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "*.pcap*"))
		if len(more) == 0 {
			t.Fatalf("USMNSCOPE_AGREE_DIR=%s holds no capture", dir)
		}
		files = append(files, more...)
	}
	dir := t.TempDir()
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || len(data) > 4<<20 {
			continue
		}
		if d := agree(t, dir, data, agreeCuts(len(packetEnds(data)))); d != "" {
			t.Errorf("%s: %s", f, d)
			continue
		}
		checked++
	}
	t.Logf("%d captures agree on every path; live --write F replayed: %d with every packet in F, %d with packets a cooked socket would not hand on (F's frames renumbered), each equal to the TUI's index; %d that pcapgo stops reading early (live equal to F only)", checked, liveWhole.Load(), livePart.Load(), liveStopped.Load())
}
