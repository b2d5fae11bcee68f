package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/export"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/render"
	"github.com/usmnscope/usmnscope/session"
)

// exportOptions are what an export command line asks for.
type exportOptions struct {
	IO   *streams
	load pipeline.Loaders // the profile, schemas and ULinkRPC decoded under

	captures       []string
	format         string // parquet or ndjson
	out            string // -o FILE, - for standard output
	hex            bool
	payloadColumns bool
	hosts          []string // --host NAME or FILE=NAME
	shifts         []string // --time-shift FILE=±D (several captures, ndjson)
}

// newCmdExport returns the export command (docs/export.md `usmnscope
// export`); runF, when not nil, runs instead of runExport (tests).
func newCmdExport(s *streams, runF func(*exportOptions) error) *cobra.Command {
	o := &exportOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "export --format parquet|ndjson -o FILE CAPTURE...",
		Short: "Write a capture's messages as Parquet or NDJSON for DuckDB and ClickHouse",
		Long: `Decodes a capture as dump --json does and writes its records to FILE:
--format ndjson the dump --json records, --format parquet one row per
message of both protocols with the typed columns of docs/export.md (n, time_ns,
host, capture, frame, conn, dir, proto, msg, len, summary, worst, listener,
client_id, server_id, service, method, service_id, method_id, request_id,
status, pair, latency_ns, payload_message, payload_method, payload as a
MAP of each payload.* field to its JSON text; hex with --hex), zstd
compressed, written in row groups as the capture is read.
--payload-columns adds a column of its own for each payload field the
schemas (--schema) name, typed from the schema. --host NAME names the
host the capture was taken on (default: the file's base name without
its extension), so that the files of several hosts can be queried
together; with several captures, --host FILE=NAME names each.

Several captures are read as one, as dump --json reads them
(docs/json.md "Several captures"): numbered once in time order on the
first capture's clock (a tie goes to the capture given first), each row
keeping its host and capture, a connection both ends captured merged;
--time-shift FILE=±D gives a capture's clock offset instead of the
estimate.`,
		Example: `  usmnscope export --format parquet -o eu1.parquet --host eu1 eu1.pcapng
  duckdb -c "SELECT host, method, quantile_cont(latency_ns, 0.99) FROM 'eu*.parquet' WHERE msg = 'Response' GROUP BY ALL"
  usmnscope export --format parquet --schema chat.toml --payload-columns -o chat.parquet capture.pcapng
  usmnscope export --format ndjson -o capture.ndjson capture.pcapng
  usmnscope export --format parquet -o fleet.parquet --host eu1.pcapng=eu1 --host us1.pcapng=us1 eu1.pcapng us1.pcapng`,
		Args: argNames("CAPTURE..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.captures = args
			o.load = decodeLoaders(cmd)
			if runF != nil {
				return runF(o)
			}
			return runExport(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "", "`parquet` or ndjson")
	f.StringVarP(&o.out, "output", "o", "", "write to `FILE` (- for standard output)")
	f.BoolVar(&o.hex, "hex", false, "parquet: add the hex column (each message's bytes)")
	f.BoolVar(&o.payloadColumns, "payload-columns", false, "parquet: a typed column for each payload field of the schemas")
	f.StringArrayVar(&o.hosts, "host", nil, "the host `NAME` of the capture (FILE=NAME with several)")
	f.StringArrayVar(&o.shifts, "time-shift", nil, "add `FILE=±D` (a duration: -1.5s) to FILE's times instead of the estimated offset (several captures)")
	return cmd
}

func runExport(o *exportOptions) error {
	switch o.format {
	case "parquet", "ndjson":
	case "":
		return usageError{fmt.Errorf("export: --format parquet or --format ndjson is required")}
	default:
		return usageError{fmt.Errorf("export: --format %q: want parquet or ndjson", termsafe.Escape(o.format))}
	}
	if o.out == "" {
		return usageError{fmt.Errorf("export: -o FILE is required")}
	}
	if o.format == "ndjson" && (o.hex || o.payloadColumns) {
		return usageError{fmt.Errorf("export: --hex and --payload-columns are for --format parquet (the ndjson records carry hex and every field)")}
	}
	if err := pipeline.CheckHosts(o.captures, o.hosts); err != nil {
		return usageError{fmt.Errorf("export: %w", err)}
	}
	// The rest (ULinkRPC's side) is loaded once the output is made.
	cfg, err := o.load.Early()
	if err != nil {
		return err
	}
	if o.payloadColumns && cfg.Schemas == nil {
		return usageError{fmt.Errorf("export: --payload-columns needs schemas (--schema FILE)")}
	}
	sf := severalFlags{hosts: o.hosts, shifts: o.shifts}
	caps, err := sf.captures("export", o.captures)
	if err != nil {
		return err
	}
	var cols []export.Column
	if o.format == "parquet" {
		var payload []export.Column
		if o.payloadColumns {
			payload = export.PayloadColumns(cfg.Schemas)
		}
		cols = export.Columns(o.hex, payload)
	}
	f, err := export.Create(o.out, o.IO.out, cols)
	if err != nil {
		return err
	}
	if err = o.load.Rest(&cfg); err == nil {
		err = exportRecords(o, cfg, f, caps)
	}
	return f.Close(err)
}

// exportRecords reads the captures as dump --json does (a streaming
// Index whose settled messages are copied into batches, encoded on
// another goroutine) and writes the batches' records to f: as Parquet
// rows, or as the NDJSON records. Several captures (caps not nil) are read
// as one (docs/json.md "Several captures"): numbered once, clocks
// aligned, a connection both ends captured merged, each row keeping the
// host and capture it came from.
func exportRecords(o *exportOptions, cfg pipeline.Config, f *export.File, caps []pipeline.Capture) error {
	ad := &export.Adapter{}
	org := pipeline.Origin(o.captures[0], o.hosts)
	if caps == nil {
		ad.Host, ad.Capture = org.Host, org.Capture
	}
	defer setTuning(setTuning(streamTuning))
	js := render.NewBatches(f.Out, nil, export.Sink(f.Parquet, ad))
	_, err := readCaptures(o.IO, cfg, o.captures, caps, func(dc *session.Index) session.Stream {
		if caps == nil {
			dc.SetOrigin(org.Host, org.Capture)
		}
		return session.Stream{Spans: true, Settled: func(n int) error { return js.Settled(dc, n) }}
	})
	return js.End(err)
}
