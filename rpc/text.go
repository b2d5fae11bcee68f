package rpc

import (
	"strconv"
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
	// Made in an array on the stack: the line's one allocation is its
	// string, of its length.
	var arr [160]byte
	b := append(arr[:0], r.Msg...)
	switch r.Type {
	case ulinkrpc.Request:
		b = append(b, " #"...)
		b = writeUint(b, uint64(*r.RPC.RequestID))
		b = append(b, ' ')
		b = methodLine(b, r)
		b = payloadText(b, r)
	case ulinkrpc.Response:
		b = append(b, " #"...)
		b = writeUint(b, uint64(*r.RPC.RequestID))
		b = append(b, ' ')
		b = append(b, termsafe.Escape(*r.RPC.Status)...)
		b = latencyText(b, r)
		if r.RPC.Error != nil {
			b = append(b, " error \""...)
			b = append(b, termsafe.Escape(*r.RPC.Error)...)
			b = append(b, '"')
		}
		b = payloadText(b, r)
	case ulinkrpc.Push:
		b = append(b, ' ')
		b = methodLine(b, r)
		b = payloadText(b, r)
	case ulinkrpc.KeepAlivePing, ulinkrpc.KeepAlivePong:
		b = append(b, " ticks "...)
		b = append(b, strconv.FormatInt(*r.RPC.Ticks, 10)...)
		b = latencyText(b, r)
	default:
		switch {
		case r.Msg == "Encrypted" && r.KeyFailed:
			b = append(b, " "...)
			b = append(b, strconv.Itoa(r.Len)...)
			b = append(b, " bytes (HMAC failed: the key is probably wrong)"...)
		case r.Msg == "Encrypted" && r.Transform != nil && r.Transform.Flags == nil && !hasError(r):
			b = append(b, " "...)
			b = append(b, strconv.Itoa(r.Len)...)
			b = append(b, " bytes (no key: pass --ulinkrpc-key BASE64 or the profile's [ulinkrpc] key)"...)
		case r.Msg == "Encrypted":
			b = append(b, " "...)
			b = append(b, strconv.Itoa(r.Len)...)
			b = append(b, " bytes (not decrypted)"...)
		case len(r.Envelope) > 0:
			b = append(b, " type "...)
			b = append(b, strconv.Itoa(int(r.Envelope[0]))...)
		}
	}
	if r.Transform != nil {
		switch {
		case r.Transform.Decrypted:
			b = append(b, " [decrypted]"...)
		case r.Transform.Gzip:
			b = append(b, " [gzip]"...)
		}
	}
	return string(b)
}

// writeUint appends v in decimal.
func writeUint(b []byte, v uint64) []byte {
	return strconv.AppendUint(b, v, 10)
}

// methodLine appends r's method name as Line writes it: escaped, and for
// ids without names (plain digits, which escaping keeps) through no
// string of its own.
func methodLine(b []byte, r *Record) []byte {
	p := &r.RPC
	if p.Service != nil || p.Method != nil || p.ServiceID == nil || p.MethodID == nil {
		b = append(b, termsafe.Escape(r.methodName())...)
		return b
	}
	b = append(b, '(')
	b = strconv.AppendInt(b, int64(*p.ServiceID), 10)
	b = append(b, ").("...)
	b = strconv.AppendInt(b, int64(*p.MethodID), 10)
	return append(b, ')')
}

func latencyText(b []byte, r *Record) []byte {
	if r.HasLatency {
		b = append(b, ' ')
		b = append(b, dissect.FormatLatency(r.Latency)...)
	}
	return b
}

// payloadText appends the payload: JSON as its text, MemoryPack with a
// schema as JSON, without one its member count, raw bytes by count.
func payloadText(b []byte, r *Record) []byte {
	p := r.Payload
	if p == nil || p.Encoding == ulinkrpc.EncodingEmpty {
		return b
	}
	b = append(b, ' ')
	switch {
	case p.Encoding == ulinkrpc.EncodingJSON || p.Encoding == ulinkrpc.EncodingMemoryPack && p.Object == nil:
		// JSON text whose strings are already escaped by termsafe's JSON
		// rule: Escaped keeps those escapes single.
		b = append(b, termsafe.Escaped(clip(string(appendPayloadValue(nil, p))))...)
	case p.Encoding == ulinkrpc.EncodingMemoryPack:
		b = append(b, "memorypack "...)
		if p.Object.Null {
			b = append(b, "null"...)
		} else {
			b = append(b, dissect.Count(len(p.Object.Members), "member")...)
		}
		b = append(b, ", "...)
		b = append(b, dissect.Count(p.Bytes, "byte")...)
	default:
		b = append(b, "raw "...)
		b = append(b, dissect.Count(p.Bytes, "byte")...)
	}
	return b
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
