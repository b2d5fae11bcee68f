package transport

import (
	"errors"
	"fmt"

	"github.com/usmnscope/usmnscope/dissect"
)

// Sentinel errors that callers branch on with errors.Is. Every *Error
// wraps one of them.
var (
	// ErrShort: a read wanted more bytes than the input has (a cut
	// WebSocket frame or HTTP head, a cut KCP segment).
	ErrShort = errors.New("transport: short input")
	// ErrFormat: bytes that break a rule of their layer (a reserved
	// opcode or bit, a length not in its shortest form, an unknown KCP
	// command, a head that is not HTTP).
	ErrFormat = errors.New("transport: bad format")
)

// Error is a parse failure with its place: the layer ("websocket",
// "kcp"), the field and the byte offset within the layer's input. A short
// read also says how many bytes it needed and how many were left.
//
//	kcp: ts: need 4 bytes at byte 35, have 2
//
// A protocol that shows it in a finding may put its own name before it
// (ULinkRPC's read "ulinkrpc kcp: ..."): the transports' decoders take
// that prefix in their configuration.
type Error struct {
	Layer  string
	Field  string // "" when the error is about the whole input
	Offset int    // byte offset in the layer's input
	Need   int    // ErrShort: bytes wanted
	Have   int    // ErrShort: bytes left
	Err    error  // ErrShort or ErrFormat
	Detail string // ErrFormat: what was wrong
}

func (e *Error) Error() string {
	s := e.Layer + ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	if e.Err == ErrShort {
		return s + fmt.Sprintf("need %s at byte %d, have %d", dissect.Count(e.Need, "byte"), e.Offset, e.Have)
	}
	return s + e.Detail + fmt.Sprintf(" at byte %d", e.Offset)
}

func (e *Error) Unwrap() error { return e.Err }

// Short is the ErrShort of field at byte off of layer's input of n bytes,
// which wanted need.
func Short(layer, field string, off, need, n int) *Error {
	return &Error{Layer: layer, Field: field, Offset: off, Need: need, Have: n - off, Err: ErrShort}
}

// Format is the ErrFormat of field at byte off of layer's input.
func Format(layer, field string, off int, format string, args ...any) *Error {
	return &Error{Layer: layer, Field: field, Offset: off, Err: ErrFormat, Detail: fmt.Sprintf(format, args...)}
}
