package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const twoEndsDir = "../../fixtures/captures/two-ends"

// TestSeveralCLI: dump --json of both ends of a session prints each
// message once with where each end saw it, the server's last segment
// missing in the client's capture; tables --json lists the clocks and each
// connection's host; a --time-shift offset wins; standard input cannot be
// one of several captures.
func TestSeveralCLI(t *testing.T) {
	client, server := filepath.Join(twoEndsDir, "client.pcapng"), filepath.Join(twoEndsDir, "server.pcapng")
	code, out, errOut := run(t, nil, "dump", "--json", "--host", "client.pcapng=cli", client, server)
	if code != exitOK || errOut != "" {
		t.Fatalf("dump --json: exit %d, %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	missing := 0
	for i, l := range lines {
		var r struct {
			N    int `json:"n"`
			Host string
			Seen []struct {
				Capture, Host string
				Frame         int
				TimeNS        int64 `json:"time_ns"`
			}
			OneWay    *int64   `json:"one_way_ns"`
			MissingIn []string `json:"missing_in"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.N != i+1 {
			t.Fatalf("record %d has n %d", i+1, r.N)
		}
		switch {
		case len(r.MissingIn) == 1 && r.MissingIn[0] == "client.pcapng" && len(r.Seen) == 1 && r.Seen[0].Host == "server" && r.OneWay == nil:
			missing++
		case len(r.MissingIn) == 0 && len(r.Seen) == 2 && r.Seen[0].Host == "cli" && r.Seen[1].Host == "server" && r.OneWay != nil && *r.OneWay >= 2_900_000:
		default:
			t.Errorf("record %d: %.300s", r.N, l)
		}
	}
	if missing == 0 || len(lines) < 300 {
		t.Errorf("%d records, %d missing in the client; want ≥ 300 and some", len(lines), missing)
	}

	_, out, _ = run(t, nil, "tables", "--json", client, server)
	var doc struct {
		Connections []struct{ Host, Capture string }
		Clocks      []struct {
			Capture  string
			OffsetNS int64   `json:"offset_ns"`
			DriftPPM float64 `json:"drift_ppm"`
			ErrorNS  int64   `json:"error_ns"`
			Source   string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Clocks) != 2 || doc.Clocks[1].Source != "estimated" || doc.Clocks[1].OffsetNS > -1749900000 || doc.Clocks[1].OffsetNS < -1750100000 {
		t.Errorf("clocks = %+v; want the server's offset -1.75 s ± 100 µs, estimated", doc.Clocks)
	}
	for _, c := range doc.Connections {
		if c.Host != "client" || c.Capture != "client.pcapng" {
			t.Errorf("connection host %q capture %q; want client, client.pcapng (first seen there)", c.Host, c.Capture)
		}
	}
	_, out, _ = run(t, nil, "tables", "--json", "--time-shift", "server.pcapng=-1.5s", client, server)
	doc.Clocks = nil
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Clocks) != 2 || doc.Clocks[1].Source != "time-shift" || doc.Clocks[1].OffsetNS != -1_500_000_000 || doc.Clocks[1].DriftPPM != 0 {
		t.Errorf("with --time-shift: clocks = %+v; want the given -1.5 s, time-shift", doc.Clocks)
	}
	for _, args := range [][]string{
		{"dump", client, "-"},
		{"tables", "--time-shift", "x.pcapng=1s", client, server},
		{"stats", "--time-shift", "server.pcapng=soon", client, server},
	} {
		if code, _, errOut := run(t, nil, args...); code != exitUsage || errOut == "" {
			t.Errorf("usmnscope %s: exit %d, %q; want a usage error", strings.Join(args, " "), code, errOut)
		}
	}
}
