package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// tablesOptions are what a tables command line asks for.
type tablesOptions struct {
	IO      *streams
	profile func() (*unturned.Profile, error)
	rpc     func() (*pipeline.RPC, error)

	capture string // CAPTURE: a file, or - for standard input
	json    bool
	at      int
	atGiven bool // --at was on the command line (0 is then no message)
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
		Args: argNames("CAPTURE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.capture = args[0]
			o.atGiven = cmd.Flags().Changed("at")
			o.profile = profileLoader(cmd)
			o.rpc = rpcLoader(cmd)
			if runF != nil {
				return runF(o)
			}
			return runTables(o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the tables as one JSON document (docs/json.md)")
	cmd.Flags().IntVar(&o.at, "at", 0, "show the tables as of message `N` (default: the end of the capture)")
	return cmd
}

func runTables(o *tablesOptions) error {
	// --at 0 and --at -3 are refused alike (issue 16): without --at the
	// tables are those of the end of the capture; 0 is not a message.
	if o.at < 0 || o.atGiven && o.at < 1 {
		return usageError{fmt.Errorf("tables: --at %d: message numbers start at 1 (leave out --at for the end of the capture)", o.at)}
	}
	p, err := o.profile()
	if err != nil {
		return err
	}
	rp, err := loadRPC(o.rpc)
	if err != nil {
		return err
	}
	// Streaming (issue 18): no per-message history, the tables as of
	// --at kept per connection on the way, and the capture read only until
	// message --at is final (session.Stream.Cut).
	dc, err := readCaptureRPC(o.IO, p, nil, rp, o.capture, nil, func(*session.Index) session.Stream { return session.Stream{AsOf: o.at, Cut: o.at > 0} })
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
		writeTables(out, dc, o.at)
	}
	return out.Flush()
}

// writeTables prints every connection's tables as aligned text. Type names
// come from the wire and are escaped.
func writeTables(out *bufio.Writer, dc *session.Index, at int) {
	asOf := "end of capture"
	if at > 0 {
		asOf = "message " + strconv.Itoa(at)
	}
	fmt.Fprintf(out, "profile %s, as of %s\n", termsafe.Escape(dc.Profile().Name), asOf)
	for i, ci := range dc.Connections() {
		if ci.RPC {
			writeRPCConn(out, ci, dc.TablesOf(i, at))
			continue
		}
		t := dc.Tables(ci.Conn, at)
		// The count follows --at, as "messages" does in tables --json.
		n := ci.Messages
		if t != nil {
			n = t.Messages
		}
		fmt.Fprintf(out, "\nconnection %s: %d messages, USMN client %s server %s%s\n",
			ci.Conn, n, yesNo(ci.USMNClient), yesNo(ci.USMNServer), widenedText(ci))
		if t == nil {
			fmt.Fprintln(out, "  no listener tables")
			continue
		}
		writeServerTable(out, t.Server)
		writeClientTable(out, t.Client)
		if len(t.MissingOnServer) > 0 {
			fmt.Fprintf(out, "  missing on server (client IDs): %s\n", joinIDs(t.MissingOnServer))
		}
		if len(t.MissingOnClient) > 0 {
			fmt.Fprintf(out, "  missing on client (server IDs): %s\n", joinIDs(t.MissingOnClient))
		}
		if len(t.Unresolved) > 0 {
			refs := make([]string, len(t.Unresolved))
			for i, r := range t.Unresolved {
				refs[i] = fmt.Sprintf("#%d %s id %d", r.N, r.Dir, r.ID)
			}
			fmt.Fprintf(out, "  unresolved: %s\n", strings.Join(refs, ", "))
		}
		for _, f := range t.Warnings {
			fmt.Fprintf(out, "  %s %s: %s\n", f.Severity, f.Group, termsafe.Escaped(f.Text))
		}
		writePing(out, t)
	}
}

// writePing prints the PingRequests of each direction, how many were
// answered and their round trips (tables --json "ping"), when there were
// any.
func writePing(out *bufio.Writer, t *session.Tables) {
	p := t.Ping
	if t.RPC != nil || p[dissect.C2S].Requests == 0 && p[dissect.S2C].Requests == 0 {
		return
	}
	for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
		s := p[d]
		fmt.Fprintf(out, "  ping %s: %d requests, %d answered, rtt min/median/max %s\n", d, s.Requests, s.Answered, latencyText(s.RTT))
	}
}

func writeServerTable(out *bufio.Writer, es []session.ServerEntry) {
	if len(es) == 0 {
		fmt.Fprintln(out, "  server table: empty")
		return
	}
	fmt.Fprintln(out, "  server table:")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "     ID\tTYPE\tVERSION\tID BITS\tLEARNED\tFIRST\tINVOKES\tPAYLOAD BITS")
	for _, e := range es {
		fmt.Fprintf(tw, "   %s %d\t%s\t%d\t%d\t%s\t%d\t%d\t%d\n", changed(e.Changed), e.ID, termsafe.Escape(e.Type), e.Version, e.IDBits, e.Learned, e.First, e.Invokes, e.PayloadBits)
	}
	tw.Flush()
}

func writeClientTable(out *bufio.Writer, es []session.ClientEntry) {
	if len(es) == 0 {
		fmt.Fprintln(out, "  client table: empty")
		return
	}
	fmt.Fprintln(out, "  client table:")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "     ID\tTYPE\tVERSION\tSERVER ID\tLEARNED\tFIRST\tINVOKES\tPAYLOAD BITS")
	for _, e := range es {
		sid := "-"
		if e.Mapped {
			sid = strconv.FormatUint(uint64(e.ServerID), 10)
		}
		fmt.Fprintf(tw, "   %s %d\t%s\t%d\t%s\t%s\t%d\t%d\t%d\n", changed(e.Changed), e.ID, termsafe.Escape(e.Type), e.Version, sid, e.Learned, e.First, e.Invokes, e.PayloadBits)
	}
	tw.Flush()
}

// changed marks ("*") the entries that the message the tables are as of
// created or updated.
func changed(c bool) string {
	if c {
		return "*"
	}
	return " "
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// widenedText is session's Full wording of the widened directions, after
// ", " when there are any.
func widenedText(ci session.ConnInfo) string {
	if s := ci.WidenedText(session.Full); s != "" {
		return ", " + s
	}
	return ""
}

func joinIDs(ids []uint32) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatUint(uint64(id), 10)
	}
	return strings.Join(s, ", ")
}
