package iograph

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/stats"
)

// Agg is how a series folds the values of one interval into one.
type Agg uint8

const (
	Sum  Agg = iota // messages and bytes; sum(FIELD)
	Mean            // a field's values (the default for a field)
	Min
	Max
)

var aggNames = [...]string{Sum: "sum", Mean: "mean", Min: "min", Max: "max"}

func (a Agg) String() string {
	if int(a) < len(aggNames) {
		return aggNames[a]
	}
	return fmt.Sprintf("Agg(%d)", uint8(a))
}

// Y is what a series plots per interval: the messages, their bytes on the
// stream, or a numeric field's values folded by Agg.
type Y struct {
	Field string // "messages", "bytes", or a filter field name
	Agg   Agg
}

// ParseY reads a Y value: messages, bytes, FIELD (the mean of its
// values), or sum(FIELD), mean(FIELD), min(FIELD), max(FIELD).
func ParseY(s string) (Y, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "":
		return Y{}, fmt.Errorf("no Y value (messages, bytes, a numeric field, or sum/mean/min/max(FIELD))")
	case "messages":
		return Y{Field: "messages", Agg: Sum}, nil
	case "bytes":
		return Y{Field: "bytes", Agg: Sum}, nil
	}
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		name := strings.ToLower(s[:i])
		for a, n := range aggNames {
			if n == name {
				f := strings.TrimSpace(s[i+1 : len(s)-1])
				if f == "" || strings.EqualFold(f, "messages") || strings.EqualFold(f, "bytes") {
					return Y{}, fmt.Errorf("%s(…) takes a numeric field, not %q", name, f)
				}
				return Y{Field: f, Agg: Agg(a)}, nil
			}
		}
		return Y{}, fmt.Errorf("%q: want sum, mean, min or max(FIELD)", s[:i])
	}
	return Y{Field: s, Agg: Mean}, nil
}

// Count reports whether y counts messages or bytes rather than reading a
// field.
func (y Y) Count() bool { return y.Field == "messages" || y.Field == "bytes" }

func (y Y) String() string {
	if y.Count() || y.Agg == Mean {
		return y.Field
	}
	return y.Agg.String() + "(" + y.Field + ")"
}

// Spec is a series as the user writes it: a Y value, then optionally a
// filter in dump's language ("bytes msg==InvokeMessageListener",
// "payload.speed listener~Player", "max(latency) proto==ulinkrpc").
type Spec struct {
	Y      string
	Filter string
}

// ParseSpec splits s at its first space into the Y value and the filter.
func ParseSpec(s string) Spec {
	s = strings.TrimSpace(s)
	y, f, _ := strings.Cut(s, " ")
	return Spec{Y: y, Filter: strings.TrimSpace(f)}
}

func (s Spec) String() string {
	if s.Filter == "" {
		return s.Y
	}
	return s.Y + " " + s.Filter
}

// Series is a compiled Spec: which messages it counts (Match, nil for
// every one) and, for a field, the reader of its values (the filter's
// typed field lookup, filter.Numbers).
type Series struct {
	Spec  Spec
	Y     Y
	Match func(*session.Message) bool
	Value func(*session.Message) []float64
}

// DefaultSpecs are the series the graph opens with: what it drew before
// it took several.
var DefaultSpecs = []Spec{{Y: "messages"}, {Y: "bytes"}}

// ev is one value a series took at a time (ns since the epoch).
type ev struct {
	t int64
	v float64
}

// Data is what the series read from the messages, before it is cut into
// intervals: the graph keeps it and cuts it again for a new width, and
// the CSV writes it at the interval asked for.
type Data struct {
	Series []Series
	evs    [][]ev
	first  int64 // the first message's time
	last   int64 // the latest time seen
	n      int   // messages added
}

// NewData starts reading for series.
func NewData(series []Series) *Data {
	return &Data{Series: series, evs: make([][]ev, len(series))}
}

// Messages returns how many messages were added.
func (d *Data) Messages() int { return d.n }

// Add reads one message of the base (the listed messages, or those
// `stats --filter` passes) with its bytes on the stream. Messages come in
// number order; a time that runs backwards counts at the latest time seen,
// as `stats` counts it in the latest interval.
func (d *Data) Add(m *session.Message, bytes int) {
	t := m.Time.UnixNano()
	if d.n == 0 {
		d.first, d.last = t, t
	}
	t = max(t, d.last)
	d.last = t
	d.n++
	for i, s := range d.Series {
		if s.Match != nil && !s.Match(m) {
			continue
		}
		switch s.Y.Field {
		case "messages":
			d.evs[i] = append(d.evs[i], ev{t, 1})
		case "bytes":
			d.evs[i] = append(d.evs[i], ev{t, float64(bytes)})
		default:
			if s.Value == nil {
				continue
			}
			for _, v := range s.Value(m) {
				d.evs[i] = append(d.evs[i], ev{t, v})
			}
		}
	}
}

// cell folds the values of one interval.
type cell struct {
	n             int
	sum, min, max float64
}

// Binned is Data cut into intervals from the first message's to the last's.
type Binned struct {
	Interval time.Duration
	First    int64 // the first interval's number (stats.Bucket)
	N        int   // intervals
	series   []Series
	cells    [][]cell
}

// MaxIntervals bounds the rows of a CSV (`stats --series`): a day at
// 100 ms is 864,000.
const MaxIntervals = 1 << 20

// Intervals returns how many intervals of width iv Bin makes without a
// limit.
func (d *Data) Intervals(iv time.Duration) int64 {
	if d.n == 0 {
		return 0
	}
	return stats.Bucket(time.Unix(0, d.last), iv) - stats.Bucket(time.Unix(0, d.first), iv) + 1
}

// Bin cuts d into intervals of width iv, aligned as `stats` aligns its
// series (stats.Bucket: multiples of iv since the epoch). At most limit
// intervals are made (0: no limit); later values count in the last.
func (d *Data) Bin(iv time.Duration, limit int) *Binned {
	b := &Binned{Interval: iv, series: d.Series, cells: make([][]cell, len(d.Series))}
	if d.n == 0 {
		return b
	}
	b.First = stats.Bucket(time.Unix(0, d.first), iv)
	b.N = int(stats.Bucket(time.Unix(0, d.last), iv)-b.First) + 1
	if limit > 0 {
		b.N = min(b.N, limit)
	}
	for i := range d.Series {
		cs := make([]cell, b.N)
		for _, e := range d.evs[i] {
			k := min(int(stats.Bucket(time.Unix(0, e.t), iv)-b.First), b.N-1)
			c := &cs[k]
			if c.n == 0 {
				c.min, c.max = e.v, e.v
			}
			c.n++
			c.sum += e.v
			c.min, c.max = math.Min(c.min, e.v), math.Max(c.max, e.v)
		}
		b.cells[i] = cs
	}
	return b
}

// Value returns series s's value in interval k, and whether it has one: a
// sum is 0 over an empty interval, a mean, min or max has none.
func (b *Binned) Value(s, k int) (float64, bool) {
	c := b.cells[s][k]
	switch b.series[s].Y.Agg {
	case Sum:
		return c.sum, true
	case Mean:
		return c.sum / float64(c.n), c.n > 0
	case Min:
		return c.min, c.n > 0
	case Max:
		return c.max, c.n > 0
	}
	return 0, false
}

// Start returns interval k's start.
func (b *Binned) Start(k int) time.Time { return stats.BucketStart(b.First+int64(k), b.Interval) }

// CSVHeader is the header row: t, then each series as it was written.
func (b *Binned) CSVHeader() []string {
	h := []string{"t"}
	for _, s := range b.series {
		h = append(h, s.Spec.String())
	}
	return h
}

// WriteCSV writes a header row and one row per interval, every interval
// from the first message's to the last's (empty ones too): t is the
// interval's start (RFC 3339 UTC, as `stats --json`'s series), then each
// series' value, empty where a mean, min or max has no value. Series
// names come from the user, not the wire.
func (b *Binned) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(b.CSVHeader()); err != nil {
		return err
	}
	row := make([]string, 0, 1+len(b.series))
	for k := 0; k < b.N; k++ {
		row = append(row[:0], b.Start(k).Format(time.RFC3339Nano))
		for s := range b.series {
			v, ok := b.Value(s, k)
			cellText := ""
			if ok {
				cellText = number(v)
			}
			row = append(row, cellText)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// number writes v as an integer when it is one, else in its shortest
// exact form.
func number(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
