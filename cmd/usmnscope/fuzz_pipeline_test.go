package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// FuzzPipeline runs arbitrary capture-file bytes through the whole ingest
// path the way readCapture does (capture.NewReader → feed → session.Index),
// so a crash anywhere between the pcap/pcapng parser and the listener tables
// is found (issue 8). feed turns a panic into an "internal error" return;
// here that is a failure, not a recovery.
func FuzzPipeline(f *testing.F) {
	caps, _ := filepath.Glob("../../fixtures/captures/*.pcapng")
	for _, c := range caps {
		if b, err := os.ReadFile(c); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := unturned.Default()
		if _, err := capture.NewReader(bytes.NewReader(data), "fuzz", captureOptions(p)); err != nil {
			return
		}
		// A file, as the TUI reads one: with its Store (issue 24).
		path := filepath.Join(t.TempDir(), "fuzz.pcap")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := openSource(&streams{}, path, p)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		defer src.Close()
		dc := session.NewIndex(p)
		attachStore(dc, path)
		if err := pipeline.Feed(src, dc, nil); err != nil && strings.HasPrefix(err.Error(), "internal error") {
			t.Fatalf("feed panicked: %v", err)
		}
		// The same bytes through a streaming Index, as dump --json reads
		// them (each message decoded once, handed out in order, issue 18):
		// the same lines as the full Index. Twice: as from standard input
		// (no store) and as from a file, with the bytes as its Store and a
		// Heads tally as readCaptureFeed sets for a file (issue 24: a file's
		// dump crashed where standard input's did not).
		want := dc.AppendJSONRange(nil, 1, dc.Len(), nil)
		for _, file := range []string{"-", path} {
			got := streamJSON(t, data, path, p, file != "-")
			if !bytes.Equal(got, want) {
				t.Fatalf("streaming (file %v) gave %d lines, the full Index %d; first difference:\n%s", file, bytes.Count(got, []byte("\n")), bytes.Count(want, []byte("\n")), firstDiff(got, want))
			}
		}
	})
}

// streamJSON is dump --json of data through a streaming Index, as from
// the file path (opened as a file with its Store and a Heads tally, as
// readCaptureFeed does) or from standard input.
func streamJSON(t *testing.T, data []byte, path string, p *unturned.Profile, file bool) []byte {
	src, err := capture.NewReader(bytes.NewReader(data), "fuzz", captureOptions(p))
	if file {
		src, err = openSource(&streams{}, path, p)
	}
	if err != nil {
		t.Fatalf("second read: %v", err)
	}
	defer src.Close()
	sx := session.NewIndex(p)
	var got []byte
	next := 1
	st := session.Stream{Spans: true, Settled: func(n int) error {
		if n != next {
			t.Fatalf("streaming: handed out %d; want %d", n, next)
		}
		next++
		got = sx.AppendJSONOne(got, n, nil)
		return nil
	}}
	heads := 0
	if file {
		st.Heads = func(h *session.Head) { heads++ }
	}
	sx.SetStream(st)
	if file {
		attachStore(sx, path)
	}
	if err := pipeline.Feed(src, sx, nil); err != nil && strings.HasPrefix(err.Error(), "internal error") {
		t.Fatalf("streaming feed (file %v) panicked: %v", file, err)
	}
	if file && heads != next-1 {
		t.Fatalf("streaming: %d heads for %d messages", heads, next-1)
	}
	return got
}

// firstDiff is the first line where a and b differ, from each.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range max(len(la), len(lb)) {
		var x, y []byte
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if !bytes.Equal(x, y) {
			return "stream " + string(x) + "\nindex  " + string(y)
		}
	}
	return ""
}
