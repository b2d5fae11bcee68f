package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
)

// Tables prints every connection's tables as aligned text. Type names
// come from the wire and are escaped.
func Tables(out io.Writer, dc *session.Index, at int) {
	asOf := "end of capture"
	if at > 0 {
		asOf = "message " + strconv.Itoa(at)
	}
	fmt.Fprintf(out, "profile %s, as of %s\n", termsafe.Escape(dc.Profile().Name), asOf)
	for i, ci := range dc.Connections() {
		if ci.Proto != "" {
			t := dc.TablesOf(i, at)
			if p := ci.ProtoTables(t); p != nil {
				protoConn(out, ci, p)
				continue
			}
			// A registered protocol with no tables (decode.Register): its
			// count.
			n := ci.Messages
			if t != nil {
				n = t.Messages
			}
			fmt.Fprintf(out, "\nconnection %s: %s, %s\n", ci.Conn, termsafe.Escape(ci.Proto), dissect.Count(n, "message"))
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
func writePing(out io.Writer, t *session.Tables) {
	p := t.Ping
	if p[dissect.C2S].Requests == 0 && p[dissect.S2C].Requests == 0 {
		return
	}
	for _, d := range [...]dissect.Dir{dissect.C2S, dissect.S2C} {
		s := p[d]
		fmt.Fprintf(out, "  ping %s: %d requests, %d answered, rtt min/median/max %s\n", d, s.Requests, s.Answered, s.RTT.Text())
	}
}

func writeServerTable(out io.Writer, es []session.ServerEntry) {
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

func writeClientTable(out io.Writer, es []session.ClientEntry) {
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

// RecLine is a hosted protocol's record's dump line (a ULinkRPC one's
// too): number, time since the first message of the capture, connection,
// direction and the record's Line.
func RecLine(r decode.Record, start time.Time) string {
	m := decode.BriefOf(r)
	return string(appendRecLine(nil, m, m.Conn.String(), r.Line(), start))
}

// appendRecLine appends RecLine of the record m is the Brief of, whose
// Line is line, conn being m.Conn.String() (writeLines makes it once per
// connection).
func appendRecLine(dst []byte, m decode.Meta, conn, line string, start time.Time) []byte {
	return append(appendLineHead(dst, m.N, m.Time, start, conn, m.Dir), line...)
}

// protoConn prints a connection of `tables` whose protocol keeps tables
// of its own (a ULinkRPC one: its per-method counts and latency, pushes,
// keep-alives, statuses and pending requests), then its findings.
func protoConn(out io.Writer, ci session.ConnInfo, p decode.Tables) {
	fmt.Fprintf(out, "\nconnection %s: ", ci.Conn)
	p.WriteText(out)
	for _, f := range ci.Findings {
		fmt.Fprintf(out, "  %s %s: %s\n", f.Severity, f.Group, termsafe.Escaped(f.Text))
	}
}
