package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/stats/report"
	"github.com/usmnscope/usmnscope/views/iograph"
)

// statsOptions are what a stats command line asks for.
type statsOptions struct {
	IO   *streams
	load pipeline.Loaders // the profile, schemas and ULinkRPC decoded under

	capture  string
	captures []string // all the CAPTUREs (several: read as one, several.go)
	several  severalFlags
	by       []string
	interval time.Duration
	filter   string
	json     bool
	csv      bool
	at       int
	atGiven  bool
	series   []string // --series: the I/O graph's CSV instead of the groups

	// each, when not nil, sees every record counted (tests: the bit
	// split of each message).
	each func(*report.Record)
}

// newCmdStats returns the stats command; runF, when not nil, runs instead
// of runStats with the parsed options (tests).
func newCmdStats(s *streams, runF func(*statsOptions) error) *cobra.Command {
	o := &statsOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "stats CAPTURE",
		Short: "Count where the bytes and the milliseconds go (bandwidth and latency attribution)",
		Long: `Counts a capture's messages (both protocols) the way a game engine's network
profiler does (docs/stats.md): per group, the messages, the
bytes on the stream (with the length prefix), their share, the exact split
of their bits into framing, header, definition, payload and padding (from
the same field spans as dump -V), and the mean and peak rate per interval
with the peak's time; the latency of every pair (Unturned pings and
listener-ID requests, ULinkRPC requests per method and keep-alives):
count, min, median, p90, p95, p99, max, mean and jitter; a time series; and
findings (a latency far above its key's p99, a listener whose first-use
definitions cost more than its payloads, a connection whose unanswered
ULinkRPC requests pass the server's overload limit).

--by picks the groupings (repeatable or comma-separated; default
kind,listener,method): conn, dir, kind, listener (USMN listener type),
message (the payload message, with --schema), method (ULinkRPC
service.method or vanilla payload_method). --filter counts only the
messages it matches (dump's filter language). --at N counts the capture
as cut at message N, as tables --at does.

--series 'Y [FILTER]' (repeatable, with --csv) prints the TUI's I/O graph
as CSV instead of the groups: one row per --interval from the first
counted message to the last, a column per series: messages, bytes,
a numeric field (latency, len, payload.speed…: the mean of its values in
the interval) or sum/mean/min/max(FIELD), over the messages FILTER
matches; the same file the graph's w writes.`,
		Example: `  usmnscope stats capture.pcapng
  usmnscope stats --by conn --by dir --interval 100ms capture.pcapng
  usmnscope stats --json --filter 'proto==ulinkrpc' capture.pcapng | jq '.latency'
  usmnscope stats --csv --by listener capture.pcapng > listeners.csv
  usmnscope stats --csv --interval 100ms --series bytes --series 'max(latency) proto==ulinkrpc' capture.pcapng`,
		Args: argNames("CAPTURE..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.capture, o.captures = args[0], args
			o.atGiven = cmd.Flags().Changed("at")
			o.load = decodeLoaders(cmd)
			if runF != nil {
				return runF(o)
			}
			return runStats(o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.by, "by", nil, "group by `WHAT`: conn, dir, kind, listener, message, method (repeatable; default kind,listener,method)")
	f.DurationVar(&o.interval, "interval", time.Second, "the rate buckets' `DURATION`")
	f.StringVar(&o.filter, "filter", "", "count only the messages matching `EXPR` (as dump's)")
	f.BoolVar(&o.json, "json", false, "print one JSON object (docs/stats.md)")
	f.BoolVar(&o.csv, "csv", false, "print one CSV row per group")
	f.StringArrayVar(&o.series, "series", nil, "with --csv: a graph series `'Y [FILTER]'` per column (repeatable; docs/stats.md)")
	f.IntVar(&o.at, "at", 0, "count the capture as cut at message `N`, as tables --at")
	addSeveralFlags(cmd, &o.several)
	return cmd
}

func runStats(o *statsOptions) error {
	if o.json && o.csv {
		return usageError{fmt.Errorf("stats: --json and --csv exclude each other")}
	}
	if len(o.series) > 0 && !o.csv {
		return usageError{fmt.Errorf("stats: --series prints CSV: add --csv")}
	}
	if o.interval <= 0 {
		return usageError{fmt.Errorf("stats: --interval %s: want a positive duration", o.interval)}
	}
	if o.at < 0 || o.atGiven && o.at < 1 {
		return usageError{fmt.Errorf("stats: --at %d: message numbers start at 1", o.at)}
	}
	var by []report.By
	for _, s := range o.by {
		b, err := report.ParseBy(s)
		if err != nil {
			return usageError{err}
		}
		by = append(by, b)
	}
	flt, err := filter.Parse(o.filter)
	if err != nil {
		return usageError{err}
	}
	// A filter that the index record answers (filter.Filter.HeadOnly),
	// or none, lets the record be read from the host's tally of the
	// message (Index.TallyOf) without building it; any other needs the
	// whole Message, as --series does.
	headOnly := flt == nil || flt.HeadOnly()
	var graph *iograph.Data
	if len(o.series) > 0 {
		specs := make([]iograph.Spec, len(o.series))
		for i, sp := range o.series {
			specs[i] = iograph.ParseSpec(sp)
		}
		series, err := iograph.Compile(specs, func(expr string) (func(*session.Message) bool, error) {
			f, err := filter.Parse(expr)
			return f.Match, err
		})
		if err != nil {
			return usageError{fmt.Errorf("stats: --series: %w", err)}
		}
		graph = iograph.NewData(series)
		headOnly = false
	}
	cfg, err := o.load.Load()
	if err != nil {
		return err
	}
	// stats keeps no index, as dump does not: dump's collector tuning
	// keeps its heap flat in the messages.
	defer setTuning(setTuning(streamTuning))
	rep := report.New(report.Options{By: by, Interval: o.interval})
	var ad report.Adapter
	feed := newStatsFeed(func(r *report.Record) {
		if o.each != nil {
			o.each(r)
		}
		rep.Add(r)
	})
	caps, err := o.several.captures("stats", o.paths())
	if err != nil {
		return err
	}
	dc, err := readCaptures(o.IO, cfg, o.paths(), caps, func(dc *session.Index) session.Stream {
		// Spans at the commit only for Detail: a tally's are decoded
		// again on the counting goroutine (Tally.Spans).
		return session.Stream{Spans: !headOnly, Tallies: headOnly, AsOf: o.at, Cut: o.at > 0, Settled: func(n int) error {
			if headOnly && flt != nil {
				if h, ok := dc.FilterHead(n); !ok || !flt.MatchHead(h) {
					return nil
				}
			}
			it := feed.next()
			switch {
			case headOnly && dc.TallyOf(n, &it.tally):
				if it.tally.Rec != nil {
					// A hosted protocol's record is the index's: read
					// it now.
					ad.Tally(&it.tally, feed.record(it))
				} else {
					feed.tallied(it)
				}
			default:
				m := dc.Detail(n)
				if m == nil || !flt.Match(m) {
					return nil
				}
				r := feed.record(it)
				ad.Record(m, r)
				if graph != nil {
					graph.Add(m, r.Bytes)
				}
			}
			feed.commit()
			return nil
		}}
	})
	feed.close()
	if err != nil {
		return err
	}
	if o.at > dc.Len() {
		return usageError{fmt.Errorf("stats: --at %d: the capture has %d messages", o.at, dc.Len())}
	}
	res := rep.Result()
	out := newOutput(o.IO.out)
	switch {
	case o.json:
		out.Write(res.AppendJSON(nil))
	case graph != nil:
		if k := graph.Intervals(o.interval); k > iograph.MaxIntervals {
			return usageError{fmt.Errorf("stats: --series: --interval %s makes %d rows (at most %d): take a wider one", o.interval, k, iograph.MaxIntervals)}
		}
		if err := graph.Bin(o.interval, 0).WriteCSV(out); err != nil {
			return err
		}
	case o.csv:
		if err := res.WriteCSV(out); err != nil {
			return err
		}
	default:
		res.WriteText(out)
	}
	return out.Flush()
}
