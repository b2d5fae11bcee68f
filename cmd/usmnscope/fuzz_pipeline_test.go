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
	})
}
