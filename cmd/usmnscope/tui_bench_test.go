package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/scenario"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/views"
)

// million is the size of the load capture the TUI benchmarks open.
const million = 1_000_000

var (
	millionOnce sync.Once
	millionData []byte
	millionErr  error
)

// millionCapture returns, generated once per test binary and kept in
// memory (about 100 MB, so no file is left behind), a pcapng of a million
// messages over 64 connections: what `usmnscope gen --scale 1000000
// --conns 64` writes. The benchmarks read it as `usmnscope open -` does.
func millionCapture(b *testing.B) []byte {
	b.Helper()
	millionOnce.Do(func() {
		var buf bytes.Buffer
		_, millionErr = scenario.Scale{Messages: million, Conns: 64, Seed: 1}.Generate(&buf, scenario.PCAPNG)
		millionData = buf.Bytes()
	})
	if millionErr != nil {
		b.Fatal(millionErr)
	}
	return millionData
}

// BenchmarkTUIOpenFirstFrame measures `usmnscope open` on a real
// million-message capture until the first frame is rendered: the capture
// is opened (a file, or standard input for `open -`), the feeder starts
// decoding it concurrently (as runTUI does), and the UI renders its first
// 160×48 screen on the first progress message, while most of the capture
// is still unread (issue 6 target: ≤ 100 ms).
func BenchmarkTUIOpenFirstFrame(b *testing.B) {
	data := millionCapture(b)
	b.Run("file", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "million.pcapng")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		benchFirstFrame(b, func() *streams { return &streams{} }, path)
	})
	b.Run("stdin", func(b *testing.B) {
		benchFirstFrame(b, func() *streams { return &streams{in: bytes.NewReader(data)} }, "-")
	})
}

func benchFirstFrame(b *testing.B, in func() *streams, path string) {
	b.ReportAllocs()
	p := unturned.Default()
	for b.Loop() {
		src, err := openSource(in(), path, p)
		if err != nil {
			b.Fatal(err)
		}
		dc := session.NewIndex(p)
		s := &stoppable{Source: src}
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = pipeline.Feed(s, dc, nil)
		}()
		var m tea.Model = views.New(dc, views.Config{Name: "million.pcapng", Parse: parseFilter})
		m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		m, _ = m.Update(views.ProgressMsg{Fraction: -1})
		_ = m.View()
		b.StopTimer()
		// Stop the feeder rather than wait for it to decode the rest of
		// the million messages: that wait, untimed, made each iteration
		// cost a whole decode and the benchmark run for minutes.
		s.stop.Store(true)
		<-done
		src.Close()
		b.StartTimer()
	}
}

// stoppable ends its source at the first Next after stop is set, as the
// end of the input would.
type stoppable struct {
	capture.Source
	stop atomic.Bool
}

func (s *stoppable) Next() (*capture.Event, error) {
	if s.stop.Load() {
		return nil, io.EOF
	}
	return s.Source.Next()
}

// BenchmarkTUIKey measures one key press that moves the selection, with
// the frame it renders, on the real million-message capture fully decoded
// and indexed (issue 6 target: ≤ 16 ms).
func BenchmarkTUIKey(b *testing.B) {
	b.ReportAllocs()
	p := unturned.Default()
	src, err := openSource(&streams{in: bytes.NewReader(millionCapture(b))}, "-", p)
	if err != nil {
		b.Fatal(err)
	}
	dc := session.NewIndex(p)
	if err := pipeline.Feed(src, dc, nil); err != nil {
		b.Fatal(err)
	}
	src.Close()
	if dc.Len() != million {
		b.Fatalf("decoded %d messages; want %d", dc.Len(), million)
	}
	var m tea.Model = views.New(dc, views.Config{Name: "million.pcapng", Parse: parseFilter})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	var cmd tea.Cmd
	m, cmd = m.Update(views.ProgressMsg{Fraction: 1, Done: true})
	for cmd != nil { // let the background indexing finish
		m, cmd = m.Update(cmd())
	}
	_ = m.View()
	j := keyPress("j")
	for b.Loop() {
		m, _ = m.Update(j)
		_ = m.View()
	}
}
