// Command testsum prints `go test -json` as plain `go test` prints its
// results, and lists every skipped test with its reason: `make test` runs
// the tests through it (bench/gotest.sh) because plain `go test` hides the
// reasons of skipped tests, and the tests that need tshark or tmux skip
// with one (issue 16 defect 11).
//
//	go test -json ./... | go run ./bench/testsum
//
// What it prints: each package's ok, FAIL or "[no test files]" line as go
// test does, preceded by the package's skipped tests in go test -v's form
// ("--- SKIP: TestX (0.00s)" and the lines the test logged, its reason);
// the output of failing tests and build errors as go test prints them;
// and, when anything failed, go test's closing "FAIL". It exits 1 when a
// test, a package or a build failed, 0 otherwise.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	failed, err := summarise(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Output     string
}

type testKey struct{ pkg, test string }

// summariser holds, per running test, the lines it printed (its -v
// output, which go test without -v shows only for a failure), and per
// package the skipped tests not yet reported.
type summariser struct {
	w      *bufio.Writer
	lines  map[testKey][]string
	skips  map[string][]string
	failed bool
}

func summarise(r io.Reader, w io.Writer) (bool, error) {
	s := &summariser{w: bufio.NewWriter(w), lines: map[testKey][]string{}, skips: map[string][]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event (go vet's or the go command's own text):
			// passed on as it came.
			s.w.Write(line)
			s.w.WriteByte('\n')
			continue
		}
		s.event(e)
		if e.Test == "" {
			s.w.Flush() // a package finished: show it now
		}
	}
	if s.failed {
		fmt.Fprintln(s.w, "FAIL")
	}
	if err := s.w.Flush(); err != nil {
		return s.failed, err
	}
	return s.failed, sc.Err()
}

func (s *summariser) event(e event) {
	k := testKey{e.Package, e.Test}
	switch e.Action {
	case "build-output":
		s.w.WriteString(e.Output)
	case "build-fail":
		s.failed = true
	case "output":
		if e.Test == "" {
			s.packageOutput(e.Package, e.Output)
			return
		}
		s.lines[k] = append(s.lines[k], e.Output)
	case "skip":
		if e.Test != "" {
			s.skips[e.Package] = append(s.skips[e.Package], report(s.lines[k], "--- SKIP: "+e.Test))
			delete(s.lines, k)
		}
	case "fail":
		s.failed = true
		if e.Test != "" {
			s.w.WriteString(report(s.lines[k], "--- FAIL: "+e.Test))
			delete(s.lines, k)
		}
	case "pass":
		delete(s.lines, k)
	}
}

// packageOutput passes on a package's own line, except the bare "PASS"
// that go test without -v does not print; the package's result line is
// preceded by its skipped tests.
func (s *summariser) packageOutput(pkg, out string) {
	if out == "PASS\n" {
		return
	}
	if strings.HasPrefix(out, "ok ") || strings.HasPrefix(out, "FAIL\t") || out == "FAIL\n" {
		for _, r := range s.skips[pkg] {
			s.w.WriteString(r)
		}
		delete(s.skips, pkg)
	}
	s.w.WriteString(out)
}

// report is a test's result as go test without -v prints a failure: the
// "--- FAIL: TestX (0.00s)" line (here head, when the test printed none),
// then what the test logged, indented; the -v framing ("=== RUN" and its
// kin) left out.
func report(lines []string, head string) string {
	var b strings.Builder
	var body []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "=== "):
		case strings.HasPrefix(t, "--- SKIP: ") || strings.HasPrefix(t, "--- FAIL: "):
			head = t
		case t != "":
			body = append(body, "    "+t)
		}
	}
	b.WriteString(head + "\n")
	if len(body) == 0 && strings.HasPrefix(head, "--- SKIP") {
		body = append(body, "    (no reason given)")
	}
	for _, l := range body {
		b.WriteString(l + "\n")
	}
	return b.String()
}
