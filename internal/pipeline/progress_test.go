package pipeline

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/capture"
)

func TestProgressLine(t *testing.T) {
	if NewProgress(&bytes.Buffer{}) != nil {
		t.Errorf("NewProgress(buffer) drew progress on a non-terminal")
	}
	var nilBar *Progress
	nilBar.Update(capture.Stats{}) // must not panic
	nilBar.Done()

	var b bytes.Buffer
	now := time.Unix(0, 0)
	bar := newProgressOn(&b, func() time.Time { return now })
	st := capture.Stats{Read: 1 << 20, Size: 4 << 20, Packets: 10, Flows: 1}
	bar.Update(st) // too early: short reads stay quiet
	if b.Len() != 0 {
		t.Errorf("progress drawn before %v: %q", progressDelay, b.String())
	}
	for i := range 30 { // 3 s in 100 ms steps, 30 updates per step
		now = time.Unix(0, 0).Add(progressDelay + time.Duration(i)*progressInterval)
		for range 30 {
			bar.Update(st)
		}
	}
	if draws := strings.Count(b.String(), "\r\x1b[K"); draws != 30 {
		t.Errorf("progress drew %d times in 30 intervals; want 30 (at most 10 a second)", draws)
	}
	if !strings.Contains(b.String(), "reading: 1.0 MiB of 4.0 MiB (25%), 10 packets, 1 flows") {
		t.Errorf("progress text %q", b.String())
	}
	bar.Done()
	if !strings.HasSuffix(b.String(), "flows\r\x1b[K") {
		t.Errorf("done did not clear the line: %q", b.String())
	}
}
