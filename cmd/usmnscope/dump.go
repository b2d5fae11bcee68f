package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/render"
	"github.com/usmnscope/usmnscope/session"
)

// dumpOptions are what a dump command line asks for.
type dumpOptions struct {
	IO   *streams
	load pipeline.Loaders // the profile, schemas and ULinkRPC decoded under

	capture string // CAPTURE: a file, or - for standard input
	// captures are all the CAPTUREs (several: read as one, several.go).
	captures []string
	several  severalFlags
	verbose  bool
	hex      bool // -x: each message's bytes as hex and ASCII
	json     bool
	filter   string
	write    string // -w: write the selected messages' packets to this pcapng instead of printing
}

// newCmdDump returns the dump command; runF, when not nil, runs instead of
// runDump with the parsed options (tests).
func newCmdDump(s *streams, runF func(*dumpOptions) error) *cobra.Command {
	o := &dumpOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "dump CAPTURE",
		Short: "Print the decoded messages of a capture: SystemSockets, USMN and ULinkRPC",
		Long: `Decodes every SystemSockets message and every ULinkRPC frame of a pcap or
pcapng capture (a file, or - for standard input) and prints one line per
message: number, time since the first message, connection, direction,
message name (with ⁺ when its enum was read widened) and a summary. -V adds the field tree with each
field's bit offset, bit length and Wireshark-style bit string, after the
message's bytes as one hex string (paste it into usmnscope bits); -x prints
each message's bytes as hex and ASCII (like tshark -x); --json prints NDJSON
records (every key in docs/json.md), the bytes in "hex".

A filter selects messages: ==, !=, ~ (substring), <, <=, >, >= over the
fields dir, msg, listener, id (listener.id), server_id, client_id, severity
(note<warn<error), conn, n, len, widened, mode, group, proto (unturned or
ulinkrpc) and latency (a duration: latency>1ms), and for ULinkRPC service,
method, service_id, method_id, request_id, status and payload.<member>,
combined with &&, || and ! and parentheses. A bare word matches the message
name. With payload schemas (--schema, docs/schema.md), payload_message,
payload_method and every payload.<field> (payload.text ~ "hi",
payload.items[].amount > 1) too. Messages of both protocols are numbered
and printed in one sequence, by arrival.

-w OUT (--write) prints nothing and writes the selected messages' packets to
the pcapng OUT instead, with the context their decoding needs (the TCP
handshake, the WebSocket upgrade, the KCP handshake, the USMN handshake and
listener definitions, the partner of each pair), trimmed so that dump OUT
lists those messages again (docs/cli.md "Writing a selection").`,
		Example: `  usmnscope dump capture.pcapng
  usmnscope dump -V --filter 'msg==InvokeMessageListener && listener~Chat' capture.pcapng
  usmnscope dump -x --filter 'n==12' capture.pcapng
  usmnscope dump --json --filter 'severity>=warn' capture.pcapng | jq .expert
  usmnscope dump --schema chat.toml --filter 'payload_message == Say' capture.pcapng
  usmnscope dump --filter 'method == Login' -w login.pcapng capture.pcapng
  tcpdump -U -w - port 27016 | usmnscope dump -`,
		Args: argNames("CAPTURE..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.capture, o.captures = args[0], args
			o.load = decodeLoaders(cmd)
			if runF != nil {
				return runF(o)
			}
			return runDump(o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.verbose, "verbose", "V", false, "print the field tree of each message with bit strings")
	f.BoolVarP(&o.hex, "hex", "x", false, "print each message's bytes as hex and ASCII after it (like tshark -x)")
	f.BoolVar(&o.json, "json", false, "print one JSON record per message (NDJSON, docs/json.md)")
	f.StringVar(&o.filter, "filter", "", "print only the messages matching `EXPR` (see above)")
	f.StringVarP(&o.write, "write", "w", "", "write the selected messages' packets to the pcapng `OUT` instead of printing them")
	addSeveralFlags(cmd, &o.several)
	return cmd
}

func runDump(o *dumpOptions) error {
	if o.json && o.verbose {
		return usageError{fmt.Errorf("dump: --json and -V exclude each other")}
	}
	if o.json && o.hex {
		return usageError{fmt.Errorf("dump: --json and -x exclude each other (the JSON records carry the bytes in \"hex\")")}
	}
	flt, err := filter.Parse(o.filter)
	if err != nil {
		return usageError{err}
	}
	cfg, err := o.load.Load()
	if err != nil {
		return err
	}
	if o.write != "" {
		return dumpWrite(o, flt, cfg)
	}
	defer setTuning(setTuning(dumpTuning))
	d := render.NewDump(&render.Text{Out: newOutput(o.IO.out), Filter: flt, Verbose: o.verbose, Hex: o.hex}, o.json)
	caps, err := o.several.captures("dump", o.paths())
	if err != nil {
		return err
	}
	org := pipeline.Origin(o.capture, o.several.hosts)
	dc, err := readCaptures(o.IO, cfg, o.paths(), caps, func(dc *session.Index) session.Stream {
		dc.SetOrigin(org.Host, org.Capture)
		return d.Stream(dc)
	})
	err = d.End(err)
	if err == nil && !o.json && flt == nil {
		err = d.Trailer(dc)
	}
	if ferr := d.Out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// dumpWrite is dump -w: the capture decoded whole, the messages the filter
// selects written with their context (pipeline.Export), a summary on
// standard error.
func dumpWrite(o *dumpOptions, flt *filter.Filter, cfg pipeline.Config) error {
	if o.json || o.verbose || o.hex {
		return usageError{errors.New("dump: -w writes packets, not text: it excludes --json, -V and -x")}
	}
	if o.capture == "-" {
		return usageError{errors.New("dump: -w reads the capture twice: give a file, not standard input")}
	}
	if sameFile(o.capture, o.write) {
		return usageError{fmt.Errorf("dump: -w %s would overwrite the capture being read", o.write)}
	}
	dc, err := readCapture(o.IO, cfg, o.capture, nil)
	if err != nil {
		return err
	}
	nums := filter.Select(dc, flt)
	ex, err := pipeline.Export(o.capture, dc, nums, o.write)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.err, "usmnscope: wrote %s: %s, %s and %s for their decoding\n", o.write,
		dissect.Count(ex.Packets, "packet"), dissect.Count(ex.Messages, "message"), dissect.Count(len(ex.Context), "other"))
	return nil
}

// sameFile says whether the paths a and b name one existing file.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
