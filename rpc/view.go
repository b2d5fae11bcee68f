package rpc

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// View is a ULinkRPC connection's `rpc` table as the host shows it
// (decode.Tables): the text of `tables` and the rows of the TUI's tables
// pane, written here so that neither names ULinkRPC.
type View struct {
	Tables    Tables
	Transport Transport
	Records   int // the connection's records the table adds up
}

var _ decode.Tables = (*View)(nil)

// WriteText writes "ulinkrpc over TRANSPORT, N records", then the
// per-method counts and latency, pushes, keep-alives, statuses and
// pending requests.
func (v *View) WriteText(out io.Writer) {
	rt := &v.Tables
	fmt.Fprintf(out, "ulinkrpc over %s, %d records\n", v.Transport, v.Records)
	if len(rt.Methods) == 0 {
		fmt.Fprintln(out, "  methods: none")
	} else {
		fmt.Fprintln(out, "  methods:")
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "    SERVICE.METHOD\tIDS\tREQUESTS\tRESPONSES\tERRORS\tPENDING\tLATENCY MIN/MEDIAN/MAX")
		for _, m := range rt.Methods {
			fmt.Fprintf(tw, "    %s\t%d.%d\t%d\t%d\t%d\t%d\t%s\n", MethodText(m.Service, m.Method), m.ServiceID, m.MethodID,
				m.Requests, m.Responses, m.Errors, m.Pending, m.Latency.Text())
		}
		tw.Flush()
	}
	for _, p := range rt.Pushes {
		fmt.Fprintf(out, "  push %s (%d.%d): %d\n", MethodText(p.Service, p.Method), p.ServiceID, p.MethodID, p.Count)
	}
	fmt.Fprintf(out, "  keep-alive: %d pings, %d pongs, rtt %s\n", rt.KeepAlive.Pings, rt.KeepAlive.Pongs, rt.KeepAlive.RTT.Text())
	if len(rt.Status) > 0 {
		parts := make([]string, len(rt.Status))
		for i, c := range rt.Status {
			parts[i] = fmt.Sprintf("%s %d", termsafe.Escape(c.Name), c.Count)
		}
		fmt.Fprintf(out, "  status: %s\n", strings.Join(parts, ", "))
	}
	for _, p := range rt.Pending {
		fmt.Fprintf(out, "  pending: #%d request %d (%d.%d)\n", p.N, p.RequestID, p.ServiceID, p.MethodID)
	}
}

// Goes: Enter on a pending request's row goes to the Request.
func (v *View) Goes() string { return "go to pending request" }

// maxNameColumn bounds the pane's service.method column: longer names are
// cut with "…" (v shows a line whole).
const maxNameColumn = 32

// Rows lay the table out for the pane (outputs.md, tables --json): per
// method the requests, responses, errors, pending and latency
// min/median/max, then pushes, keep-alives, statuses and the pending
// requests, each of which Enter goes to.
func (v *View) Rows() []decode.Row {
	r := &v.Tables
	names := make([]string, len(r.Methods))
	w := len("SERVICE.METHOD")
	for i, m := range r.Methods {
		names[i] = clipRunes(MethodText(m.Service, m.Method), maxNameColumn)
		w = max(w, utf8.RuneCountInString(names[i]))
	}
	ls := []decode.Row{{Text: fmt.Sprintf("Methods (%d)", len(r.Methods)), Style: decode.RowHeading}}
	if len(r.Methods) > 0 {
		ls = append(ls, decode.Row{Text: fmt.Sprintf("  %s IDS   REQ  RSP  ERR PEND  LATENCY MIN/MED/MAX", pad("SERVICE.METHOD", w))})
	}
	for i, m := range r.Methods {
		l := decode.Row{Text: fmt.Sprintf("  %s %-5s %3d  %3d  %3d  %3d  %s", pad(names[i], w), idsText(m.ServiceID, m.MethodID),
			m.Requests, m.Responses, m.Errors, m.Pending, shortLatency(m.Latency))}
		if m.Errors > 0 || m.Pending > 0 {
			l.Style = decode.RowWarn
		}
		ls = append(ls, l)
	}
	ls = append(ls, decode.Row{Text: fmt.Sprintf("Pushes (%d)", len(r.Pushes)), Style: decode.RowHeading})
	for _, p := range r.Pushes {
		ls = append(ls, decode.Row{Text: fmt.Sprintf("  %s %s  %d", MethodText(p.Service, p.Method), idsText(p.ServiceID, p.MethodID), p.Count)})
	}
	k := r.KeepAlive
	ls = append(ls, decode.Row{Text: "Keep-alive", Style: decode.RowHeading},
		decode.Row{Text: fmt.Sprintf("  %d pings, %d pongs, rtt %s", k.Pings, k.Pongs, shortLatency(k.RTT))})
	if len(r.Status) > 0 {
		parts := make([]string, len(r.Status))
		for i, s := range r.Status {
			parts[i] = termsafe.Escape(s.Name) + " " + strconv.Itoa(s.Count)
		}
		ls = append(ls, decode.Row{Text: "Status", Style: decode.RowHeading}, decode.Row{Text: "  " + strings.Join(parts, ", ")})
	}
	if len(r.Pending) > 0 {
		ls = append(ls, decode.Row{Text: fmt.Sprintf("Pending (%d)", len(r.Pending)), Style: decode.RowWarn})
		for _, p := range r.Pending {
			ls = append(ls, decode.Row{Text: fmt.Sprintf("  #%d request %d %s %s", p.N, p.RequestID, pendingName(r, p), idsText(p.ServiceID, p.MethodID)),
				Style: decode.RowWarn, Go: p.N})
		}
	}
	return ls
}

// pendingName names a pending request by its method's row.
func pendingName(r *Tables, p PendingRequest) string {
	for _, m := range r.Methods {
		if m.ServiceID == p.ServiceID && m.MethodID == p.MethodID {
			return MethodText(m.Service, m.Method)
		}
	}
	return "?.?"
}

func idsText(sid, mid int32) string { return fmt.Sprintf("%d.%d", sid, mid) }

// shortLatency is min/median/max in milliseconds with one unit, or "-"
// with none answered: the pane's narrow column.
func shortLatency(l Latency) string {
	if !l.OK {
		return "-"
	}
	trim := func(s string) string { return strings.TrimSuffix(s, " ms") }
	return trim(dissect.FormatLatency(l.Min)) + "/" + trim(dissect.FormatLatency(l.Median)) + "/" + dissect.FormatLatency(l.Max)
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
}

// clipRunes cuts an escaped name to w runes, ending it in "…".
func clipRunes(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:w-1]) + "…"
}
