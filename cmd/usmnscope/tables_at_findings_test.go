package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// findingLine is a connection finding line of the `tables` text.
var findingLine = regexp.MustCompile(`^  (note|warn|error) (\w+): (.*)$`)

// TestTablesAtRPCFindings checks that `tables --json --at N` gives a
// ULinkRPC connection the findings `tables --at N` shows for it: those
// said before its first message after N (issue 18), not every one its
// session found while the reading went on to settle N.
func TestTablesAtRPCFindings(t *testing.T) {
	plainOnly(t, "tables --at's ULinkRPC findings")
	type capture struct{ path, name string }
	var caps []capture
	for _, c := range rpcCaptures(t) {
		caps = append(caps, capture{c, strings.TrimSuffix(filepath.Base(c), ".pcapng")})
	}
	for _, mix := range [][2]string{{"usmn-midstream", "websocket-json"}, {"usmn-idbits-3", "tcp-midstream"}, {"usmn-midframe", "tcp-gzip"}, {"vanilla", "websocket-midstream"}} {
		caps = append(caps, capture{mixedCapture(t, "../../fixtures/captures/"+mix[0]+".pcapng", filepath.Join(rpcFixturesDir, mix[1]+".pcapng")), mix[1]})
	}
	for _, c := range caps {
		flags := rpcArgs(c.name)
		_, out, _ := run(t, nil, append(append([]string{"dump", "--json"}, flags...), c.path)...)
		total := strings.Count(out, "\n")
		for at := 1; at <= total; at++ {
			args := append(append([]string{"tables", "--at", fmt.Sprint(at)}, flags...), c.path)
			_, text, _ := run(t, nil, args...)
			_, js, _ := run(t, nil, append([]string{"tables", "--json"}, args[1:]...)...)
			var doc struct {
				Connections []struct {
					Conn, Proto string
					Findings    []struct{ Severity, Group, Text string }
				}
			}
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatalf("%s tables --json --at %d: %v", c.path, at, err)
			}
			for _, cn := range doc.Connections {
				if cn.Proto != "ulinkrpc" {
					continue
				}
				var got, want []string
				for _, f := range cn.Findings {
					got = append(got, f.Severity+" "+f.Group+": "+f.Text)
				}
				in := false
				for _, l := range strings.Split(text, "\n") {
					if strings.HasPrefix(l, "connection ") {
						in = strings.HasPrefix(l, "connection "+cn.Conn+":")
					}
					if m := findingLine.FindStringSubmatch(l); in && m != nil {
						want = append(want, m[1]+" "+m[2]+": "+m[3])
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s (%s) --at %d of %d: %s findings\n json %q\n text %q", c.path, c.name, at, total, cn.Conn, got, want)
				}
			}
		}
	}
}
