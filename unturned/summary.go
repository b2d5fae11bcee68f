package unturned

import (
	"strconv"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// The one-line summaries are built by appending into one buffer: dump
// --json writes one per message, and fmt's reflection was the largest cost
// left in that loop (issue 7). The text is the same as the list shows.

// Summary returns a one-line summary of the decoded message for lists, such
// as `srv#2 Sample.ChatListener v1 +def 88 payload bits` for a USMN invoke
// or `Kicked "bye"`. Strings from the wire are escaped (Escape), so the line
// is safe to print on a terminal.
func (d *Decoded) Summary() string {
	var buf [160]byte
	return string(d.AppendSummary(buf[:0]))
}

// AppendSummary appends Summary's text to dst.
func (d *Decoded) AppendSummary(dst []byte) []byte {
	b := dst
	switch d.Kind {
	case KindUnknown:
		b = append(b, "Unknown message "...)
		b = strconv.AppendUint(b, uint64(d.Enum.Value), 10)
		b = append(b, " ("...)
		b = strconv.AppendInt(b, int64(d.Enum.Bits), 10)
		b = append(b, " bits)"...)
	case KindInvokeMessageListener:
		h := &d.Invoke
		if h.IsClientID || h.HasClientID {
			b = appendID(b, "cli#", h.ClientID)
		} else {
			b = appendID(b, "srv#", h.ServerID)
		}
		if h.HasDefinition {
			b = append(b, ' ')
			b = append(b, termsafe.Escape(h.TypeName())...)
			b = appendID(b, " v", h.Version)
			b = append(b, " +def"...)
		}
		b = appendPayloadBits(b, d.PayloadBits)
	case KindNegotiateListenerDetails:
		n := &d.Negotiate
		if n.Mode == ModeUnknown {
			b = appendID(b, "Negotiate mode ", n.Raw)
			b = append(b, " (unknown)"...)
			break
		}
		b = append(b, n.Mode.String()...)
		switch n.Mode {
		case TellClientMissingListener:
			b = appendID(b, " cli#", n.ClientID)
		case TellClientListenerID:
			b = appendID(b, " cli#", n.ClientID)
			b = appendID(b, " → srv#", n.ServerID)
			b = append(b, ' ')
			b = append(b, termsafe.Escape(n.TypeName())...)
			b = appendID(b, " v", n.Version)
		case TellServerMissingListener:
			b = appendID(b, " srv#", n.ServerID)
		case RequestServerListenerID:
			b = appendID(b, " cli#", n.ClientID)
			b = append(b, ' ')
			b = append(b, termsafe.Escape(n.TypeName())...)
			b = appendID(b, " v", n.Version)
		}
	default:
		b = append(b, d.Kind.String()...)
		b = d.appendVanillaSummary(b)
	}
	return b
}

func (d *Decoded) appendVanillaSummary(b []byte) []byte {
	v := &d.Vanilla
	quote := func(b []byte, t []byte) []byte {
		b = append(b, ` "`...)
		b = append(b, termsafe.Escape(string(t))...)
		return append(b, '"')
	}
	switch d.Kind {
	case KindKicked, KindShutdown:
		b = quote(b, v.Text)
	case KindRejected:
		b = append(b, ' ')
		b = append(b, v.Rejection.String()...)
		b = quote(b, v.Text)
	case KindBanned:
		b = quote(b, v.Text)
		b = appendID(b, " ", v.Value)
		b = append(b, " s"...)
	case KindAccepted:
		b = appendID(b, " ", v.Value>>24)
		b = appendID(b, ".", v.Value>>16&0xff)
		b = appendID(b, ".", v.Value>>8&0xff)
		b = appendID(b, ".", v.Value&0xff)
		b = appendID(b, " query ", uint32(v.Port))
	case KindAdmined, KindUnadmined:
		b = appendID(b, " player ", v.Value)
	case KindQueuePositionChanged:
		b = appendID(b, " ", v.Value)
	case KindPlayerDisconnected:
		b = appendID(b, " net ", v.Value)
	case KindServerInvokeMethod, KindClientInvokeMethod:
		b = appendID(b, " #", v.Value)
	case KindUpdateReliableBuffer, KindUpdateUnreliableBuffer:
		b = appendID(b, " call ", v.Value)
		b = appendID(b, " channel ", uint32(v.Port))
	case KindDownloadWorkshopFiles:
		b = quote(b, v.Text)
		b = append(b, ' ')
		b = dissect.AppendCount(b, int64(v.Files), "file")
	}
	if d.HasMarker {
		b = appendID(b, " +USMN v", d.Marker.Version)
		if d.Marker.HasIDBits {
			b = append(b, " ids "...)
			b = dissect.AppendCount(b, int64(d.Marker.IDBits), "bit")
		}
	}
	if d.TrailerBits > 0 {
		b = append(b, " +trailer "...)
		b = dissect.AppendCount(b, int64(d.TrailerBits), "bit")
	}
	return b
}

// AppendListenerSummary appends the summary of a message whose listener the
// tables resolved as l: the decoder's summary, and for the two USMN messages
// the listener as the tables knew it, as in
// `srv#2 Sample.ChatListener v1 +def 88 payload bits`.
func (d *Decoded) AppendListenerSummary(b []byte, l *Listener) []byte {
	if line, ok := d.ListenerLine(l); ok {
		return line.Append(b, l)
	}
	return d.AppendSummary(b)
}

// ListenerLine is what AppendListenerSummary takes from the decoding when
// it shows the listener: with it and the Listener the text can be made
// later, and elsewhere (dump --json makes it on its encoding goroutine,
// issue 18).
type ListenerLine struct {
	Kind          Kind
	Mode          NegotiateMode // KindNegotiateListenerDetails
	HasDefinition bool          // KindInvokeMessageListener
	PayloadBits   int           // KindInvokeMessageListener
}

// ListenerLine returns d's part of AppendListenerSummary's text with l,
// and false when that text is the decoder's own summary instead (no
// listener, or a negotiation of unknown mode).
func (d *Decoded) ListenerLine(l *Listener) (ListenerLine, bool) {
	if l == nil || d.Kind == KindNegotiateListenerDetails && d.Negotiate.Mode == ModeUnknown {
		return ListenerLine{}, false
	}
	return ListenerLine{Kind: d.Kind, Mode: d.Negotiate.Mode, HasDefinition: d.Invoke.HasDefinition, PayloadBits: d.PayloadBits}, true
}

// Append appends AppendListenerSummary's text for a message of s whose
// listener the tables resolved as l (not nil).
func (s ListenerLine) Append(b []byte, l *Listener) []byte {
	typ := ""
	if l.Type != nil {
		typ = termsafe.Escape(*l.Type)
	}
	return s.AppendTyped(b, l, typ)
}

// AppendTyped is Append with typ, l's type as termsafe.Escape spells it
// (unused when l has none), which a caller writing many messages of few
// listeners keeps. The text apart from typ is printable ASCII without
// quotes or backslashes: as typ is, so is the whole line in JSON.
func (s ListenerLine) AppendTyped(b []byte, l *Listener, typ string) []byte {
	if s.Kind == KindNegotiateListenerDetails {
		b = append(b, s.Mode.String()...)
		b = append(b, ' ')
	}
	switch {
	case l.ServerID != nil && l.ClientID != nil:
		b = appendID(b, "cli#", *l.ClientID)
		b = appendID(b, " srv#", *l.ServerID)
	case l.ServerID != nil:
		b = appendID(b, "srv#", *l.ServerID)
	case l.ClientID != nil:
		b = appendID(b, "cli#", *l.ClientID)
	}
	if l.Type != nil {
		b = append(b, ' ')
		b = append(b, typ...)
	}
	if l.Version != nil {
		b = appendID(b, " v", *l.Version)
	}
	if s.Kind == KindInvokeMessageListener {
		if s.HasDefinition {
			b = append(b, " +def"...)
		}
		b = appendPayloadBits(b, s.PayloadBits)
	}
	if !l.Resolved {
		b = append(b, " (unresolved)"...)
	}
	return b
}

func appendID(b []byte, prefix string, v uint32) []byte {
	b = append(b, prefix...)
	if v < 10 {
		// Most listener IDs (issue 28: strconv's call was a fifth of the
		// listener line's encoding in a dump --json profile).
		return append(b, byte('0'+v))
	}
	return strconv.AppendUint(b, uint64(v), 10)
}

func appendPayloadBits(b []byte, n int) []byte {
	b = append(b, ' ')
	return dissect.AppendCount(b, int64(n), "payload bit")
}
