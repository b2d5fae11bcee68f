// Package expert builds the expert-info view (Wireshark's Expert
// Information): every capture, connection and message finding, grouped by
// severity (worst first) and group, with counts. A message finding's line
// goes to its message, a connection finding's to its connection (the
// pager's JumpMsg).
package expert

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/views/frame"
)

// Item is one finding and where it was found: the capture (Msg 0, Conn
// nil), a connection, or a message.
type Item struct {
	dissect.Finding
	Msg  int
	Conn *dissect.Conn
}

// Lines groups items by severity, worst first, then by group, keeping
// each group's items in capture order. Text is wrapped to w cells so a long
// finding (the SNS advice) is read whole.
func Lines(items []Item, w int) []frame.Row {
	if len(items) == 0 {
		return []frame.Row{{Text: "  no findings: the capture decoded cleanly"}}
	}
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b Item) int {
		if c := cmp.Compare(b.Severity, a.Severity); c != 0 {
			return c
		}
		return cmp.Compare(a.Group, b.Group)
	})
	var out []frame.Row
	for i := 0; i < len(sorted); {
		sev := sorted[i].Severity
		j := i
		for j < len(sorted) && sorted[j].Severity == sev {
			j++
		}
		style := frame.NoteRow + frame.RowStyle(min(int(sev), 2))
		out = append(out, frame.Row{Text: fmt.Sprintf("%s (%d)", upper(sev), j-i), Style: style})
		for k := i; k < j; {
			g := sorted[k].Group
			l := k
			for l < j && sorted[l].Group == g {
				l++
			}
			out = append(out, frame.Row{Text: fmt.Sprintf("  %s (%d)", g, l-k), Style: frame.Heading})
			for _, it := range sorted[k:l] {
				out = append(out, item(it, w, style)...)
			}
			k = l
		}
		i = j
	}
	return out
}

func item(it Item, w int, style frame.RowStyle) []frame.Row {
	where := "capture"
	switch {
	case it.Msg > 0:
		where = fmt.Sprintf("#%d", it.Msg)
	case it.Conn != nil:
		where = termsafe.Escape(it.Conn.String())
	}
	letter := upper(it.Severity)[:1]
	head := fmt.Sprintf("    %s %s: ", letter, where)
	text := termsafe.Escaped(it.Text)
	var out []frame.Row
	for i, s := range frame.Wrap(text, w-len(head)) {
		if i > 0 {
			head = fmt.Sprintf("%*s", len(head), "")
		}
		out = append(out, frame.Row{Text: head + s, Style: style, Msg: it.Msg, Conn: it.Conn})
	}
	return out
}

func upper(s dissect.Severity) string {
	switch s {
	case dissect.Error:
		return "ERROR"
	case dissect.Warn:
		return "WARN"
	}
	return "NOTE"
}
