package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
)

// mixedCapture writes a capture of two fixture captures' packets (one
// Ethernet link type) interleaved by how far into its own capture each
// packet is, 1 ms apart: Unturned and ULinkRPC traffic at once.
func mixedCapture(t *testing.T, a, b string) string {
	t.Helper()
	type pkt struct {
		at   float64
		data []byte
		ci   gopacket.CaptureInfo
	}
	var all []pkt
	for k, path := range []string{a, b} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			t.Fatal(err)
		}
		var ps []pkt
		for {
			data, ci, err := r.ReadPacketData()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, pkt{data: append([]byte(nil), data...), ci: ci})
		}
		f.Close()
		for i := range ps {
			ps[i].at = (float64(i) + float64(k)/2) / float64(len(ps))
		}
		all = append(all, ps...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at < all[j].at })
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	if err := w.WriteFileHeader(262144, 1); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for i, p := range all {
		p.ci.Timestamp = t0.Add(time.Duration(i) * time.Millisecond)
		p.ci.CaptureLength, p.ci.Length = len(p.data), max(p.ci.Length, len(p.data))
		if err := w.WritePacket(p.ci, p.data); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "mixed.pcap")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMixedCaptureOutputs (issue 15, outputs.md "Ordering"): in a capture
// of both protocols, dump --json, dump and dump -V print the messages of
// both in one sequence, n from 1 without a gap, frame and time never
// decreasing; --filter proto==… splits it exactly; tables --json lists
// the connections of both.
func TestMixedCaptureOutputs(t *testing.T) {
	c := mixedCapture(t, "../../fixtures/captures/usmn-basic.pcapng", filepath.Join(rpcFixturesDir, "tcp-json.pcapng"))
	flags := append(rpcArgs("tcp-json"), c)
	code, out, errOut := run(t, nil, append([]string{"dump", "--json"}, flags...)...)
	if code != exitOK || errOut != "" {
		t.Fatalf("dump --json: exit %d, %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	byProto := map[string][]string{}
	prevFrame, prevTime := 0, ""
	for i, line := range lines {
		var r struct {
			N     int    `json:"n"`
			Frame int    `json:"frame"`
			Time  string `json:"time"`
			Proto string `json:"proto"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if r.Proto == "" {
			r.Proto = "unturned"
		}
		if r.N != i+1 || r.Frame < prevFrame || r.Time < prevTime {
			t.Fatalf("record %d: n %d frame %d time %s after frame %d time %s", i+1, r.N, r.Frame, r.Time, prevFrame, prevTime)
		}
		prevFrame, prevTime = r.Frame, r.Time
		byProto[r.Proto] = append(byProto[r.Proto], line)
	}
	var seq strings.Builder
	for _, line := range lines {
		seq.WriteByte(map[bool]byte{true: 'R', false: 'U'}[strings.Contains(line, `"proto":"ulinkrpc"`)])
	}
	t.Logf("protocols by n: %s", seq.String())
	if len(byProto["unturned"]) == 0 || len(byProto["ulinkrpc"]) == 0 || len(byProto) != 2 {
		t.Fatalf("records by proto: %d unturned, %d ulinkrpc, %d protos; want both", len(byProto["unturned"]), len(byProto["ulinkrpc"]), len(byProto))
	}
	for proto, want := range byProto {
		_, got, _ := run(t, nil, append([]string{"dump", "--json", "--filter", "proto==" + proto}, flags...)...)
		if got != strings.Join(want, "\n")+"\n" {
			t.Errorf("dump --json --filter proto==%s is not the %s records of the whole dump:\n%s", proto, proto, got)
		}
	}
	for _, args := range [][]string{{"dump"}, {"dump", "-V"}} {
		_, got, _ := run(t, nil, append(args, flags...)...)
		next := 1
		for _, line := range strings.Split(got, "\n") {
			// A message line: number, time, connection, direction, …
			f := strings.Fields(line)
			var n int
			if len(f) < 4 || f[3] != "c2s" && f[3] != "s2c" || !strings.Contains(f[2], "-") {
				continue
			}
			if _, err := fmt.Sscan(f[0], &n); err == nil {
				if n != next {
					t.Fatalf("%s: line %q; want message %d next", strings.Join(args, " "), line, next)
				}
				next++
			}
		}
		if next != len(lines)+1 {
			t.Errorf("%s: %d message lines; want %d", strings.Join(args, " "), next-1, len(lines))
		}
	}
	_, got, _ := run(t, nil, append([]string{"tables", "--json"}, flags...)...)
	var doc struct {
		Connections []struct {
			Proto    string `json:"proto"`
			Messages int    `json:"messages"`
		} `json:"connections"`
	}
	if err := json.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatal(err)
	}
	msgs := map[string]int{}
	for _, cn := range doc.Connections {
		p := cn.Proto
		if p == "" {
			p = "unturned"
		}
		msgs[p] += cn.Messages
	}
	if msgs["unturned"] != len(byProto["unturned"]) || msgs["ulinkrpc"] != len(byProto["ulinkrpc"]) {
		t.Errorf("tables --json messages by proto %v; want %d unturned and %d ulinkrpc", msgs, len(byProto["unturned"]), len(byProto["ulinkrpc"]))
	}
}
