package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/internal/pipeline"
)

// TestOpenListsWhatDumpLists (issue 23): open decodes every ULinkRPC
// fixture as dump does, KCP on a port no option names included
// (kcp-otherport: open built its capture without the KCP probe and showed
// none of its messages): open's index holds as many messages as dump
// prints, each on the connection and direction dump prints it on.
func TestOpenListsWhatDumpLists(t *testing.T) {
	for _, c := range rpcCaptures(t) {
		name := strings.TrimSuffix(filepath.Base(c), ".pcapng")
		t.Run(name, func(t *testing.T) {
			args := append(append([]string{"open"}, rpcArgs(name)...), c)
			o, err := parseOptions(t, newCmdOpen, strings.Join(args, " "))
			if err != nil || o == nil {
				t.Fatalf("open %s: %v", name, err)
			}
			lf, _, err := openFeed(o)
			if err != nil {
				t.Fatal(err)
			}
			defer lf.src.Close()
			if err := pipeline.FeedRPC(lf.src, lf.dc, lf.rp, nil); err != nil {
				t.Fatal(err)
			}
			dargs := append(append([]string{"dump", "--json"}, rpcArgs(name)...), c)
			code, out, errOut := run(t, nil, dargs...)
			if code != exitOK {
				t.Fatalf("dump --json: exit %d, %s", code, errOut)
			}
			var recs []struct {
				N         int
				Conn, Dir string
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var r struct {
					N         int
					Conn, Dir string
				}
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				recs = append(recs, r)
			}
			if len(recs) == 0 {
				t.Fatalf("dump lists no message of %s: the test compares nothing", name)
			}
			if lf.dc.Len() != len(recs) {
				t.Fatalf("open %s lists %d messages; dump lists %d", name, lf.dc.Len(), len(recs))
			}
			for _, r := range recs {
				m := lf.dc.Message(r.N)
				if m == nil || m.Conn.String() != r.Conn || m.Dir.String() != r.Dir {
					t.Errorf("open %s: message %d is %v; dump lists it on %s %s", name, r.N, m, r.Conn, r.Dir)
				}
			}
		})
	}
}
