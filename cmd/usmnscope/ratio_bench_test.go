package main

import (
	"io"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
)

// BenchmarkScaleIndexLoad decodes the scale capture into a full Index as
// the TUI does (file store attached, the collector tuned as tuifeed.Open does), without the
// UI: the part of the TUI's load issue 18 holds to 2x `tables --json`.
func BenchmarkScaleIndexLoad(b *testing.B) {
	b.ReportAllocs()
	path := scaleCapture(b)
	tuneGC()
	defer setTuning(setTuning(tuiTuning))
	for b.Loop() {
		indexLoad(b, path)
	}
}

func indexLoad(b *testing.B, path string) {
	p := unturned.Default()
	src, err := capture.Open(path, captureOptions(p))
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dc := newDecoder(p)
	attachStore(dc, path)
	if err := pipeline.Feed(src, dc, func(capture.Stats) {}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkScaleRatios runs `tables --json`, `dump --json` and the TUI's
// index load (BenchmarkScaleIndexLoad) over the scale capture one after
// the other in each iteration and reports the paired ratios issue 18 sets
// targets for: dump/tables ≤ 2 and index-load/tables (the TUI's load
// without drawing) ≤ 2. Each metric is the ratio of the summed times.
func BenchmarkScaleRatios(b *testing.B) {
	path := scaleCapture(b)
	var tables, dump, index time.Duration
	timed := func(d *time.Duration, f func()) {
		t0 := time.Now()
		f()
		*d += time.Since(t0)
	}
	execute := func(args ...string) {
		if code := Execute(append(args, path), nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("%v: exit %d", args, code)
		}
	}
	tuneGC() // as main does
	for b.Loop() {
		timed(&tables, func() { execute("tables", "--json") })
		timed(&dump, func() { execute("dump", "--json") })
		timed(&index, func() {
			old := setTuning(tuiTuning)
			indexLoad(b, path)
			setTuning(old)
		})
	}
	b.ReportMetric(float64(dump)/float64(tables), "dump/tables")
	b.ReportMetric(float64(index)/float64(tables), "index-load/tables")
}
