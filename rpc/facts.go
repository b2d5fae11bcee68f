package rpc

import "github.com/usmnscope/usmnscope/decode"

var (
	_ decode.Caller      = (*Record)(nil)
	_ decode.ValueWriter = (*Record)(nil)
	_ decode.Framed      = (*Record)(nil)
)

// Call is r's `rpc` object as decode's Call: service, method and their
// IDs, the request ID and the status (nil where the record has none,
// outputs.md "ULinkRPC records"). It reads the envelope's values only, so
// a lazy record's payload stays undecoded.
func (r *Record) Call() decode.Call {
	p := &r.RPC
	return decode.Call{Service: p.Service, Method: p.Method, Status: p.Status,
		ServiceID: p.ServiceID, MethodID: p.MethodID, RequestID: p.RequestID}
}

// AppendValue appends v, a value of one of r's fields, as r's JSON spells
// it (AppendValue): it reads nothing of r.
func (r *Record) AppendValue(dst []byte, v any) []byte { return AppendValue(dst, v) }

// lengthPrefix is the frame's 4-byte length on the stream (ulinkrpc.md 2).
const lengthPrefix = 4

// Framing: the frame on the stream is the 4-byte length prefix and Len
// bytes; the transform layer's flags byte and, encrypted, its IV and HMAC
// are framing too (outputs.md "stats"). The envelope, when recovered and
// not compressed, is split by its fields; a compressed or undecrypted
// body is not.
func (r *Record) Framing() (wire, framing int, split bool) {
	wire = max(r.Len, 0) + lengthPrefix
	framing = lengthPrefix
	t := r.Transform
	if t != nil {
		if t.Encrypted {
			framing += 16 + 32 // IV and HMAC-SHA256 (ulinkrpc.md 3)
		}
		if t.Flags != nil {
			framing++
		}
	}
	return wire, min(framing, wire), r.Envelope != nil && (t == nil || !t.Gzip && (!t.Encrypted || t.Decrypted))
}
