package pipeline

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/usmnscope/usmnscope/capture"
)

// IsTerminal reports whether w is a terminal. Injected buffers (tests,
// pipes) are not.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// progressInterval is the least time between two progress redraws (at most
// ten a second).
const progressInterval = 100 * time.Millisecond

// progressDelay is how long a read runs before progress shows: short reads
// stay quiet even on a terminal.
const progressDelay = 300 * time.Millisecond

// Progress draws a single updating progress line on a terminal's
// stderr for long reads (a large file, stdin): redrawn with "\r" at most
// ten times a second (progressInterval) and cleared by Done. It never draws
// when stderr is not a terminal, so redirected output stays clean.
type Progress struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
	last  time.Time
	drawn bool
}

// NewProgress returns a progress line on w, or nil when w is not a terminal.
// A nil *Progress ignores every call.
func NewProgress(w io.Writer) *Progress {
	if !IsTerminal(w) {
		return nil
	}
	return newProgressOn(w, time.Now)
}

func newProgressOn(w io.Writer, now func() time.Time) *Progress {
	return &Progress{w: w, now: now, start: now()}
}

// Update redraws the line from st when enough time has passed.
func (p *Progress) Update(st capture.Stats) {
	if p == nil {
		return
	}
	t := p.now()
	if t.Sub(p.start) < progressDelay || p.drawn && t.Sub(p.last) < progressInterval {
		return
	}
	p.last, p.drawn = t, true
	fmt.Fprintf(p.w, "\r\x1b[Kreading: %s", progressText(st))
}

// Done clears the line if it was drawn.
func (p *Progress) Done() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
	p.drawn = false
}

// progressText describes how far a read has got.
func progressText(st capture.Stats) string {
	s := mib(st.Read)
	if st.Size > 0 {
		s = fmt.Sprintf("%s of %s (%d%%)", mib(st.Read), mib(st.Size), st.Read*100/st.Size)
	}
	return fmt.Sprintf("%s, %d packets, %d flows", s, st.Packets, st.Flows)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
