package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"testing"
	"time"
	"unicode/utf8"
)

// sgr matches the UI's own colour sequences, the only escapes usmnscope
// itself may emit (issue 8, step 3).
var sgr = regexp.MustCompile("\x1b\\[[0-9;]*m")

// rawControl reports the first byte or rune of s that would act on a
// terminal: C0 controls other than newline and tab, DEL, C1 controls,
// bidi overrides and isolates, and invalid UTF-8 (which a terminal may
// read as C1 in some encodings). SGR sequences are stripped first.
func rawControl(s string) (int, rune, bool) {
	s = sgr.ReplaceAllString(s, "")
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return i, r, true
			}
		case r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f:
			return i, r, true
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return i, r, true
		}
	}
	return 0, 0, false
}

// TestHostileOutputClean renders every fixture capture (hostile.pcapng
// carries ESC/CSI/OSC, C1, bidi and invalid UTF-8 in listener type names)
// through dump, dump --json and tables, and asserts no raw control reaches
// the terminal.
func TestHostileOutputClean(t *testing.T) {
	caps, _ := filepath.Glob(filepath.Join(capturesDir, "*.pcapng"))
	if len(caps) == 0 {
		t.Fatal("no fixture captures")
	}
	for _, c := range caps {
		for _, args := range [][]string{{"dump", c}, {"dump", "--json", c}, {"tables", c}} {
			_, out, errs := run(t, nil, args...)
			for name, s := range map[string]string{"stdout": out, "stderr": errs} {
				if i, r, bad := rawControl(s); bad {
					t.Errorf("%v: %s has raw control %U at byte %d: %q", args, name, r, i, s[max(0, i-20):min(len(s), i+20)])
				}
			}
		}
	}
}

// TestCorpusDumpJSON reads every real-world capture in the shared tcpdump
// corpus (none Unturned, many malformed) through the full dump --json path
// in-process: no panic (the pipeline's recover would print "usmnscope
// bug"), each file under 10 s, exit 0 or 1 only, and heap in use after
// each file under 256 MiB. The corpus is ../shared/corpus/tcpdump beside
// the repository (sharedDir); skipped, saying where it looked, when absent.
func TestCorpusDumpJSON(t *testing.T) {
	dir := os.Getenv("USMNSCOPE_CORPUS")
	if dir == "" {
		dir = filepath.Join(sharedDir(t), "corpus", "tcpdump")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Skipf("needs a corpus of real-world captures (tcpdump's test captures, many malformed) in %s, or the folder $USMNSCOPE_CORPUS names; it is not part of the repository (%v)", dir, err)
	}
	sort.Strings(files)
	const perFile = 10 * time.Second
	const heapCap = 256 << 20
	var slowest time.Duration
	var slowName string
	var peak uint64
	codes := map[int]int{}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
			continue
		}
		start := time.Now()
		done := make(chan struct{})
		var code int
		var out, errs string
		go func() {
			defer close(done)
			code, out, errs = run(t, nil, "dump", "--json", f)
		}()
		select {
		case <-done:
		case <-time.After(perFile):
			t.Fatalf("dump --json %s: still running after %v", f, perFile)
		}
		if d := time.Since(start); d > slowest {
			slowest, slowName = d, f
		}
		codes[code]++
		if code != 0 && code != 1 {
			t.Errorf("dump --json %s: exit %d; want 0 or 1 (stderr %q)", f, code, errs)
		}
		if regexp.MustCompile("usmnscope bug|internal error|panic").MatchString(errs + out) {
			t.Errorf("dump --json %s: panic reported: %.300s", f, errs)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peak {
			peak = ms.HeapInuse
		}
		if ms.HeapInuse > heapCap {
			t.Errorf("dump --json %s: heap in use %d MiB; want under %d MiB", f, ms.HeapInuse>>20, heapCap>>20)
		}
	}
	t.Logf("corpus: %d files, exit codes %v, slowest %v (%s), peak heap in use %d MiB", len(files), codes, slowest, filepath.Base(slowName), peak>>20)
}

// sharedDir is ../shared beside the repository (the specs, corpus and
// style guide of README.md): the directory above the one holding go.mod,
// found from the test's working directory, so it holds in any checkout.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared")
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatalf("no go.mod above the test's directory")
		}
		dir = up
	}
}
