package main

import (
	"io"
	"os"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/views"
)

// scaleCapture is the large capture of the scale benchmarks (issue 7), named
// by USMNSCOPE_SCALE_CAPTURE; bench/report.sh generates a 1-million-message
// one with `gen --scale`. Without it the benchmarks skip, so `make test` and
// `make bench` stay fast.
func scaleCapture(b *testing.B) string {
	path := os.Getenv("USMNSCOPE_SCALE_CAPTURE")
	if path == "" {
		b.Skip("USMNSCOPE_SCALE_CAPTURE not set (see bench/README.md)")
	}
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	return path
}

// BenchmarkScaleTablesJSON runs `tables --json` over the scale capture
// through the cobra entry point: one op is one whole capture.
func BenchmarkScaleTablesJSON(b *testing.B) {
	b.ReportAllocs()
	path := scaleCapture(b)
	for b.Loop() {
		if code := Execute([]string{"tables", "--json", path}, nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkScaleDumpJSON runs `dump --json` over the scale capture.
func BenchmarkScaleDumpJSON(b *testing.B) {
	b.ReportAllocs()
	path := scaleCapture(b)
	for b.Loop() {
		if code := Execute([]string{"dump", "--json", path}, nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkScaleFullLoad decodes the scale capture as `open` does
// (pipeline.Open with the configuration of no flags, its file its store,
// read ahead) into a full index, without the UI: the decoding part of the
// TUI's full load (issue 28). One op is one whole capture; a ULinkRPC
// capture in USMNSCOPE_SCALE_CAPTURE profiles that protocol's.
func BenchmarkScaleFullLoad(b *testing.B) {
	path := scaleCapture(b)
	cfg, err := pipeline.Loaders{}.Load()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		opts := cfg.Options()
		opts.Path = path
		d, err := pipeline.Open(opts)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Feed(nil); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(d.Index.Len()), "messages")
		d.Source.Close()
	}
}

// loadScale decodes the scale capture into a real session.Index through the
// same feed the TUI uses, so the TUI benchmarks run on a million decoded
// messages, not on a synthetic source.
func loadScale(b *testing.B) *session.Index {
	path := scaleCapture(b)
	p := unturned.Default()
	src, err := capture.Open(path, captureOptions(p))
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dc := session.NewIndex(p)
	if err := pipeline.Feed(src, dc, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(dc.Len()), "messages")
	return dc
}

// BenchmarkScaleTUIOpen measures the TUI's first frame over the decoded
// scale capture (issue 7 target: ≤ 100 ms).
func BenchmarkScaleTUIOpen(b *testing.B) {
	b.ReportAllocs()
	dc := loadScale(b)
	for b.Loop() {
		var m tea.Model = views.New(dc, views.Config{Name: "scale"})
		m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		m, _ = m.Update(views.ProgressMsg{Fraction: 1, Done: true})
		_ = m.View()
	}
}

// BenchmarkScaleTUIKey measures one selection move with the frame it
// renders over the decoded scale capture (issue 7 target: ≤ 16 ms).
func BenchmarkScaleTUIKey(b *testing.B) {
	b.ReportAllocs()
	dc := loadScale(b)
	var m tea.Model = views.New(dc, views.Config{Name: "scale"})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m, _ = m.Update(views.ProgressMsg{Fraction: 1, Done: true})
	j := tea.KeyPressMsg{Code: 'j', Text: "j"}
	for b.Loop() {
		m, _ = m.Update(j)
		_ = m.View()
	}
}
