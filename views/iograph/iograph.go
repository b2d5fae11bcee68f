// Package iograph draws the I/O graph (Wireshark's Statistics › I/O
// Graph): several series over time, each with its own filter and Y value
// (messages, bytes on the stream, or a numeric field through the filter's
// typed field lookup, latency among them), as bar charts at the
// terminal's resolution (eighth-block bars), each in its colour under a
// legend line that names it, with one labelled time axis; and the same
// figures as CSV, which `usmnscope stats --series` prints too. No
// charting library for bubbletea v2 was a fit, and the drawing is small.
package iograph

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/frame"
)

// MaxSeries bounds the series one graph draws (the palette's colours).
const MaxSeries = frame.SeriesColours

// ParseFunc compiles a filter expression (the CLI's language).
type ParseFunc func(expr string) (func(*session.Message) bool, error)

// Compile turns specs into series: each filter through parse, each field
// through filter.Numbers. The error names the series.
func Compile(specs []Spec, parse ParseFunc) ([]Series, error) {
	if len(specs) > MaxSeries {
		return nil, fmt.Errorf("at most %d series", MaxSeries)
	}
	out := make([]Series, 0, len(specs))
	for i, sp := range specs {
		y, err := ParseY(sp.Y)
		if err != nil {
			return nil, fmt.Errorf("series %d %q: %w", i+1, sp.String(), err)
		}
		s := Series{Spec: sp, Y: y}
		if !y.Count() {
			if s.Value, err = filter.Numbers(y.Field); err != nil {
				return nil, fmt.Errorf("series %d %q: %w", i+1, sp.String(), err)
			}
		}
		if sp.Filter != "" {
			if parse == nil {
				return nil, fmt.Errorf("series %d %q: no filter language", i+1, sp.String())
			}
			if s.Match, err = parse(sp.Filter); err != nil {
				return nil, fmt.Errorf("series %d %q: %w", i+1, sp.String(), err)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// Lines draws d's series in w×h cells: per series a legend line in its
// colour (its number, a swatch, what it plots, its filter, its largest
// value) and its bars below, each with its own scale; one time axis
// under all of them. The interval is the smallest round one that fits
// the columns (Interval); Binning returns it.
func Lines(d *Data, w, h int) []frame.Row {
	if d.Messages() == 0 {
		return []frame.Row{{Text: "  no messages to graph"}}
	}
	b := Binning(d, w)
	const axis = 8 // the y labels' width
	ns := max(len(d.Series), 1)
	ch := max((h-2-ns)/ns, 2) // rows per chart: a legend line each, one axis
	var out []frame.Row
	for s, se := range d.Series {
		colour := uint8(s + 1)
		vs, top, bottom := values(b, s)
		what := se.Y.String()
		if se.Spec.Filter != "" {
			what += "  where " + se.Spec.Filter
		}
		legend := fmt.Sprintf("%d %s %s per %s  (max %s)", s+1, swatch, what, b.Interval, number(top))
		if se.Y.Field == "messages" || se.Y.Field == "bytes" {
			legend = fmt.Sprintf("%d %s %s per %s  (%s in all, max %s)", s+1, swatch, what, b.Interval, number(total(b, s)), number(top))
		}
		out = append(out, frame.Row{Text: legend, Style: frame.Heading, Colour: colour})
		for _, r := range bars(vs, top, bottom, ch, axis) {
			r.Colour = colour
			out = append(out, r)
		}
	}
	return append(out, timeAxis(b.N, b.Interval, axis)...)
}

const swatch = "■"

// Binning cuts d for a graph w columns wide.
func Binning(d *Data, w int) *Binned {
	const axis = 8
	cols := max(w-axis-1, 4)
	span := time.Duration(d.last - d.first)
	return d.Bin(Interval(span, cols-1), cols)
}

// values returns series s's values (NaN where it has none) and the range
// the bars span: from the smallest value or 0 to the largest or 1.
func values(b *Binned, s int) (vs []float64, top, bottom float64) {
	vs = make([]float64, b.N)
	top, bottom = math.Inf(-1), 0
	for k := range vs {
		v, ok := b.Value(s, k)
		if !ok {
			vs[k] = math.NaN()
			continue
		}
		vs[k] = v
		top, bottom = math.Max(top, v), math.Min(bottom, v)
	}
	if math.IsInf(top, -1) {
		top = 0
	}
	return vs, top, bottom
}

func total(b *Binned, s int) float64 {
	t := 0.0
	for k := 0; k < b.N; k++ {
		v, _ := b.Value(s, k)
		t += v
	}
	return t
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
	cols = max(cols, 1)
	for _, s := range steps {
		if span/s < time.Duration(cols) {
			return s
		}
	}
	return span/time.Duration(cols) + 1
}

var eighths = []rune(" ▁▂▃▄▅▆▇█")

// bars draws vs as vertical bars h rows high from bottom to top, with the
// top value and the bottom labelled on the left; a NaN is no bar.
func bars(vs []float64, top, bottom float64, h, axis int) []frame.Row {
	span := top - bottom
	if span <= 0 {
		span = 1
	}
	out := make([]frame.Row, h)
	for r := 0; r < h; r++ {
		var b strings.Builder
		label := ""
		switch r {
		case 0:
			label = number(math.Max(top, bottom+1))
			if top > bottom {
				label = number(top)
			}
		case h - 1:
			label = number(bottom)
		}
		if len(label) > axis {
			label = shortNumber(label)
		}
		fmt.Fprintf(&b, "%*s│", axis, label)
		floor := (h - 1 - r) * 8 // eighths below this row
		for _, v := range vs {
			if math.IsNaN(v) {
				b.WriteByte(' ')
				continue
			}
			e := int((v-bottom)*float64(h*8)/span) - floor
			if v != bottom && r == h-1 && e <= 0 {
				e = 1 // a non-zero interval is never drawn empty
			}
			b.WriteRune(eighths[min(max(e, 0), 8)])
		}
		out[r] = frame.Row{Text: b.String()}
	}
	return out
}

// shortNumber fits a long label into the axis: 1.2e+09.
func shortNumber(s string) string {
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		return s[:8]
	}
	return fmt.Sprintf("%.2g", v)
}

// timeAxis is the x axis: ticks every 10 columns, labelled with the time
// from the first interval's start.
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
