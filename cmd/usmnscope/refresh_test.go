package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/views"
)

// stallReader serves a capture's bytes, then, like a tcpdump between
// bursts, blocks: the read after the last byte closes stalled and waits
// for release before it returns io.EOF.
type stallReader struct {
	r       io.Reader
	stalled chan struct{}
	release chan struct{}
	once    sync.Once
}

func (s *stallReader) Read(p []byte) (int, error) {
	if n, err := s.r.Read(p); n > 0 || err != io.EOF {
		return n, err
	}
	s.once.Do(func() { close(s.stalled) })
	<-s.release
	return 0, io.EOF
}

// fakeClock never moves on its own: Now is fixed, so the feeder's
// throttle sends only its first progress message, and ticks come when the
// test sends them.
type fakeClock struct {
	now   time.Time
	ticks chan time.Time
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Ticker(d time.Duration) (<-chan time.Time, func()) {
	if d == idleFlush {
		return c.ticks, func() {}
	}
	return nil, func() {} // the live second ticker: never fires here
}

// TestIdleFlushPipe (issue 13 point 3): a source that delivers a capture
// and then stalls shows every complete message before the stall ends. The
// feeder's throttle leaves the burst's last events unsent; one idle tick
// of the fake clock sends them, while the writer still stalls.
func TestIdleFlushPipe(t *testing.T) {
	for _, name := range []string{"usmn-basic.pcapng", "vanilla.pcapng", "two-conns.pcapng"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile("../../fixtures/captures/" + name)
			if err != nil {
				t.Fatal(err)
			}
			// What the whole capture holds, read to its end.
			full := newDecoder(nil)
			whole, err := capture.NewReader(bytes.NewReader(raw), "whole", captureOptions(nil))
			if err != nil {
				t.Fatal(err)
			}
			if err := pipeline.Feed(whole, full, nil); err != nil {
				t.Fatal(err)
			}
			want := full.Len()

			sr := &stallReader{r: bytes.NewReader(raw), stalled: make(chan struct{}), release: make(chan struct{})}
			src, err := capture.NewReader(sr, "stdin", captureOptions(nil))
			if err != nil {
				t.Fatal(err)
			}
			dc := newDecoder(nil)
			var (
				mu    sync.Mutex
				shown []int // dc.Settled() as of each progress message
				done  bool
			)
			send := func(m tea.Msg) {
				if p, ok := m.(views.ProgressMsg); ok {
					mu.Lock()
					shown = append(shown, dc.Settled())
					done = done || p.Done
					mu.Unlock()
				}
			}
			clk := &fakeClock{now: time.Unix(1e9, 0), ticks: make(chan time.Time)}
			fin := feedUI(src, dc, nil, send, clk, false, nil)

			// The feeder is blocked in Read: every event before the stall
			// has been applied and reported to the throttle.
			<-sr.stalled
			clk.ticks <- clk.now.Add(idleFlush)
			// The ticker loop is sequential: once it takes a second
			// tick, the first one's message has been sent.
			clk.ticks <- clk.now.Add(2 * idleFlush)
			mu.Lock()
			got, ended := shown[len(shown)-1], done
			mu.Unlock()
			if ended {
				t.Fatal("the input ended before the stall was released")
			}
			if got != want {
				t.Errorf("during the stall the UI was last told of %d settled messages; want all %d complete ones", got, want)
			}
			close(sr.release)
			<-fin
			mu.Lock()
			defer mu.Unlock()
			if !done {
				t.Error("no final ProgressMsg{Done: true} after the input ended")
			}
		})
	}
}

// TestDecodeAsFlag: --decode-as is repeatable, forces a port, and a bad
// value is a usage error (exit 2) that says what it wants.
func TestDecodeAsFlag(t *testing.T) {
	c := fixture(t, "ports.pcapng")
	code, out, _ := run(t, nil, "dump", "--decode-as", "6633=unturned", "--decode-as", "27016=none", c)
	if code != exitOK || !strings.Contains(out, "10.0.0.1:6633 c2s") || strings.Contains(out, ":27016 c2s") {
		t.Errorf("dump --decode-as 6633=unturned --decode-as 27016=none: exit %d\n%s\nwant rows on 6633 and none on 27016", code, out)
	}
	code, _, errOut := run(t, nil, "dump", "--decode-as", "6633=tls", c)
	if code != exitUsage || !strings.Contains(errOut, "want one of none, unturned") {
		t.Errorf("dump --decode-as 6633=tls: exit %d, stderr %q; want 2 and the protocols", code, errOut)
	}
}

// TestOpenProfileHint: `open` on a file that the active profile decodes
// badly gets the capture finding that dump and tables give (issue 13 point
// 5), before the UI is told the capture is loaded, so the expert pane
// shows it.
func TestOpenProfileHint(t *testing.T) {
	path := filepath.Join("..", "..", "fixtures", "captures", "profile-custom.pcapng")
	p := unturned.Default()
	src, err := openSource(&streams{}, path, p)
	if err != nil {
		t.Fatal(err)
	}
	dc := newDecoder(p)
	var (
		mu   sync.Mutex
		hint bool // the finding was there when Done was sent
	)
	send := func(m tea.Msg) {
		if pm, ok := m.(views.ProgressMsg); ok && pm.Done {
			mu.Lock()
			for _, f := range dc.Findings() {
				hint = hint || strings.Contains(f.Text, "usmnscope profile infer")
			}
			mu.Unlock()
		}
	}
	clk := &fakeClock{now: time.Unix(1e9, 0), ticks: make(chan time.Time)}
	<-feedUI(src, dc, nil, send, clk, false, func() { profileHint(&streams{}, p, path, dc) })
	mu.Lock()
	defer mu.Unlock()
	if !hint {
		t.Errorf("no profile hint among the capture findings when the load ended: %+v", dc.Findings())
	}
}
