package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/render"
	"github.com/usmnscope/usmnscope/session"
)

// tablesOptions are what a tables command line asks for.
type tablesOptions struct {
	IO   *streams
	load pipeline.Loaders // the profile and ULinkRPC decoded under

	capture string // CAPTURE: a file, or - for standard input
	// captures are all the CAPTUREs (several: read as one, several.go).
	captures []string
	several  severalFlags
	json     bool
	at       int
	atGiven  bool // --at was on the command line (0 is then no message)
}

// newCmdTables returns the tables command; runF, when not nil, runs
// instead of runTables with the parsed options (tests).
func newCmdTables(s *streams, runF func(*tablesOptions) error) *cobra.Command {
	o := &tablesOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "tables CAPTURE",
		Short: "Print the per-connection USMN listener-ID tables and ULinkRPC call tables",
		Long: `Reconstructs, for each connection, the server table (server ID → listener
type, version, ID bit count), the client table (client ID → type, version,
mapped server ID), the IDs each side said it lacks and the references not
resolved (docs/protocol.md), as aligned text or as the JSON document of
docs/json.md. A ULinkRPC connection gets its per-method requests, responses,
errors, pending requests and latencies, pushes, keep-alives and statuses
instead (the "rpc" object). Without --at, the state at the end of the
capture.

--at N (from 1; messages of both protocols share the numbers) reads the
capture only until message N is final (no inference or answer it waits
for can change it) and reports the capture as cut there: the connections
seen by message N, their message counts, USMN markers and widening, their
findings before their first later message (none of the end of the
capture, which was not reached), and their tables, ping statistics and
rpc objects as of N. A capture with fewer than N messages is an error.`,
		Example: `  usmnscope tables capture.pcapng
  usmnscope tables --at 12 capture.pcapng
  usmnscope tables --json capture.pcapng | jq '.connections[].server_listeners'`,
		Args: argNames("CAPTURE..."),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.capture, o.captures = args[0], args
			o.atGiven = cmd.Flags().Changed("at")
			o.load = pipeline.Loaders{Profile: profileLoader(cmd), RPC: rpcLoader(cmd)}
			if runF != nil {
				return runF(o)
			}
			return runTables(o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the tables as one JSON document (docs/json.md)")
	cmd.Flags().IntVar(&o.at, "at", 0, "show the tables as of message `N` (default: the end of the capture)")
	addSeveralFlags(cmd, &o.several)
	return cmd
}

func runTables(o *tablesOptions) error {
	// --at 0 and --at -3 are refused alike (issue 16): without --at the
	// tables are those of the end of the capture; 0 is not a message.
	if o.at < 0 || o.atGiven && o.at < 1 {
		return usageError{fmt.Errorf("tables: --at %d: message numbers start at 1 (leave out --at for the end of the capture)", o.at)}
	}
	cfg, err := o.load.Load()
	if err != nil {
		return err
	}
	// Streaming (issue 18): no per-message history, the tables as of
	// --at kept per connection on the way, and the capture read only until
	// message --at is final (session.Stream.Cut).
	caps, err := o.several.captures("tables", o.paths())
	if err != nil {
		return err
	}
	dc, err := readCaptures(o.IO, cfg, o.paths(), caps, func(*session.Index) session.Stream { return session.Stream{AsOf: o.at, Cut: o.at > 0} })
	if err != nil {
		return err
	}
	if o.at > dc.Len() {
		return usageError{fmt.Errorf("tables: --at %d: the capture has %d messages", o.at, dc.Len())}
	}
	out := newOutput(o.IO.out)
	if o.json {
		b, err := dc.TablesJSONAt(o.at)
		if err != nil {
			return err
		}
		out.Write(b)
	} else {
		render.Tables(out, dc, o.at)
	}
	return out.Flush()
}
