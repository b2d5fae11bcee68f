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
		src, err := capture.NewReader(bytes.NewReader(data), "fuzz", captureOptions(p))
		if err != nil {
			return
		}
		defer src.Close()
		dc := session.NewIndex(p)
		if err := pipeline.Feed(src, dc, nil); err != nil && strings.HasPrefix(err.Error(), "internal error") {
			t.Fatalf("feed panicked: %v", err)
		}
		// The same bytes through a streaming Index, as dump --json reads
		// them (each message decoded once, handed out in order, issue 18):
		// the same lines as the full Index.
		want := dc.AppendJSONRange(nil, 1, dc.Len(), nil)
		src2, err := capture.NewReader(bytes.NewReader(data), "fuzz", captureOptions(p))
		if err != nil {
			t.Fatalf("second read: %v", err)
		}
		defer src2.Close()
		sx := session.NewIndex(p)
		var got []byte
		next := 1
		sx.SetStream(session.Stream{Spans: true, Settled: func(n int) error {
			if n != next {
				t.Fatalf("streaming: handed out %d; want %d", n, next)
			}
			next++
			got = sx.AppendJSONOne(got, n, nil)
			return nil
		}})
		if err := pipeline.Feed(src2, sx, nil); err != nil && strings.HasPrefix(err.Error(), "internal error") {
			t.Fatalf("streaming feed panicked: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("streaming gave %d lines, the full Index %d; first difference:\n%s", bytes.Count(got, []byte("\n")), bytes.Count(want, []byte("\n")), firstDiff(got, want))
		}
	})
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
