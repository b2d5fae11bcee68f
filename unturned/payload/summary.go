package payload

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
)

// maxSummaryValues and maxSummaryValue bound the payload values a row
// summary shows (`Chat.Say "hello" …`).
const (
	maxSummaryValues = 3
	maxSummaryValue  = 40
)

// Summary prefixes summary with a decoded payload's title (Result.Title)
// and its first values, escaped for a terminal: `Chat.Say "hello" · srv#0
// …`; summary as it is when neither gives anything. It is written into one
// buffer: dump --json writes one per message.
func Summary(title string, fields []netpak.Span, summary string) string {
	var buf [256]byte
	b := append(buf[:0], title...)
	shown := 0
	for _, f := range fields {
		switch f.Name {
		case "payload.message", "payload.method", "payload.instance":
			continue
		}
		if strings.Count(f.Name, ".") > 1 || strings.IndexByte(f.Name, '[') >= 0 {
			continue // inside a struct or list: the summary shows the top level
		}
		if shown == maxSummaryValues {
			b = append(b, " …"...)
			break
		}
		if len(b) > 0 {
			b = append(b, ' ')
		}
		at := len(b)
		b = appendValue(b, f.Value)
		if seg := b[at:]; utf8.RuneCount(seg) > maxSummaryValue {
			cut, runes := 0, 0
			for runes < maxSummaryValue-1 {
				_, size := utf8.DecodeRune(seg[cut:])
				cut += size
				runes++
			}
			b = append(b[:at+cut], "…"...)
		}
		shown++
	}
	if len(b) == 0 {
		return summary
	}
	b = append(b, " · "...)
	b = append(b, summary...)
	return string(b)
}

// appendValue appends a value as the text outputs show it
// (dissect.FormatValue), without fmt for the common kinds.
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		b = append(b, '"')
		b = append(b, termsafe.Escape(x)...)
		return append(b, '"')
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case bool:
		return strconv.AppendBool(b, x)
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return append(b, dissect.FormatValue(v, dissect.TextValues)...)
}
