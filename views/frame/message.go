package frame

import (
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
)

// A message is an Unturned one or a hosted protocol's record (a ULinkRPC
// one, outputs.md "ULinkRPC records", or any registered protocol's:
// session.Message.Record(), the neutral decode.Record), whose Unturned
// fields are zero. What the panes show of either is read here, once.

// Bytes returns the bytes the panes show of msg and the fields whose spans
// index them: the message bytes, or a ULinkRPC record's envelope (its
// fields' spans are 8 × byte offsets in the envelope, outputs.md).
func Bytes(msg *session.Message) ([]byte, []dissect.Field) {
	if msg == nil {
		return nil, nil
	}
	if r := msg.Record(); r != nil {
		m := r.Meta()
		return m.Data, m.Fields
	}
	return msg.Data, msg.Fields
}

// Name is msg's name, escaped: the Unturned message name or the ULinkRPC
// frame type (Request … KeepAlivePong, Encrypted, Unknown).
func Name(msg *session.Message) string {
	if msg.Record() != nil {
		return termsafe.Escape(msg.Record().Meta().Name)
	}
	return termsafe.Escape(msg.Name())
}

// Summary is msg's summary after its name, escaped: the decoder's summary,
// or the record's Line after its name (for ULinkRPC: request id,
// service.method or status, latency, payload).
func Summary(msg *session.Message) string {
	if r := msg.Record(); r != nil {
		return strings.TrimPrefix(strings.TrimPrefix(r.Line(), termsafe.Escape(r.Meta().Name)), " ")
	}
	// The summary may start with the name already shown in its own column.
	sum := strings.TrimPrefix(msg.Summary, msg.Name()+" ")
	if sum == msg.Name() {
		sum = ""
	}
	return termsafe.Escaped(sum)
}

// Worst is the highest severity of msg's findings, a ULinkRPC record's
// included, and whether there is any.
func Worst(msg *session.Message) (dissect.Severity, bool) {
	w, any := msg.Worst()
	if msg.Record() != nil {
		for _, f := range msg.Record().Meta().Findings {
			if !any || f.Severity > w {
				w, any = f.Severity, true
			}
		}
	}
	return w, any
}

// Findings are msg's findings: a ULinkRPC record's, then those the index
// added to the message that the record does not hold already.
func Findings(msg *session.Message) []dissect.Finding {
	if msg.Record() == nil {
		return msg.Findings
	}
	own := msg.Record().Meta().Findings
	out := own
	for _, f := range msg.Findings {
		dup := false
		for _, g := range own {
			dup = dup || f == g
		}
		if !dup {
			out = append(out[:len(out):len(out)], f)
		}
	}
	return out
}
