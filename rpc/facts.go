package rpc

import "github.com/usmnscope/usmnscope/decode"

var (
	_ decode.Caller      = (*Record)(nil)
	_ decode.ValueWriter = (*Record)(nil)
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
