package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/scenario"
)

// Peak RSS caps (KiB, as Linux reports ru_maxrss) of one usmnscope
// process on the hostile scale captures of fixtures/scenarios/scale
// (issue 8), measured through TestRSSLauncher so that they are the
// process's own. Each is the bound that keeps memory finite plus what was
// measured for that case on top of it, with about 2× margin, so that a
// regression that buffers per byte, per frame or per flow shows.
const (
	// A million one-byte frames become a million messages; session.Index
	// keeps a compact record per message (tables, the TUI and --at need
	// them), so this grows with messages: measured 81–95 MiB for dump
	// --json, 55–57 MiB for tables --json.
	rssOneFrames = 192 << 10
	// 100,000 connections: capture.Options.MaxFlows (10,000) flows are
	// tracked and the other 90,000 cost nothing after one note (since the
	// fix in capture/reassembly.go open: no table scan per ignored
	// packet); measured 53–59 MiB.
	rssConns = 128 << 10
	// Out-of-order data: capture.Options.MaxBufferedTotal, 64 MiB of
	// 1900-byte pages, is the bound; with the garbage collector's headroom
	// and 76,000 messages measured 116–177 MiB.
	rssOutOfOrder = 352 << 10
	// Lying record lengths: a 4 GiB caplen is refused before anything is
	// allocated for it; measured 9–10 MiB, the Go runtime's floor, which
	// 2× would put too close to noise.
	rssLyingLengths = 32 << 10
)

const scaleScenarios = "../../fixtures/scenarios/scale"

// binRun is one finished usmnscope process.
type binRun struct {
	code   int
	lines  int      // stdout lines
	head   []string // the first headLines lines of stdout
	tail   []string // lines starting "# " (dump's trailer of findings)
	last   string   // the last stdout line
	all    []string // every line, when runBinary is asked to keep them
	stderr string
	rssKiB int64
}

const headLines = 50

// built is the binary the subprocess tests run, built once a test run
// (TestMain removes its folder).
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// buildBinary builds usmnscope as it ships (CGO_ENABLED=0) once a test
// run and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "usmnscope-bin"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "usmnscope")
		build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", built.bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// runBinary runs the binary through rssLauncher and reads its stdout line
// by line as it comes, so that a big dump is checked without being held:
// every line (and stderr) must be free of raw controls (rawControl). keep
// keeps all lines in all.
func runBinary(t *testing.T, bin string, keep bool, args ...string) binRun {
	t.Helper()
	spec, err := json.Marshal(append([]string{bin}, args...))
	if err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(t.TempDir(), "rusage")
	cmd := exec.Command(os.Args[0], "-test.run=^TestRSSLauncher$")
	cmd.Env = append(os.Environ(), "USMNSCOPE_RSS_LAUNCH="+string(spec), "USMNSCOPE_RSS_OUT="+result)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{b: &stderr, n: 1 << 20}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var r binRun
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	bad := 0
	for sc.Scan() {
		line := sc.Text()
		r.lines++
		if len(r.head) < headLines {
			r.head = append(r.head, line)
		}
		if keep {
			r.all = append(r.all, line)
		}
		if strings.HasPrefix(line, "# ") {
			r.tail = append(r.tail, line)
		}
		r.last = line
		if i, c, ok := rawControl(line); ok && bad < 5 {
			bad++
			t.Errorf("%v: stdout line %d has raw control %U at byte %d: %q", args, r.lines, c, i, line[max(0, i-20):min(len(line), i+20)])
		}
	}
	if err := sc.Err(); err != nil {
		t.Errorf("%v: reading stdout: %v", args, err)
	}
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: launcher: %v (%s)", args, err, stderr.String())
	}
	b, err := os.ReadFile(result)
	if err != nil {
		t.Fatalf("%v: launcher wrote no result: %v (%s)", args, err, stderr.String())
	}
	var cpu time.Duration
	if _, err := fmt.Sscan(string(b), &r.code, &r.rssKiB, &cpu); err != nil {
		t.Fatalf("%v: launcher result %q: %v", args, b, err)
	}
	r.stderr = stderr.String()
	if i, c, ok := rawControl(r.stderr); ok {
		t.Errorf("%v: stderr has raw control %U at byte %d: %q", args, c, i, r.stderr)
	}
	if strings.Contains(r.stderr, "usmnscope bug") || strings.Contains(r.stderr, "panic") {
		t.Errorf("%v: a panic was reported: %.500s", args, r.stderr)
	}
	t.Logf("%v: exit %d, %d lines, peak RSS %d MiB, CPU %v", args[:len(args)-1], r.code, r.lines, r.rssKiB>>10, cpu.Round(time.Millisecond))
	return r
}

// TestRSSLauncher is not a test but the middle process of runBinary's
// measurement. Linux carries a parent's peak RSS (its mm's high-water
// mark) into a child started with CLONE_VM|CLONE_VFORK, as os/exec starts
// them, through the child's exec: a child of this test process would
// report at least the test process's own peak, which other tests of the
// package (the corpus run, the TUI benchmarks' captures) push to hundreds
// of MiB. This launcher is a fresh process whose peak is the test binary's
// start-up, ~10 MiB: its child's ru_maxrss is the child's own above that
// floor, which the caps include. It runs the command in
// USMNSCOPE_RSS_LAUNCH (a JSON array) with the launcher's stdout and
// stderr, writes "exit-code maxrss-KiB cpu-ns" to USMNSCOPE_RSS_OUT and
// exits without the test framework's output.
func TestRSSLauncher(t *testing.T) {
	spec := os.Getenv("USMNSCOPE_RSS_LAUNCH")
	if spec == "" {
		t.Skip("only the launcher of runBinary's memory measurement")
	}
	var args []string
	if err := json.Unmarshal([]byte(spec), &args); err != nil || len(args) == 0 {
		t.Fatalf("USMNSCOPE_RSS_LAUNCH %q: %v", spec, err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	ps := cmd.ProcessState
	var rss int64
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	res := fmt.Sprintf("%d %d %d", ps.ExitCode(), rss, int64(ps.UserTime()+ps.SystemTime()))
	if err := os.WriteFile(os.Getenv("USMNSCOPE_RSS_OUT"), []byte(res), 0o644); err != nil {
		t.Fatal(err)
	}
	// Not os.Exit: the testing package reports an exit during a test, and
	// returning would print PASS into the child's stdout stream.
	syscall.Exit(0)
}

// limitedBuffer keeps the first n bytes written to it.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// generate writes a scale scenario's capture into dir with the binary's
// gen command, not in this process, which would otherwise hold the
// generator's memory (100,000 flows) for the rest of the run.
// edit, when not empty, is a "old|new" replacement of one line
// of the scenario file, for the variants of a case.
func generate(t *testing.T, bin, dir, name string, f scenario.Format, edit string) string {
	t.Helper()
	src := filepath.Join(scaleScenarios, name+".toml")
	out := filepath.Join(dir, name+"."+f.String())
	if edit != "" {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		old, repl, _ := strings.Cut(edit, "|")
		old, repl = old+"\n", repl+"\n"
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s has no line %q", src, old)
		}
		src = filepath.Join(dir, name+"-edited.toml")
		if err := os.WriteFile(src, bytes.Replace(b, []byte(old), []byte(repl), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		out = filepath.Join(dir, name+"-edited."+f.String())
	}
	args := []string{"gen", src, "-o", out}
	if f == scenario.PCAP {
		args = append(args, "--pcap")
	}
	if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("gen %s: %v\n%s", src, err, b)
	}
	return out
}

// record is the part of a dump --json record these tests look at.
type record struct {
	N    int    `json:"n"`
	Conn string `json:"conn"`
	Dir  string `json:"dir"`
	Len  int    `json:"len"`
	Msg  string `json:"msg"`
}

func parseRecord(t *testing.T, line string) record {
	t.Helper()
	var r record
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("dump --json line %q: %v", line, err)
	}
	return r
}

// tablesDoc is the part of tables --json these tests look at.
type tablesDoc struct {
	Connections []struct {
		Conn            string `json:"conn"`
		Messages        int    `json:"messages"`
		ServerListeners []struct {
			Type string `json:"type"`
		} `json:"server_listeners"`
	} `json:"connections"`
}

// scaleTables runs tables --json, which prints one document, checks its
// peak RSS against rssCap and parses it.
func scaleTables(t *testing.T, bin, path string, rssCap int64) tablesDoc {
	t.Helper()
	r := runBinary(t, bin, true, "tables", "--json", path)
	checkRSS(t, "tables --json", r, rssCap)
	if r.code != 0 {
		t.Fatalf("tables --json %s: exit %d (%s)", path, r.code, r.stderr)
	}
	var doc tablesDoc
	if err := json.Unmarshal([]byte(strings.Join(r.all, "\n")), &doc); err != nil {
		t.Fatalf("tables --json: %v", err)
	}
	return doc
}

func checkRSS(t *testing.T, what string, r binRun, cap int64) {
	t.Helper()
	if raceOn {
		// The launcher's race-built pages count too (race_on_test.go):
		// the plain run checks the caps.
		t.Logf("%s: peak RSS %d MiB not checked under the race detector", what, r.rssKiB>>10)
		return
	}
	if r.rssKiB > cap {
		t.Errorf("%s: peak RSS %d MiB; cap %d MiB", what, r.rssKiB>>10, cap>>10)
	}
}

// checkBefore asserts that the ordinary connection every scale scenario
// starts with was decoded before the hostile part: GetWorkshopFiles,
// DownloadWorkshopFiles, the S→C invoke (wire.md 4.1, 4.3).
func checkBefore(t *testing.T, r binRun, conn string) {
	t.Helper()
	if len(r.head) < 3 {
		t.Fatalf("dump --json printed %d lines; want at least the 3 messages before the flood", len(r.head))
	}
	for i, want := range []string{"GetWorkshopFiles", "DownloadWorkshopFiles", "InvokeMessageListener"} {
		rec := parseRecord(t, r.head[i])
		if rec.N != i+1 || rec.Msg != want || rec.Conn != conn {
			t.Errorf("record %d = %+v; want n %d, %s on %s", i+1, rec, i+1, want, conn)
		}
	}
}

func hasLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// TestHostileScale runs the built binary on each hostile scale capture:
// what is shown, peak RSS under its cap, and no raw control bytes in any
// output (issue 8 point 2).
func TestHostileScale(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read as Linux reports it")
	}
	plainOnly(t, "the built binary's bounds (built without -race)")
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()

	t.Run("lyinglengths", func(t *testing.T) {
		const pastEnd = "caplen = 4294967000|caplen = 5000"
		for _, tc := range []struct {
			name, path, note string
		}{
			{"pcap, caplen ≈ 4 GiB", "../../fixtures/captures/scale/hostile-lyinglengths.pcap",
				"unreadable record at byte 2042: record length 4294967000 exceeds the snap length 200; read up to it"},
			{"pcapng, caplen ≈ 4 GiB", "../../fixtures/captures/scale/hostile-lyinglengths.pcapng",
				"unreadable record at byte 2312: packet block at byte 2312: captured length 4294967000, more than its 92-byte block holds; read up to it"},
			{"pcap, caplen past the end", generate(t, bin, dir, "hostile-lyinglengths", scenario.PCAP, pastEnd),
				"truncated record at byte 2042: read up to the cut"},
			{"pcapng, caplen past the end", generate(t, bin, dir, "hostile-lyinglengths", scenario.PCAPNG, pastEnd),
				"unreadable record at byte 2312: packet block at byte 2312: captured length 5000, more than its 92-byte block holds; read up to it"},
		} {
			r := runBinary(t, bin, false, "dump", tc.path)
			checkRSS(t, tc.name, r, rssLyingLengths)
			// Records 1–13 (snap length 200 with longer records, orig_len
			// 10 at record 6) read as they are: the 7 messages they hold
			// are all shown; record 14 ends the read with one finding.
			if r.code != 0 || r.lines != 8 || len(r.tail) != 1 || !strings.Contains(r.tail[0], tc.note) {
				t.Errorf("%s: exit %d, %d lines, trailer %q; want 0, 7 messages and %q", tc.name, r.code, r.lines, r.tail, tc.note)
			}
			j := runBinary(t, bin, false, "dump", "--json", tc.path)
			checkRSS(t, tc.name, j, rssLyingLengths)
			if j.code != 0 || j.lines != 7 {
				t.Errorf("%s: dump --json: exit %d, %d records; want 0 and 7", tc.name, j.code, j.lines)
			}
			checkBefore(t, j, "10.11.0.2:50800-10.11.0.1:27016")
			doc := scaleTables(t, bin, tc.path, rssLyingLengths)
			if len(doc.Connections) != 1 || len(doc.Connections[0].ServerListeners) != 2 {
				t.Errorf("%s: tables %+v; want one connection with Lying.First and Lying.Second", tc.name, doc)
			}
		}
	})
	t.Run("oneframes", func(t *testing.T) {
		path := generate(t, bin, dir, "hostile-oneframes", scenario.PCAPNG, "")
		// All million records go through dump --json's encoder only in
		// fuzz and bench runs (24 s on a loaded machine); here the filter
		// keeps the output small while every frame is still decoded.
		r := runBinary(t, bin, false, "dump", "--json", "--filter", "n<=40 || n>=999990", path)
		checkRSS(t, "dump --json", r, rssOneFrames)
		if r.code != 0 || r.lines != 40+14 {
			t.Fatalf("dump --json: exit %d, %d records; want 0 and 54 (n 1–40 and 999,990–1,000,003; stderr %q)", r.code, r.lines, r.stderr)
		}
		checkBefore(t, r, "10.8.0.2:50800-10.8.0.1:27016")
		// Every flood frame is a one-byte C→S PingRequest (04, wire.md 3).
		for _, line := range append(r.head[3:], r.last) {
			if rec := parseRecord(t, line); rec.Msg != "PingRequest" || rec.Dir != "c2s" || rec.Len != 1 || rec.Conn != "10.128.0.0:50000-10.0.0.1:27016" {
				t.Fatalf("flood record %+v; want a 1-byte c2s PingRequest on 10.128.0.0:50000-10.0.0.1:27016", rec)
			}
		}
		if rec := parseRecord(t, r.last); rec.N != 1_000_003 {
			t.Errorf("last record n %d; want 1000003", rec.N)
		}
		doc := scaleTables(t, bin, path, rssOneFrames)
		if len(doc.Connections) != 2 || doc.Connections[0].Messages != 3 || doc.Connections[1].Messages != 1_000_000 ||
			len(doc.Connections[0].ServerListeners) != 1 || doc.Connections[0].ServerListeners[0].Type != "Before.Flood, Before" {
			t.Errorf("tables: %+v; want the USMN connection (3 messages, Before.Flood) and the flood (1,000,000)", doc)
		}
	})

	t.Run("conns", func(t *testing.T) {
		path := generate(t, bin, dir, "hostile-conns", scenario.PCAPNG, "")
		r := runBinary(t, bin, false, "dump", path)
		checkRSS(t, "dump", r, rssConns)
		// The USMN connection closed before the flood, so all 10,000
		// tracked flows are flood flows: the first 10,000 of the SYN group,
		// one PingRequest each. The rest are ignored with one note.
		const tracked = 10_000
		want := "# capture: warn protocol: more than 10000 TCP flows at once: new flows are ignored until some close"
		if r.code != 0 || !hasLine(r.tail, want) {
			t.Fatalf("dump: exit %d, trailer %q; want 0 and %q", r.code, r.tail[:min(len(r.tail), 5)], want)
		}
		if got := r.lines - len(r.tail); got != 3+tracked {
			t.Errorf("dump: %d message lines; want 3 + %d", got, tracked)
		}
		j := runBinary(t, bin, false, "dump", "--json", path)
		checkRSS(t, "dump --json", j, rssConns)
		if j.code != 0 || j.lines != 3+tracked {
			t.Fatalf("dump --json: exit %d, %d records; want 0 and %d", j.code, j.lines, 3+tracked)
		}
		checkBefore(t, j, "10.9.0.2:50800-10.9.0.1:27016")
		if rec := parseRecord(t, j.last); rec.Msg != "PingRequest" || rec.Conn != "10.128.39.15:50000-10.0.0.1:27016" {
			t.Errorf("last record %+v; want the PingRequest of flood connection 10,000 (10.128.39.15)", rec)
		}
	})

	t.Run("outoforder", func(t *testing.T) {
		path := generate(t, bin, dir, "hostile-outoforder", scenario.PCAPNG, "")
		r := runBinary(t, bin, false, "dump", path)
		checkRSS(t, "dump", r, rssOutOfOrder)
		if r.code != 0 {
			t.Fatalf("dump: exit %d (%s)", r.code, r.stderr)
		}
		// Flood 1 (10.128.0.0 → 10.0.0.1) hits the per-flow cap once per
		// hole it can fill past: 6 holes, 6 hits. Flood 2 (→ 10.0.0.3)
		// hits the total cap on some of its flows; the rest are reported
		// lost when the input ends.
		perFlow, total, lost := 0, 0, 0
		for _, l := range r.tail {
			switch {
			case strings.Contains(l, "out-of-order buffer cap hit on 10.128.0.0:50000 → 10.0.0.1:27016 (1048576 bytes per flow, 67108864 in all): skipping 100 missing bytes"):
				perFlow++
			case strings.Contains(l, "→ 10.0.0.3:27016 (1048576 bytes per flow, 67108864 in all): skipping 100 missing bytes"):
				total++
			case strings.Contains(l, "s2c: 100 bytes lost before frame"):
				lost++
			}
		}
		if perFlow != 6 || total == 0 || total > 130 {
			t.Errorf("cap notes: %d per-flow on the first flood, %d on the second; want 6 and 1–130", perFlow, total)
		}
		j := runBinary(t, bin, false, "dump", "--json", path)
		checkRSS(t, "dump --json", j, rssOutOfOrder)
		if j.code != 0 || j.lines != r.lines-len(r.tail) {
			t.Errorf("dump --json: exit %d, %d records; want 0 and the %d of dump", j.code, j.lines, r.lines-len(r.tail))
		}
		checkBefore(t, j, "10.10.0.2:50800-10.10.0.1:27016")
		doc := scaleTables(t, bin, path, rssOutOfOrder)
		if len(doc.Connections) != 132 || doc.Connections[0].Messages != 3 {
			t.Errorf("tables: %d connections, the first with %d messages; want 132 and 3", len(doc.Connections), doc.Connections[0].Messages)
		}
		t.Logf("cap notes: %d per-flow, %d total; %d flows lost bytes at the end", perFlow, total, lost)
	})
}
