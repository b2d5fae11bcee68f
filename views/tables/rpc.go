package tables

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
)

// PendingMsg asks to go to message N: a ULinkRPC Request still pending,
// chosen in the tables pane.
type PendingMsg struct{ N int }

// maxNameColumn bounds the service.method column: longer names are cut
// with "…" (v shows a line whole).
const maxNameColumn = 32

// renderRPC lays out a ULinkRPC connection's `rpc` table as of t.AsOf
// (outputs.md, tables --json): per method the requests, responses,
// errors, pending and latency min/median/max, then pushes, keep-alives,
// statuses and the pending requests, each of which Enter goes to.
func renderRPC(t *session.Tables) []line {
	r := t.RPC
	names := make([]string, len(r.Methods))
	w := len("SERVICE.METHOD")
	for i, m := range r.Methods {
		names[i] = clip(rpc.MethodText(m.Service, m.Method), maxNameColumn)
		w = max(w, utf8.RuneCountInString(names[i]))
	}
	ls := []line{{text: fmt.Sprintf("Methods (%d)", len(r.Methods)), style: 1}}
	if len(r.Methods) > 0 {
		ls = append(ls, line{text: fmt.Sprintf("  %s IDS   REQ  RSP  ERR PEND  LATENCY MIN/MED/MAX", pad("SERVICE.METHOD", w))})
	}
	for i, m := range r.Methods {
		l := line{text: fmt.Sprintf("  %s %-5s %3d  %3d  %3d  %3d  %s", pad(names[i], w), ids(m.ServiceID, m.MethodID),
			m.Requests, m.Responses, m.Errors, m.Pending, latency(m.Latency))}
		if m.Errors > 0 || m.Pending > 0 {
			l.style = 2
		}
		ls = append(ls, l)
	}
	ls = append(ls, line{text: fmt.Sprintf("Pushes (%d)", len(r.Pushes)), style: 1})
	for _, p := range r.Pushes {
		ls = append(ls, line{text: fmt.Sprintf("  %s %s  %d", rpc.MethodText(p.Service, p.Method), ids(p.ServiceID, p.MethodID), p.Count)})
	}
	k := r.KeepAlive
	ls = append(ls, line{text: "Keep-alive", style: 1},
		line{text: fmt.Sprintf("  %d pings, %d pongs, rtt %s", k.Pings, k.Pongs, latency(k.RTT))})
	if len(r.Status) > 0 {
		parts := make([]string, len(r.Status))
		for i, s := range r.Status {
			parts[i] = termsafe.Escape(s.Name) + " " + strconv.Itoa(s.Count)
		}
		ls = append(ls, line{text: "Status", style: 1}, line{text: "  " + strings.Join(parts, ", ")})
	}
	if len(r.Pending) > 0 {
		ls = append(ls, line{text: fmt.Sprintf("Pending (%d)", len(r.Pending)), style: 2})
		for _, p := range r.Pending {
			ls = append(ls, line{text: fmt.Sprintf("  #%d request %d %s %s", p.N, p.RequestID, pendingName(r, p), ids(p.ServiceID, p.MethodID)),
				style: 2, pending: p.N})
		}
	}
	for _, w := range t.Warnings {
		ls = append(ls, line{text: fmt.Sprintf("%s/%s: %s", w.Severity, w.Group, termsafe.Escaped(w.Text)), style: 2})
	}
	return ls
}

// pendingName names a pending request by its method's row.
func pendingName(r *rpc.Tables, p rpc.PendingRequest) string {
	for _, m := range r.Methods {
		if m.ServiceID == p.ServiceID && m.MethodID == p.MethodID {
			return rpc.MethodText(m.Service, m.Method)
		}
	}
	return "?.?"
}

func ids(sid, mid int32) string { return fmt.Sprintf("%d.%d", sid, mid) }

// latency is min/median/max in milliseconds, or "-" with none answered.
func latency(l dissect.Latency) string {
	if !l.OK {
		return "-"
	}
	trim := func(s string) string { return strings.TrimSuffix(s, " ms") }
	return trim(dissect.FormatLatency(l.Min)) + "/" + trim(dissect.FormatLatency(l.Median)) + "/" + dissect.FormatLatency(l.Max)
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
}

// clip cuts an escaped name to w runes, ending it in "…".
func clip(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:w-1]) + "…"
}
