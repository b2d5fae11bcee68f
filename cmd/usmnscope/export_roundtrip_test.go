package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/rpc"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
)

// exportFixture is a capture the round trip reads, with its flags.
type exportFixture struct {
	path string
	args []string
}

func exportFixtures(t *testing.T) []exportFixture {
	t.Helper()
	var fs []exportFixture
	caps, _ := filepath.Glob(filepath.Join(capturesDir, "*.pcapng"))
	for _, c := range caps {
		fs = append(fs, exportFixture{path: c})
	}
	for _, c := range rpcCaptures(t) {
		fs = append(fs, exportFixture{path: c, args: rpcArgs(filepath.Base(c))})
	}
	if len(fs) < 20 {
		t.Fatalf("%d fixture captures; want every one of both protocols", len(fs))
	}
	return fs
}

// decodeIndex decodes path as dump does with args.
func decodeIndex(t *testing.T, path string, args []string) *session.Index {
	t.Helper()
	var dc *session.Index
	var out, errw bytes.Buffer
	s := &streams{in: bytes.NewReader(nil), out: &out, err: &errw}
	root := newRoot(s)
	dump, _, err := root.Find([]string{"dump"})
	if err != nil {
		t.Fatal(err)
	}
	dump.RunE = func(cmd *cobra.Command, args []string) error {
		cfg, err := decodeLoaders(cmd).Load()
		if err != nil {
			return err
		}
		dc, err = readCapture(s, cfg, args[0], nil)
		return err
	}
	root.SetArgs(append(append([]string{"dump"}, args...), path))
	if err := root.Execute(); err != nil {
		t.Fatalf("decode %s: %v (%s)", path, err, errw.String())
	}
	return dc
}

// dumpRecords runs dump --json and returns its records.
func dumpRecords(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	code, out, errOut := run(t, nil, append([]string{"dump", "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("dump --json %v: exit %d: %s", args, code, errOut)
	}
	var rs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("dump --json %v: %v in %q", args, err, l)
		}
		rs = append(rs, r)
	}
	return rs
}

// sameRecord compares two records but for what numbers and names the file
// (n, frame, pair, capture, host).
func sameRecord(a, b map[string]any) bool {
	strip := func(m map[string]any) map[string]any {
		c := map[string]any{}
		for k, v := range m {
			switch k {
			case "n", "frame", "pair", "capture", "host":
			default:
				c[k] = v
			}
		}
		return c
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// randomFilters draws filters over dc: number ranges and lists, message
// names, directions, connections, protocols and their combinations.
func randomFilters(rng *rand.Rand, dc *session.Index, k int) []string {
	var out []string
	pick := func() *session.Message { return dc.Message(1 + rng.IntN(dc.Len())) }
	for len(out) < k {
		m := pick()
		if m == nil {
			continue
		}
		name := m.Kind.String()
		if rpcOf(m.Rec) != nil {
			name = rpcOf(m.Rec).Msg
		}
		switch rng.IntN(8) {
		case 0:
			a := 1 + rng.IntN(dc.Len())
			out = append(out, fmt.Sprintf("n >= %d && n <= %d", a, a+rng.IntN(6)))
		case 1:
			var ns []string
			for range 1 + rng.IntN(4) {
				ns = append(ns, fmt.Sprintf("n == %d", 1+rng.IntN(dc.Len())))
			}
			out = append(out, strings.Join(ns, " || "))
		case 2:
			out = append(out, "msg == "+name)
		case 3:
			out = append(out, "!(msg == "+name+")")
		case 4:
			out = append(out, "dir == "+m.Dir.String()+" && msg == "+name)
		case 5:
			out = append(out, fmt.Sprintf("conn == %q", m.Conn.String()))
		case 6:
			if rpcOf(m.Rec) != nil && rpcOf(m.Rec).RPC.Method != nil {
				out = append(out, fmt.Sprintf("method == %q", *rpcOf(m.Rec).RPC.Method))
			} else {
				out = append(out, "severity >= warn")
			}
		case 7:
			out = append(out, fmt.Sprintf("n == %d", m.N))
		}
	}
	return out
}

// tsharkRoot is what tshark says of running as root: not a complaint about
// the file.
const tsharkRoot = `Running as user "root" and group "root". This could be dangerous.`

// TestExportRoundTrip is issue 30's must-hold: for random filters over
// every fixture capture of both protocols, the pcapng the export writes
// (dump -w, the TUI's w) decodes to exactly the selected messages and the
// context the export names (pipeline.Exported.Context), with the same
// bytes and fields (numbers aside); the same filter over the written file
// selects the same records; and tshark opens it without a complaint.
// No fixture is excepted: transport-mess lost the first byte of a length
// header, and the written file keeps that gap (capture.Flows.Export).
func TestExportRoundTrip(t *testing.T) {
	if testing.Short() {
		// make test's race run is -short: the export is written and read
		// in one goroutine, and the plain run has checked every fixture.
		t.Skip("-short: the plain run checks the export round trip (about 160 s, tshark per export)")
	}
	t.Parallel()
	tshark, _ := exec.LookPath("tshark")
	rng := rand.New(rand.NewPCG(30, 2))
	tried := 0
	// tshark's start-up (its dissectors) is about a second of CPU an
	// export: the files are opened by tshark two at a time beside the
	// in-process checks, in a folder that outlives the subtests, and what
	// it says is reported when all have run.
	written := t.TempDir()
	opened := newTsharkRuns(tshark, 2)
	for _, fx := range exportFixtures(t) {
		name := filepath.Base(fx.path)
		t.Run(name, func(t *testing.T) {
			dc := decodeIndex(t, fx.path, fx.args)
			if dc.Len() == 0 {
				t.Skip("no messages")
			}
			all := dumpRecords(t, append(fx.args, fx.path)...)
			if len(all) != dc.Len() {
				t.Fatalf("dump --json: %d records; the index has %d", len(all), dc.Len())
			}
			for _, expr := range append([]string{""}, randomFilters(rng, dc, 4)...) {
				flt, err := filter.Parse(expr)
				if err != nil {
					t.Fatalf("filter %q: %v", expr, err)
				}
				nums := selected(dc, flt)
				if len(nums) == 0 {
					continue
				}
				tried++
				out := filepath.Join(written, fmt.Sprintf("%s.%d.pcapng", name, tried))
				ex, err := pipeline.Export(fx.path, dc, nums, out)
				if err != nil {
					t.Errorf("filter %q: export: %v", expr, err)
					continue
				}
				want := append(append([]int(nil), nums...), ex.Context...)
				slices.Sort(want)
				got := dumpRecords(t, append(fx.args, out)...)
				if len(got) != len(want) {
					t.Errorf("filter %q: the written file decodes to %d messages; want %d (%d asked, context %v)", expr, len(got), len(want), len(nums), ex.Context)
					continue
				}
				for i, n := range want {
					if !sameRecord(got[i], all[n-1]) {
						g, _ := json.Marshal(got[i])
						w, _ := json.Marshal(all[n-1])
						t.Errorf("filter %q: written message %d (n %d of the capture) differs:\ngot  %s\nwant %s", expr, i+1, n, g, w)
						break
					}
				}
				if expr != "" && !strings.Contains(expr, "n ") && !strings.Contains(expr, "conn") {
					again := dumpRecords(t, append(fx.args, "--filter", expr, out)...)
					orig := dumpRecords(t, append(fx.args, "--filter", expr, fx.path)...)
					if len(again) != len(orig) {
						t.Errorf("filter %q: %d records over the written file; %d over the capture", expr, len(again), len(orig))
					} else {
						for i := range again {
							if !sameRecord(again[i], orig[i]) {
								t.Errorf("filter %q over the written file: record %d differs", expr, i+1)
								break
							}
						}
					}
				}
				opened.open(fmt.Sprintf("%s, filter %q", name, expr), out)
			}
		})
	}
	for _, complaint := range opened.wait() {
		t.Error(complaint)
	}
	if tshark == "" {
		t.Log("tshark not installed: the written files were not opened in tshark")
	}
	t.Logf("%d exports checked", tried)
}

// tsharkRuns opens written files in tshark, at most par at once, and
// keeps what went wrong: a non-zero exit or anything on standard error
// but tshark's note on running as root.
type tsharkRuns struct {
	tshark     string
	slots      chan struct{}
	wg         sync.WaitGroup
	mu         sync.Mutex
	complaints []string
}

func newTsharkRuns(tshark string, par int) *tsharkRuns {
	return &tsharkRuns{tshark: tshark, slots: make(chan struct{}, par)}
}

// open starts tshark -r path (nothing without tshark); what names the
// file in a complaint.
func (r *tsharkRuns) open(what, path string) {
	if r.tshark == "" {
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.slots <- struct{}{}
		defer func() { <-r.slots }()
		var stderr bytes.Buffer
		cmd := exec.Command(r.tshark, "-r", path)
		cmd.Stderr = &stderr
		err := cmd.Run()
		complaint := strings.TrimSpace(strings.ReplaceAll(stderr.String(), tsharkRoot, ""))
		if err != nil || complaint != "" {
			r.mu.Lock()
			r.complaints = append(r.complaints, fmt.Sprintf("%s: tshark -r: %v %s", what, err, complaint))
			r.mu.Unlock()
		}
	}()
}

// wait waits for every tshark started and returns the complaints, sorted.
func (r *tsharkRuns) wait() []string {
	r.wg.Wait()
	slices.Sort(r.complaints)
	return r.complaints
}

// TestDumpWrite: dump --filter F -w OUT writes what the export writes and
// says so on standard error; it refuses standard input and text flags.
func TestDumpWrite(t *testing.T) {
	src := fixture(t, "usmn-basic.pcapng")
	out := filepath.Join(t.TempDir(), "w.pcapng")
	code, stdout, errOut := run(t, nil, "dump", "--filter", "msg==PingResponse", "-w", out, src)
	if code != exitOK || stdout != "" || !strings.HasPrefix(errOut, "usmnscope: wrote "+out+": ") {
		t.Fatalf("dump -w: exit %d, stdout %q, stderr %q; want 0, nothing, \"usmnscope: wrote %s: …\"", code, stdout, errOut, out)
	}
	want := dumpRecords(t, "--filter", "msg==PingResponse", src)
	got := dumpRecords(t, "--filter", "msg==PingResponse", out)
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("dump of the written file: %d PingResponse; want %d", len(got), len(want))
	}
	for _, args := range [][]string{
		{"dump", "-w", out, "-"},
		{"dump", "--json", "--write", out, src},
		{"dump", "-w", src, src},
	} {
		if code, _, errOut := run(t, nil, args...); code != exitUsage {
			t.Errorf("usmnscope %s: exit %d (%s); want a usage error", strings.Join(args, " "), code, errOut)
		}
	}
}

// TestTsharkRunsComplain: the round trip's tshark check reports a file
// tshark cannot read, so a broken export cannot pass unseen.
func TestTsharkRunsComplain(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed")
	}
	bad := filepath.Join(t.TempDir(), "bad.pcapng")
	writeFile(t, bad, []byte("\x0a\x0d\x0d\x0a not a section header"))
	r := newTsharkRuns(tshark, 2)
	r.open("bad", bad)
	r.open("good", fixture(t, "pings.pcapng"))
	if got := r.wait(); len(got) != 1 || !strings.HasPrefix(got[0], "bad: tshark -r: ") {
		t.Errorf("tsharkRuns over a broken and a good file = %q; want one complaint, the broken file's", got)
	}
}

// rpcOf is r as a ULinkRPC record, nil for none.
func rpcOf(r decode.Record) *rpc.Record {
	rr, _ := r.(*rpc.Record)
	return rr
}
