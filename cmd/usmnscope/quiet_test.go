package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is an output written by the command and read by the test
// while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// quietFixtures are the fixture captures of both protocols.
func quietFixtures(t *testing.T) []string {
	a, _ := filepath.Glob(filepath.Join(capturesDir, "*.pcapng"))
	b, _ := filepath.Glob("../../fixtures/ulinkrpc/*.pcapng")
	if len(a) == 0 || len(b) == 0 {
		t.Skip("no fixture captures")
	}
	return append(a, b...)
}

// TestStdinQuiet is issue 24 point 3: `{ cat x.pcap; sleep 6; } | usmnscope
// dump -` prints every message of x before the input ends. Standard input
// is a pipe the test keeps open after writing the whole capture: dump,
// dump --json and dump -V print every message the file's dump prints
// (the same lines) while the pipe is still open, and tables --at N, N the
// last message, ends without waiting for the end of the input. Without
// the flush on quiet input the messages come only at the end of the input
// (this test then fails at its bound, which is far above the 100 ms).
func TestStdinQuiet(t *testing.T) {
	for _, path := range quietFixtures(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range [][]string{{"dump"}, {"dump", "--json"}, {"dump", "-V"}} {
			args := append(append([]string(nil), mode...), path)
			_, whole, _ := run(t, nil, args...)
			// The file's records name it (host, capture), standard
			// input's name stdin: compared without them.
			want := dumpMessages(withoutOrigin(whole), mode)
			if want == "" {
				continue
			}
			pr, pw := io.Pipe()
			var out, errw syncBuffer
			done := make(chan int, 1)
			go func() { done <- Execute(append(append([]string(nil), mode...), "-"), pr, &out, &errw) }()
			go func() { pw.Write(data) }()
			got := waitFor(func() bool { return strings.HasPrefix(withoutOrigin(out.String()), want) }, 3*time.Second)
			pw.Close()
			<-done
			if !got {
				t.Fatalf("usmnscope %s - < %s, the pipe left open: printed %d of the %d message lines of the file's before the end of the input; first difference:\n%s", strings.Join(mode, " "), filepath.Base(path), strings.Count(dumpMessages(out.String(), mode), "\n"), strings.Count(want, "\n"), firstDiff([]byte(out.String()), []byte(want)))
			}
		}
		_, whole, _ := run(t, nil, "dump", "--json", path)
		n := strings.Count(whole, "\n")
		if n == 0 {
			continue
		}
		pr, pw := io.Pipe()
		var out, errw syncBuffer
		done := make(chan int, 1)
		go func() { done <- Execute([]string{"tables", "--json", "--at", fmt.Sprint(n), "-"}, pr, &out, &errw) }()
		go func() { pw.Write(data) }()
		ended := waitFor(func() bool { return len(done) > 0 }, 3*time.Second)
		pw.Close()
		code := <-done
		if !ended || code != exitOK {
			t.Fatalf("usmnscope tables --json --at %d - < %s, the pipe left open: ended before the end of the input %v, exit %d, stderr %q", n, filepath.Base(path), ended, code, errw.String())
		}
		// Standard input gets no profile hint (it cannot be read again).
		_, want, _ := run(t, data, "tables", "--json", "--at", fmt.Sprint(n), "-")
		if out.String() != want {
			t.Errorf("usmnscope tables --json --at %d - < %s, the pipe left open: not the tables of the whole input; first difference:\n%s", n, filepath.Base(path), firstDiff([]byte(out.String()), []byte(want)))
		}
	}
}

// dumpMessages is the message lines of a dump's output: all of dump
// --json's, dump's up to its trailer (# lines), dump -V's up to the last
// message's tree.
func dumpMessages(out string, mode []string) string {
	if len(mode) > 1 && mode[1] == "--json" {
		return out
	}
	if strings.HasPrefix(out, "# ") {
		return ""
	}
	if i := strings.Index(out, "\n# "); i >= 0 {
		return out[:i+1]
	}
	return out
}

// waitFor polls cond until it holds or bound passes: a bound far above
// what is asked (100 ms), only so that a failing test ends.
func waitFor(cond func() bool, bound time.Duration) bool {
	end := time.Now().Add(bound)
	for time.Now().Before(end) {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cond()
}
