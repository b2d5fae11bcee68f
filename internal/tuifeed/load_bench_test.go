//go:build unix

package tuifeed

import (
	"os"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/internal/gctune"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/views"
)

// BenchmarkLoad is the TUI's full load of the capture named by
// USMNSCOPE_SCALE_CAPTURE (bench/README.md) without a terminal: the feed
// of `open` (Run, its progress throttled) into the views, each message
// updated and drawn (View) as bubbletea does, until the update of the
// final progress message has drawn its frame, the status saying loaded.
// It reports the process's CPU-seconds an op beside the wall: issue 28
// compares the load with tables --json, and the machine's other work
// makes the wall noisy. One op is one whole load.
func BenchmarkLoad(b *testing.B) {
	path := os.Getenv("USMNSCOPE_SCALE_CAPTURE")
	if path == "" {
		b.Skip("USMNSCOPE_SCALE_CAPTURE not set (see bench/README.md)")
	}
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	gctune.Start()
	var read readShare
	defer gctune.Set(gctune.Set(gctune.TUI.Reading(read.get)))
	cfg, err := pipeline.Loaders{}.Load()
	if err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	for b.Loop() {
		before := cpuTime()
		opts := cfg.Options()
		opts.Path = path
		d, err := pipeline.Open(opts)
		if err != nil {
			b.Fatal(err)
		}
		msgs := make(chan tea.Msg, 64)
		send := func(m tea.Msg) { msgs <- m }
		var m tea.Model = views.New(d.Index, FileViews(path, d.Index))
		m, _ = m.Update(tea.WindowSizeMsg{Width: 300, Height: 48})
		read.bits.Store(0)
		done := Run(read.feeding(d.Feed), send, WallClock{}, false, func() { pipeline.HintIndex(nil, path, d.Index) })
		for {
			msg := <-msgs
			if bm, ok := msg.(tea.BatchMsg); ok {
				for _, c := range bm {
					run(c, send)
				}
				continue
			}
			var cmd tea.Cmd
			m, cmd = m.Update(msg)
			run(cmd, send)
			_ = m.View()
			if p, ok := msg.(views.ProgressMsg); ok && p.Done {
				break
			}
		}
		<-done
		d.Source.Close()
		cpu += cpuTime() - before
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// run runs cmd on a goroutine of its own, as bubbletea does, sending
// what it returns.
func run(cmd tea.Cmd, send func(tea.Msg)) {
	if cmd == nil {
		return
	}
	go func() {
		if msg := cmd(); msg != nil {
			send(msg)
		}
	}()
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
