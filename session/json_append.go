package session

import (
	"encoding/hex"
	"math"
	"net/netip"
	"strconv"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/digits"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/schema"
)

// The appenders below spell JSON values exactly as encoding/json does with
// SetEscapeHTML(false), followed by termsafe.EscapeJSON: they are what
// Message.AppendJSON is made of, and json_test.go holds them to the
// reflection encoding they replace.

// appendConn appends c as a JSON string, as Conn.String spells it. The
// address text is ASCII but for an IPv6 zone, which is escaped like any
// string when it needs to be.
func appendConn(dst []byte, c dissect.Conn) []byte {
	dst = append(dst, '"')
	start := len(dst)
	dst = appendAddrPort(dst, c.Client)
	dst = append(dst, '-')
	dst = appendAddrPort(dst, c.Server)
	if !termsafe.JSONPlain(dst[start:]) {
		return termsafe.AppendJSONString(dst[:start-1], string(dst[start:]))
	}
	return append(dst, '"')
}

// appendAddrPort appends an address and port as netip.AddrPort.String
// spells it: AppendTo, except for the zero address, which String calls
// "invalid AddrPort" and AppendTo leaves empty.
func appendAddrPort(dst []byte, p netip.AddrPort) []byte {
	if !p.Addr().IsValid() {
		return append(dst, "invalid AddrPort"...)
	}
	return p.AppendTo(dst)
}

// appendOptUint appends *p, or null when p is nil.
func appendOptUint(dst []byte, p *uint32) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	return digits.AppendUint(dst, uint64(*p))
}

// appendFloat appends a finite float as encoding/json does: like %g, but
// with ES6's exponent cut-offs (below 1e-6 and from 1e21) and an exponent
// without a leading zero; bits is 32 or 64, the float's own precision.
func appendFloat(dst []byte, f float64, bits int) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// e-09 → e-9, as encoding/json does.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendValue appends a span value as outputs.md's field "value": numbers
// as JSON numbers, strings exactly as decoded, byte blocks as lower-case
// hex (raw bytes are not text), non-finite floats, which JSON cannot hold,
// as their Go spelling, and nil as null. A type the decoders do not
// produce goes through encoding/json; if that fails, null is appended and
// the error returned.
func appendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case uint64:
		return digits.AppendUint(dst, x), nil
	case int64:
		return digits.AppendInt(dst, x), nil
	case uint32:
		return digits.AppendUint(dst, uint64(x)), nil
	case int:
		return digits.AppendInt(dst, int64(x)), nil
	case string:
		return termsafe.AppendJSONString(dst, x), nil
	case []byte:
		dst = append(dst, '"')
		dst = hex.AppendEncode(dst, x)
		return append(dst, '"'), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return termsafe.AppendJSONString(dst, formatFloat(x)), nil
		}
		return appendFloat(dst, x, 64), nil
	case float32:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return termsafe.AppendJSONString(dst, formatFloat(f)), nil
		}
		return appendFloat(dst, f, 32), nil
	case schema.Vec3, schema.Quat, schema.RGBA, schema.TransformRef:
		return appendSchemaValue(dst, x), nil
	}
	b, err := marshal(v)
	if err != nil {
		return append(dst, "null"...), err
	}
	return append(dst, b...), nil
}

// appendHex appends outputs.md's "hex" key: the message bytes (without the
// frame header) as lower-case hex without spaces, what `usmnscope bits`
// takes back (issue 16: a message can be pasted from dump --json).
func appendHex(dst, data []byte) []byte {
	dst = append(dst, `,"hex":"`...)
	dst = digits.AppendHex(dst, data)
	return append(dst, '"')
}

// AppendValue appends a field value as `dump --json` writes it in a
// field's "value" (appendValue): what an exporter that keeps values as
// JSON text (usmnscope export's payload map) writes, so that both say the
// same. A value JSON cannot hold is written as null.
func AppendValue(dst []byte, v any) []byte {
	dst, _ = appendValue(dst, v)
	return dst
}

// appendFloats appends {"x":…,…} as schema.Vec3 and schema.Quat marshal
// themselves (a non-finite component as a string), without the slice
// MarshalJSON allocates.
func appendFloats(dst []byte, names string, vs ...float64) []byte {
	dst = append(dst, '{')
	for i, v := range vs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"', names[i], '"', ':')
		if math.IsNaN(v) || math.IsInf(v, 0) {
			dst = strconv.AppendQuote(dst, strconv.FormatFloat(v, 'g', -1, 64))
		} else {
			dst = strconv.AppendFloat(dst, v, 'g', -1, 64)
		}
	}
	return append(dst, '}')
}

// appendSchemaValue appends a schema value (schema.md section 3: vectors,
// quaternions, colours, transforms) as encoding/json spells it, without
// its reflection: a payload record holds many (issue 14: dump --json with
// schemas costs at most twice as much as without).
func appendSchemaValue(dst []byte, v any) []byte {
	switch x := v.(type) {
	case schema.Vec3:
		return appendFloats(dst, "xyz", x.X, x.Y, x.Z)
	case schema.Quat:
		return appendFloats(dst, "xyzw", x.X, x.Y, x.Z, x.W)
	case schema.RGBA:
		dst = append(dst, `{"r":`...)
		dst = strconv.AppendUint(dst, uint64(x.R), 10)
		dst = append(dst, `,"g":`...)
		dst = strconv.AppendUint(dst, uint64(x.G), 10)
		dst = append(dst, `,"b":`...)
		dst = strconv.AppendUint(dst, uint64(x.B), 10)
		dst = append(dst, `,"a":`...)
		dst = strconv.AppendUint(dst, uint64(x.A), 10)
		return append(dst, '}')
	case schema.TransformRef:
		dst = append(dst, `{"netid":`...)
		dst = strconv.AppendUint(dst, uint64(x.NetID), 10)
		dst = append(dst, `,"path":`...)
		dst = termsafe.AppendJSONString(dst, x.Path)
		return append(dst, '}')
	}
	return append(dst, "null"...)
}
