package report

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/stats"
)

// share4 is a share rounded to 4 decimals, as outputs.md shows it.
func share4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func appendTime(dst []byte, t time.Time) []byte {
	dst = append(dst, '"')
	dst = t.UTC().AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"')
}

// AppendLatencyJSON appends s as outputs.md's latency object, null for no
// values: count, min, median, p90, p95, p99, max, mean and jitter in ns.
func AppendLatencyJSON(dst []byte, s stats.Summary) []byte {
	if s.Count == 0 {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"count":`...)
	dst = strconv.AppendInt(dst, int64(s.Count), 10)
	for _, kv := range [...]struct {
		k string
		v time.Duration
	}{{"min", s.Min}, {"median", s.Median}, {"p90", s.P90}, {"p95", s.P95}, {"p99", s.P99}, {"max", s.Max}, {"mean", s.Mean}, {"jitter", s.Jitter}} {
		dst = append(dst, `,"`...)
		dst = append(dst, kv.k...)
		dst = append(dst, `":`...)
		dst = strconv.AppendInt(dst, int64(kv.v), 10)
	}
	return append(dst, '}')
}

// AppendJSON appends the result as outputs.md's one `stats --json`
// object, with a "findings" list, and a newline.
func (res *Result) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"messages":`...)
	dst = strconv.AppendInt(dst, int64(res.Messages), 10)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, res.Bytes, 10)
	dst = append(dst, `,"duration_ns":`...)
	dst = strconv.AppendInt(dst, int64(res.Duration), 10)
	dst = append(dst, `,"interval_ns":`...)
	dst = strconv.AppendInt(dst, int64(res.Interval), 10)
	dst = append(dst, `,"groups":[`...)
	for i := range res.Groups {
		g := &res.Groups[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"by":`...)
		dst = termsafe.AppendJSONString(dst, g.By.String())
		dst = append(dst, `,"key":`...)
		dst = termsafe.AppendJSONString(dst, g.Key)
		dst = append(dst, `,"proto":`...)
		dst = termsafe.AppendJSONString(dst, g.Proto.String())
		dst = append(dst, `,"dir":`...)
		dst = termsafe.AppendJSONString(dst, g.Dir.String())
		dst = append(dst, `,"messages":`...)
		dst = strconv.AppendInt(dst, int64(g.Messages), 10)
		dst = append(dst, `,"bytes":`...)
		dst = strconv.AppendInt(dst, g.Bytes, 10)
		dst = append(dst, `,"share":`...)
		dst = strconv.AppendFloat(dst, share4(g.Share), 'f', -1, 64)
		dst = append(dst, `,"bits":{`...)
		for p := Part(0); p < nParts; p++ {
			if p > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '"')
			dst = append(dst, p.String()...)
			dst = append(dst, `":`...)
			dst = strconv.AppendInt(dst, g.Bits[p], 10)
		}
		dst = append(dst, `},"rate_bps":{"mean":`...)
		dst = strconv.AppendInt(dst, g.MeanBPS, 10)
		dst = append(dst, `,"peak":`...)
		dst = strconv.AppendInt(dst, g.PeakBPS, 10)
		dst = append(dst, `,"peak_at":`...)
		dst = appendTime(dst, g.PeakAt)
		dst = append(dst, "}}"...)
	}
	dst = append(dst, `],"latency":[`...)
	for i, l := range res.Latencies {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"what":`...)
		dst = termsafe.AppendJSONString(dst, l.What.String())
		dst = append(dst, `,"conn":`...)
		dst = termsafe.AppendJSONString(dst, l.Conn)
		if l.What == RPC {
			dst = append(dst, `,"service_id":`...)
			dst = strconv.AppendInt(dst, int64(l.ServiceID), 10)
			dst = append(dst, `,"method_id":`...)
			dst = strconv.AppendInt(dst, int64(l.MethodID), 10)
			dst = append(dst, `,"service":`...)
			dst = appendOptString(dst, l.Service)
			dst = append(dst, `,"method":`...)
			dst = appendOptString(dst, l.Method)
			dst = append(dst, `,"latency_ns":`...)
		} else {
			dst = append(dst, `,"dir":`...)
			dst = termsafe.AppendJSONString(dst, l.Dir.String())
			dst = append(dst, `,"rtt_ns":`...)
		}
		dst = AppendLatencyJSON(dst, l.Summary)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"series":[`...)
	for i, p := range res.Series {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"t":`...)
		dst = appendTime(dst, stats.BucketStart(p.Bucket, res.Interval))
		dst = append(dst, `,"messages":`...)
		dst = strconv.AppendInt(dst, int64(p.Messages), 10)
		dst = append(dst, `,"bytes":`...)
		dst = strconv.AppendInt(dst, p.Bytes, 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"findings":[`...)
	for i, f := range res.Findings {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"severity":`...)
		dst = termsafe.AppendJSONString(dst, f.Severity.String())
		dst = append(dst, `,"group":`...)
		dst = termsafe.AppendJSONString(dst, f.Group)
		dst = append(dst, `,"text":`...)
		dst = termsafe.AppendJSONString(dst, f.Text)
		if f.Conn != "" {
			dst = append(dst, `,"conn":`...)
			dst = termsafe.AppendJSONString(dst, f.Conn)
		}
		if f.N > 0 {
			dst = append(dst, `,"n":`...)
			dst = strconv.AppendInt(dst, int64(f.N), 10)
		}
		dst = append(dst, '}')
	}
	return append(dst, "]}\n"...)
}

func appendOptString(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return termsafe.AppendJSONString(dst, *s)
}

// CSVHeader is the header row of `stats --csv`.
var CSVHeader = []string{"by", "key", "proto", "dir", "messages", "bytes", "share",
	"framing_bits", "header_bits", "definition_bits", "payload_bits", "padding_bits",
	"rate_mean_bps", "rate_peak_bps", "rate_peak_at"}

// WriteCSV writes a header row and one row per group. Keys from the wire
// are escaped for terminals (termsafe) before CSV quoting.
func (res *Result) WriteCSV(w *bufio.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	row := make([]string, 0, len(CSVHeader))
	for i := range res.Groups {
		g := &res.Groups[i]
		row = append(row[:0], g.By.String(), termsafe.Escape(g.Key), g.Proto.String(), g.Dir.String(),
			strconv.Itoa(g.Messages), strconv.FormatInt(g.Bytes, 10), strconv.FormatFloat(share4(g.Share), 'f', -1, 64))
		for p := Part(0); p < nParts; p++ {
			row = append(row, strconv.FormatInt(g.Bits[p], 10))
		}
		row = append(row, strconv.FormatInt(g.MeanBPS, 10), strconv.FormatInt(g.PeakBPS, 10), g.PeakAt.UTC().Format(time.RFC3339Nano))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteText writes the result as aligned text: a header line, a table per
// grouping (largest first), the latencies and the findings. Wire strings
// are escaped for terminals.
func (res *Result) WriteText(w *bufio.Writer) error {
	fmt.Fprintf(w, "%d messages, %d bytes in %s, interval %s\n", res.Messages, res.Bytes, res.Duration, res.Interval)
	i := 0
	for _, by := range res.By {
		fmt.Fprintf(w, "\nby %s:\n", by)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "KEY\tPROTO\tDIR\tMESSAGES\tBYTES\tSHARE\tFRAMING\tHEADER\tDEFINITION\tPAYLOAD\tPADDING\tMEAN BPS\tPEAK BPS\tPEAK AT\t")
		for ; i < len(res.Groups) && res.Groups[i].By == by; i++ {
			g := &res.Groups[i]
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.1f%%\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", termsafe.Escape(g.Key), g.Proto, g.Dir, g.Messages, g.Bytes, 100*g.Share,
				g.Bits[Framing], g.Bits[Header], g.Bits[Definition], g.Bits[Payload], g.Bits[Padding], g.MeanBPS, g.PeakBPS, g.PeakAt.UTC().Format(time.RFC3339Nano))
		}
		tw.Flush()
	}
	if len(res.Latencies) > 0 {
		fmt.Fprintf(w, "\nlatency (ms):\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "WHAT\tCONN\tCOUNT\tMIN\tMEDIAN\tP90\tP95\tP99\tMAX\tMEAN\tJITTER\t")
		for _, l := range res.Latencies {
			s := l.Summary
			fmt.Fprintf(tw, "%s\t%s\t%d", termsafe.Escape(l.Name()), l.Conn, s.Count)
			for _, d := range [...]time.Duration{s.Min, s.Median, s.P90, s.P95, s.P99, s.Max, s.Mean, s.Jitter} {
				fmt.Fprintf(tw, "\t%s", ms(d))
			}
			fmt.Fprintln(tw, "\t")
		}
		tw.Flush()
	}
	if len(res.Findings) > 0 {
		fmt.Fprintf(w, "\nfindings:\n")
		for _, f := range res.Findings {
			where := ""
			if f.Conn != "" {
				where = " " + f.Conn
			}
			if f.N > 0 {
				where += " #" + strconv.Itoa(f.N)
			}
			fmt.Fprintf(w, "  %s %s%s: %s\n", f.Severity, f.Group, where, termsafe.Escaped(f.Text))
		}
	}
	return nil
}

// ms is a latency in milliseconds with 3 decimals.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}
