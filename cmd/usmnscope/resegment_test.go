package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/scenario"
)

// streamOrder is each connection direction's messages of a dump --json
// output, in order, as "msg hex": what a capture of the same streams cut
// into other segments must give again (issue 24).
func streamOrder(t testing.TB, out string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var r struct {
			Conn, Dir, Msg, Hex string
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("dump --json line %q: %v", line, err)
		}
		k := r.Conn + " " + r.Dir
		got[k] = append(got[k], r.Msg+" "+r.Hex)
	}
	return got
}

// sameOrder says where two streamOrder results differ, "" when they agree.
func sameOrder(got, want map[string][]string) string {
	for k, w := range want {
		g := got[k]
		for i := range max(len(g), len(w)) {
			switch {
			case i >= len(g):
				return fmt.Sprintf("%s: message %d (%.40s) missing", k, i+1, w[i])
			case i >= len(w):
				return fmt.Sprintf("%s: message %d (%.40s) extra", k, i+1, g[i])
			case g[i] != w[i]:
				return fmt.Sprintf("%s: message %d is %.40s; want %.40s", k, i+1, g[i], w[i])
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return k + ": not in the original"
		}
	}
	return ""
}

// TestResegmentedRetransmission cuts the pings fixture's streams the way
// Linux retransmits after a loss (issue 24 point 1): a segment is lost,
// its retransmission carries the lost bytes and half of the next segment,
// and the next segment arrives whole, overlapping what was delivered. At
// every segment, dump and dump --json of the file (a Store attached) and
// of standard input read every message of both streams, in order, with
// the original bytes, and report no usmnscope bug. The old code panicked
// in the streaming index's dropped check for a file: a message handed out
// at its commit keeps no bytes (streamNow), and one that then waits as an
// asker was looked up in an arena that, with every other message in the
// file, had no block.
func TestResegmentedRetransmission(t *testing.T) {
	sc, err := scenario.ReadFile("../../fixtures/scenarios/pings.toml")
	if err != nil {
		t.Fatal(err)
	}
	ps, _, err := sc.Packets()
	if err != nil {
		t.Fatal(err)
	}
	sh := takeTCP(t, ps)
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.pcap")
	if err := os.WriteFile(orig, sh.pcap(t, sh.segs, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, nil, "dump", "--json", orig)
	if code != exitOK || errOut != "" {
		t.Fatalf("dump --json %s: exit %d, stderr %q", orig, code, errOut)
	}
	want := streamOrder(t, out)
	shapes := 0
	for k := range sh.segs {
		segs, ok := resegment(sh.segs, k)
		if !ok {
			continue
		}
		shapes++
		data := sh.pcap(t, segs, 1000)
		path := filepath.Join(dir, fmt.Sprintf("reseg%d.pcap", k))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"dump", "--json", path}, {"dump", "--json", "-"}, {"dump", path}, {"dump", "-"}} {
			code, out, errOut := run(t, data, args...)
			if code != exitOK || errOut != "" || strings.Contains(out, "usmnscope bug") {
				t.Fatalf("segment %d lost and re-segmented: usmnscope %s: exit %d, stderr %q, output:\n%s", k, strings.Join(args, " "), code, errOut, out)
			}
			if args[1] != "--json" {
				continue
			}
			if d := sameOrder(streamOrder(t, out), want); d != "" {
				t.Errorf("segment %d lost and re-segmented: usmnscope %s: %s", k, strings.Join(args, " "), d)
			}
		}
	}
	if shapes < 10 {
		t.Fatalf("only %d shapes made; want at least 10", shapes)
	}
}
