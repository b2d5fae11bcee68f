// Package iograph draws the I/O graph (Wireshark's Statistics › I/O
// Graph): messages and bytes per interval over time, as bar charts at the
// terminal's resolution (eighth-block bars), each with its scale and a
// labelled time axis. No charting library for bubbletea v2 was a fit, and
// the drawing is small.
package iograph

import (
	"fmt"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/views/frame"
)

// Point is one message: when it was captured and its size in bytes.
type Point struct {
	T     time.Time
	Bytes int
}

// Lines draws both charts for pts (ascending in time) in w×h cells.
func Lines(pts []Point, w, h int) []frame.Row {
	if len(pts) == 0 {
		return []frame.Row{{Text: "  no messages to graph"}}
	}
	const axis = 8 // the y labels' width
	cols := max(w-axis-1, 4)
	t0, t1 := pts[0].T, pts[len(pts)-1].T
	span := t1.Sub(t0)
	step := Interval(span, cols)
	n := min(int(span/step)+1, cols)
	msgs, bytes := make([]int, n), make([]int, n)
	for _, p := range pts {
		i := min(max(int(p.T.Sub(t0)/step), 0), n-1)
		msgs[i]++
		bytes[i] += p.Bytes
	}
	ch := max((h-6)/2, 2) // rows per chart: two titles, two axes
	var out []frame.Row
	out = append(out, frame.Row{Text: fmt.Sprintf("messages per %s  (%d messages)", step, len(pts)), Style: frame.Heading})
	out = append(out, bars(msgs, ch, axis)...)
	out = append(out, timeAxis(n, step, axis)...)
	total := 0
	for _, b := range bytes {
		total += b
	}
	out = append(out, frame.Row{Text: fmt.Sprintf("bytes per %s  (%d bytes)", step, total), Style: frame.Heading})
	out = append(out, bars(bytes, ch, axis)...)
	out = append(out, timeAxis(n, step, axis)...)
	return out
}

var steps = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond,
	50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute,
	5 * time.Minute, 10 * time.Minute, time.Hour,
}

// Interval picks the smallest round interval that fits span into cols
// columns.
func Interval(span time.Duration, cols int) time.Duration {
	for _, s := range steps {
		if span/s < time.Duration(cols) {
			return s
		}
	}
	return span/time.Duration(cols) + 1
}

var eighths = []rune(" ▁▂▃▄▅▆▇█")

// bars draws vs as vertical bars h rows high, scaled to the largest, with
// the top value and 0 labelled on the left.
func bars(vs []int, h, axis int) []frame.Row {
	top := 1
	for _, v := range vs {
		top = max(top, v)
	}
	out := make([]frame.Row, h)
	for r := 0; r < h; r++ {
		var b strings.Builder
		label := ""
		switch r {
		case 0:
			label = fmt.Sprint(top)
		case h - 1:
			label = "0"
		}
		fmt.Fprintf(&b, "%*s│", axis, label)
		floor := (h - 1 - r) * 8 // eighths below this row
		for _, v := range vs {
			e := v*h*8/top - floor
			if v > 0 && r == h-1 && e <= 0 {
				e = 1 // a non-zero interval is never drawn empty
			}
			b.WriteRune(eighths[min(max(e, 0), 8)])
		}
		out[r] = frame.Row{Text: b.String()}
	}
	return out
}

// timeAxis is the x axis: ticks every 10 columns, labelled with the time
// from the first message.
func timeAxis(n int, step time.Duration, axis int) []frame.Row {
	line := []rune(strings.Repeat(" ", axis) + "└" + strings.Repeat("─", n))
	labels := []rune(strings.Repeat(" ", axis+1+n+12))
	for c := 0; c < n; c += 10 {
		line[axis+1+c] = '┴'
		copy(labels[axis+1+c:], []rune(label(time.Duration(c)*step)))
	}
	return []frame.Row{{Text: string(line)}, {Text: strings.TrimRight(string(labels), " ") + "  s"}}
}

func label(d time.Duration) string {
	s := d.Seconds()
	if s == float64(int64(s)) {
		return fmt.Sprintf("%d", int64(s))
	}
	return strings.TrimRight(fmt.Sprintf("%.3f", s), "0")
}
