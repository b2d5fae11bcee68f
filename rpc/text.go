package rpc

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// maxSummary bounds the payload text on a `dump` line (bytes, before
// escaping); longer payloads end in "…".
const maxSummary = 160

// Line is r's `dump` text after the message number and direction: the
// frame type, the request id, the method's name, status and latency, the
// payload (`Request #7 IPlayerService.LoginAsync {"Account":"ann"}`,
// `Response #7 Ok 0.21 ms`). Every string from the wire or the contracts
// passes through termsafe.Escape.
func Line(r *Record) string {
	var b strings.Builder
	b.Grow(128) // most lines: one allocation, not one a doubling
	b.WriteString(r.Msg)
	switch r.Type {
	case ulinkrpc.Request:
		b.WriteString(" #")
		writeUint(&b, uint64(*r.RPC.RequestID))
		b.WriteByte(' ')
		methodLine(&b, r)
		payloadText(&b, r)
	case ulinkrpc.Response:
		b.WriteString(" #")
		writeUint(&b, uint64(*r.RPC.RequestID))
		b.WriteByte(' ')
		b.WriteString(termsafe.Escape(*r.RPC.Status))
		latencyText(&b, r)
		if r.RPC.Error != nil {
			b.WriteString(" error \"")
			b.WriteString(termsafe.Escape(*r.RPC.Error))
			b.WriteByte('"')
		}
		payloadText(&b, r)
	case ulinkrpc.Push:
		b.WriteByte(' ')
		methodLine(&b, r)
		payloadText(&b, r)
	case ulinkrpc.KeepAlivePing, ulinkrpc.KeepAlivePong:
		b.WriteString(" ticks ")
		b.WriteString(strconv.FormatInt(*r.RPC.Ticks, 10))
		latencyText(&b, r)
	default:
		switch {
		case r.Msg == "Encrypted" && r.KeyFailed:
			b.WriteString(" ")
			b.WriteString(strconv.Itoa(r.Len))
			b.WriteString(" bytes (HMAC failed: the key is probably wrong)")
		case r.Msg == "Encrypted" && r.Transform != nil && r.Transform.Flags == nil && !hasError(r):
			b.WriteString(" ")
			b.WriteString(strconv.Itoa(r.Len))
			b.WriteString(" bytes (no key: pass --ulinkrpc-key BASE64 or the profile's [ulinkrpc] key)")
		case r.Msg == "Encrypted":
			b.WriteString(" ")
			b.WriteString(strconv.Itoa(r.Len))
			b.WriteString(" bytes (not decrypted)")
		case len(r.Envelope) > 0:
			b.WriteString(" type ")
			b.WriteString(strconv.Itoa(int(r.Envelope[0])))
		}
	}
	if r.Transform != nil {
		switch {
		case r.Transform.Decrypted:
			b.WriteString(" [decrypted]")
		case r.Transform.Gzip:
			b.WriteString(" [gzip]")
		}
	}
	return b.String()
}

// writeUint writes v in decimal, through no string of its own.
func writeUint(b *strings.Builder, v uint64) {
	var num [20]byte
	b.Write(strconv.AppendUint(num[:0], v, 10))
}

// methodLine writes r's method name as Line does: escaped, and for ids
// without names (plain digits, which escaping keeps) through no string
// of its own.
func methodLine(b *strings.Builder, r *Record) {
	p := &r.RPC
	if p.Service != nil || p.Method != nil || p.ServiceID == nil || p.MethodID == nil {
		b.WriteString(termsafe.Escape(r.methodName()))
		return
	}
	var num [48]byte
	n := append(num[:0], '(')
	n = strconv.AppendInt(n, int64(*p.ServiceID), 10)
	n = append(n, ").("...)
	n = strconv.AppendInt(n, int64(*p.MethodID), 10)
	b.Write(append(n, ')'))
}

func latencyText(b *strings.Builder, r *Record) {
	if r.HasLatency {
		b.WriteByte(' ')
		b.WriteString(dissect.FormatLatency(r.Latency))
	}
}

// payloadText appends the payload: JSON as its text, MemoryPack with a
// schema as JSON, without one its member count, raw bytes by count.
func payloadText(b *strings.Builder, r *Record) {
	p := r.Payload
	if p == nil || p.Encoding == ulinkrpc.EncodingEmpty {
		return
	}
	b.WriteByte(' ')
	switch {
	case p.Encoding == ulinkrpc.EncodingJSON || p.Encoding == ulinkrpc.EncodingMemoryPack && p.Object == nil:
		// JSON text whose strings are already escaped by termsafe's JSON
		// rule: Escaped keeps those escapes single.
		b.WriteString(termsafe.Escaped(clip(string(appendPayloadValue(nil, p)))))
	case p.Encoding == ulinkrpc.EncodingMemoryPack:
		b.WriteString("memorypack ")
		if p.Object.Null {
			b.WriteString("null")
		} else {
			b.WriteString(dissect.Count(len(p.Object.Members), "member"))
		}
		b.WriteString(", ")
		b.WriteString(dissect.Count(p.Bytes, "byte"))
	default:
		b.WriteString("raw ")
		b.WriteString(dissect.Count(p.Bytes, "byte"))
	}
}

// clip cuts s to maxSummary bytes on a rune boundary.
func clip(s string) string {
	if len(s) <= maxSummary {
		return s
	}
	i := maxSummary
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// hasError reports an error finding on r.
func hasError(r *Record) bool {
	for _, f := range r.Findings {
		if f.Severity == dissect.Error {
			return true
		}
	}
	return false
}
