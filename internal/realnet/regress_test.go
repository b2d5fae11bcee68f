package realnet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRegressionCaptures checks captures the lab made in which the
// decoding went wrong, kept in testdata with what their sides sent
// (<name>.json, the lab's connection record, and <name>.pcap): every
// message once, in send order, paired as sent, no usmnscope bug. They
// need no root and no network: they run everywhere.
//
//   - kcp-sn-order: ULinkRPC over kcp-go at 10 % loss with reordering; a
//     multi-fragment Response waits behind a lost fragment while later
//     single-segment Responses complete, and the decoder numbers those
//     first (issue 24 point 2).
//   - unturned-tcp-reseg, ulinkrpc-ws-reseg: Linux TCP at 10 % loss with
//     retransmissions cut otherwise than the segments first captured (the
//     WebSocket one with masked, fragmented messages and pings): decoded
//     right today, kept as real-stack shapes for the other checks.
func TestRegressionCaptures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no regression captures in testdata: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var c connRecord
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			d, err := decodeFile(filepath.Join("testdata", c.File))
			if err != nil {
				t.Fatal(err)
			}
			want := c.Pairs
			if c.Scenario != "" {
				if want, err = scenarioPairs(&c, t.TempDir()); err != nil {
					t.Fatal(err)
				}
			}
			if p := checkConn(&c, d, want); p != nil {
				if p.known != "" {
					t.Skipf("%s: %s", p.known, p.text)
				}
				t.Fatal(p.text)
			}
			if diff := pathsDiffer(filepath.Join("testdata", c.File)); diff != "" {
				t.Fatal(diff)
			}
		})
	}
}
