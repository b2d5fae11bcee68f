package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/session"
)

// scaleJSON generates a capture long enough for dump --json to encode it in
// parallel slices, and returns its path and the decoded capture.
func scaleJSON(t *testing.T) (string, *session.Index) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scale.pcapng")
	if code, _, errOut := run(t, nil, "gen", "--scale", "5000", "--conns", "5", "-o", path); code != exitOK {
		t.Fatalf("gen --scale: exit %d: %s", code, errOut)
	}
	dc := decodeFile(t, path, false)
	if dc.Len() < 2*jsonBatchLen {
		t.Fatalf("scale capture has %d messages; want at least %d", dc.Len(), 2*jsonBatchLen)
	}
	return path, dc
}

// serialJSON is dump --json encoded one message after the other.
func serialJSON(t *testing.T, dc *session.Index, expr string) string {
	t.Helper()
	f, err := filter.Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for n := 1; n <= dc.Len(); n++ {
		if m := dc.Detail(n); f.Match(m) {
			j, err := m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			b.Write(j)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestDumpJSONParallel checks that dump --json, which encodes long runs of
// messages on several goroutines, prints exactly the serial encoding, in
// order, with and without a filter, on one core and on several.
func TestDumpJSONParallel(t *testing.T) {
	path, dc := scaleJSON(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, expr := range []string{"", "dir==s2c", "msg==InvokeMessageListener && n>1000"} {
		want := serialJSON(t, dc, expr)
		if want == "" {
			t.Fatalf("filter %q matches nothing", expr)
		}
		for _, procs := range []int{1, 2, 3, 8} {
			runtime.GOMAXPROCS(procs)
			args := []string{"dump", "--json", path}
			if expr != "" {
				args = append(args, "--filter", expr)
			}
			code, got, errOut := run(t, nil, args...)
			// decodeFile's index names no host or capture.
			if got = withoutOrigin(got); code != exitOK || errOut != "" || got != want {
				t.Fatalf("GOMAXPROCS %d: dump --json --filter %q = exit %d, stderr %q, %d bytes (%d lines); want exit 0 and the serial encoding, %d bytes (%d lines)",
					procs, expr, code, errOut, len(got), strings.Count(got, "\n"), len(want), strings.Count(want, "\n"))
			}
		}
	}
}

// failingWriter accepts limit bytes, then fails every write.
type failingWriter struct {
	buf   bytes.Buffer
	limit int
}

var errWriteFull = errors.New("test writer: full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.limit {
		return 0, errWriteFull
	}
	return w.buf.Write(p)
}

// TestDumpJSONWriteError: a failing output stops dump --json with an error
// (no hang, no goroutine writing on), and what was written is a prefix of
// the full output (possibly empty: a slice of records larger than the
// output buffer goes to the writer in one call).
func TestDumpJSONWriteError(t *testing.T) {
	path, dc := scaleJSON(t)
	want := serialJSON(t, dc, "")
	w := &failingWriter{limit: 200 << 10}
	var errOut bytes.Buffer
	if code := Execute([]string{"dump", "--json", path}, nil, w, &errOut); code == exitOK {
		t.Errorf("dump --json to a failing writer: exit 0; want an error")
	}
	if !strings.Contains(errOut.String(), errWriteFull.Error()) {
		t.Errorf("stderr = %q; want the write error", errOut.String())
	}
	if got := w.buf.String(); !strings.HasPrefix(want, got) {
		t.Errorf("wrote %d bytes; want a prefix of the %d-byte output", len(got), len(want))
	}
}

// originRE matches a dump --json record's "host" and "capture" keys
// (outputs.md "Several captures"), which records made without a capture
// file (an index fed in a test, live's, package rpc's) do not have.
var originRE = regexp.MustCompile(`,"host":"(?:[^"\\]|\\.)*","capture":"(?:[^"\\]|\\.)*"`)

// withoutOrigin is dump --json output without each record's "host" and
// "capture".
func withoutOrigin(s string) string { return originRE.ReplaceAllString(s, "") }
