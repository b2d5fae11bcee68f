package ulinkrpc

import (
	"errors"
	"fmt"

	"github.com/usmnscope/usmnscope/decode/transport"
	"github.com/usmnscope/usmnscope/dissect"
)

// Sentinel errors that callers branch on with errors.Is. Every detailed
// error of this package (*Error) wraps one of them.
var (
	// ErrShort: a read wanted more bytes than the input has ("malformed",
	// ulinkrpc.md 4; a cut WebSocket frame or KCP segment).
	ErrShort = errors.New("ulinkrpc: short input")
	// ErrTrailing: bytes left after a frame or a value that must be
	// consumed exactly ("trailing bytes", ulinkrpc.md 4).
	ErrTrailing = errors.New("ulinkrpc: trailing bytes")
	// ErrInvalidLength: a length below 0 or above the limit ("invalid
	// length", ulinkrpc.md 2 and 4).
	ErrInvalidLength = errors.New("ulinkrpc: invalid length")
	// ErrFormat: bytes that break a rule of their layer (a bad magic, a
	// reserved bit, a bad padding, invalid UTF-8, a bad gzip stream).
	ErrFormat = errors.New("ulinkrpc: bad format")
	// ErrTooLarge: a decoded value exceeds a resource bound (the gzip cap of
	// ulinkrpc.md 3).
	ErrTooLarge = errors.New("ulinkrpc: over the limit")
	// ErrAuth: an encrypted frame's HMAC does not match (ulinkrpc.md 3):
	// the key is probably wrong.
	ErrAuth = errors.New("ulinkrpc: HMAC mismatch")
	// ErrNoKey: an encrypted frame and no key to decrypt it.
	ErrNoKey = errors.New("ulinkrpc: encrypted, no key")
)

// Error is a decoding failure with its place: the layer ("envelope",
// "transform", "websocket", "kcp", "memorypack", "contracts"), the field and
// the byte offset within the layer's input. A short read also says how many
// bytes it needed and how many were left.
//
//	ulinkrpc envelope: request_id: need 4 bytes at byte 5, have 2
type Error struct {
	Layer  string
	Field  string // field path, "" when the error is about the whole input
	Offset int    // byte offset in the layer's input
	Need   int    // for ErrShort: bytes wanted
	Have   int    // for ErrShort: bytes left
	Err    error  // one of the sentinels
	Detail string // for other errors: what was wrong
}

// Error spells the place as the transports' errors do (transport.Error,
// the one rule), after the protocol's name.
func (e *Error) Error() string {
	t := transport.Error{Layer: e.Layer, Field: e.Field, Offset: e.Offset, Need: e.Need, Have: e.Have, Err: transport.ErrFormat, Detail: e.Detail}
	if e.Err == ErrShort {
		t.Err = transport.ErrShort
	}
	return "ulinkrpc " + t.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// finding turns err into an error finding pointing at its byte (bit 8×byte)
// plus base, the layer input's offset in the message.
func finding(err error, base int) dissect.Finding {
	f := dissect.Finding{Severity: dissect.Error, Group: dissect.Malformed, Text: err.Error(), Bit: -1}
	var e *Error
	if errors.As(err, &e) {
		f.Bit = 8 * (base + e.Offset)
		if e.Err == ErrAuth || e.Err == ErrNoKey {
			f.Group = dissect.Undecoded
		}
	}
	return f
}

func note(group dissect.Group, bit int, format string, args ...any) dissect.Finding {
	return dissect.Finding{Severity: dissect.Note, Group: group, Text: fmt.Sprintf(format, args...), Bit: bit}
}

func warn(group dissect.Group, bit int, format string, args ...any) dissect.Finding {
	return dissect.Finding{Severity: dissect.Warn, Group: group, Text: fmt.Sprintf(format, args...), Bit: bit}
}

func errf(group dissect.Group, bit int, format string, args ...any) dissect.Finding {
	return dissect.Finding{Severity: dissect.Error, Group: group, Text: fmt.Sprintf(format, args...), Bit: bit}
}
