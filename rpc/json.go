package rpc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/digits"
	"github.com/usmnscope/usmnscope/internal/jsontime"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// AppendJSON appends r as one `dump --json` line's object (outputs.md
// "ULinkRPC records"), without the newline. Strings from the wire are kept
// exactly, escaped by termsafe's JSON rule.
func AppendJSON(dst []byte, r *Record) []byte { return AppendJSONOrigin(dst, r, nil) }

// AppendJSONOrigin is AppendJSON with origin, the record's encoded "host"
// and "capture" keys (each with its leading comma), after "time_ns".
func AppendJSONOrigin(dst []byte, r *Record, origin []byte) []byte {
	if r.bare {
		return appendBare(dst, r, origin)
	}
	return appendJSON(dst, r, origin, nil)
}

// jsonParts are the parts of a bare record (lazy.go) decoded for its
// JSON: its envelope's fields, its payload decoded without a JSON
// payload's fields, and the walk of a JSON payload at byte off of the
// envelope, whose members are written as the fields that follow (as are
// the entries of a MemoryPack payload cut into Payload.Cut).
type jsonParts struct {
	fields  []dissect.Field
	payload *ulinkrpc.Payload
	// exact is the envelope's values read at their fixed offsets
	// (ulinkrpc.EnvelopeLayout), nil when fields lists them instead: its
	// fields are then written straight from them and the bytes
	// (appendExactFields).
	exact *ulinkrpc.Envelope
	walk  *ulinkrpc.JSONWalk
	// json is a JSON payload's bytes, its value (Payload.Value nil:
	// PayloadConfig.NoJSONValue).
	json []byte
	off  int
	// tc spells the time, conn is the "conn" value encoded (the encoding
	// goroutine's caches).
	tc   *jsontime.Cache
	conn []byte
	// dirTransport is appendDirTransport's text, nil to write it.
	dirTransport []byte
	// found is the payload finding written last and its entry (finding),
	// the encoding goroutine's.
	found *foundJSON
}

// foundJSON is a finding's "expert" entry as dissect.Finding.AppendJSON
// writes it (its Bit is not written).
type foundJSON struct {
	sev   dissect.Severity
	group dissect.Group
	text  string
	json  []byte
}

// finding appends f's "expert" entry: the one written last again when f
// is the same note (most payload findings are: MemoryPack cut without a
// schema), else written and kept.
func (p *jsonParts) finding(dst []byte, f *dissect.Finding) []byte {
	m := p.found
	if m == nil {
		return f.AppendJSON(dst)
	}
	if m.json != nil && f.Severity == m.sev && f.Group == m.group && f.Text == m.text {
		return append(dst, m.json...)
	}
	at := len(dst)
	dst = f.AppendJSON(dst)
	m.sev, m.group, m.text, m.json = f.Severity, f.Group, f.Text, append(m.json[:0], dst[at:]...)
	return dst
}

// appendJSON is AppendJSONOrigin of r, or of bare r's decoded parts.
func appendJSON(dst []byte, r *Record, origin []byte, parts *jsonParts) []byte {
	// A bare record's own are not read: they lie in a cache line its
	// JSON reads nothing else of (Record).
	var fields []dissect.Field
	var p *ulinkrpc.Payload
	if parts != nil {
		fields, p = parts.fields, parts.payload
	} else {
		fields, p = r.Fields, r.Payload
	}
	dst = append(dst, `{"n":`...)
	dst = digits.AppendInt(dst, int64(r.N))
	dst = append(dst, `,"frame":`...)
	dst = digits.AppendInt(dst, int64(r.Frame))
	dst = append(dst, `,"time":"`...)
	if parts != nil {
		dst = parts.tc.AppendBoth(dst, r.Time)
	} else {
		dst = jsontime.Append(dst, r.Time)
		dst = append(dst, '"')
		dst = jsontime.AppendNS(dst, r.Time)
	}
	dst = append(dst, origin...)
	dst = append(dst, `,"conn":`...)
	if parts != nil {
		dst = append(dst, parts.conn...)
	} else {
		dst = termsafe.AppendJSONString(dst, r.Conn.String())
	}
	if parts != nil && parts.dirTransport != nil {
		dst = append(dst, parts.dirTransport...)
	} else {
		dst = appendDirTransport(dst, r.Dir, r.Transport)
	}
	dst = digits.AppendInt(dst, int64(r.Len))
	dst = append(dst, `,"msg":`...)
	dst = termsafe.AppendJSONString(dst, r.Msg)
	if t := r.Transform; t != nil {
		dst = append(dst, `,"transform":{"flags":`...)
		if t.Flags != nil {
			dst = digits.AppendInt(dst, int64(*t.Flags))
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, `,"gzip":`...)
		dst = strconv.AppendBool(dst, t.Gzip)
		dst = append(dst, `,"encrypted":`...)
		dst = strconv.AppendBool(dst, t.Encrypted)
		dst = append(dst, `,"decrypted":`...)
		dst = strconv.AppendBool(dst, t.Decrypted)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"fields":[`...)
	// payHex is where the payload field's hex starts in dst, -1 for none:
	// the envelope's "hex" copies it.
	nf, payHex := len(fields), -1
	if parts != nil && parts.exact != nil {
		dst, nf, payHex = appendExactFields(dst, r.Envelope, parts.exact)
	} else {
		for i := range fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendField(dst, &fields[i])
		}
	}
	if parts != nil && parts.payload != nil {
		n := nf
		for i := range parts.payload.Fields {
			if f := &parts.payload.Fields[i]; !payloadRoot(f) {
				dst = appendSep(dst, &n)
				dst = appendField(dst, f)
			}
		}
		if w := parts.payload.Cut; w != nil {
			for i := range w.Entries {
				dst = appendSep(dst, &n)
				dst = appendEntry(dst, w, &w.Entries[i], parts.off)
			}
		}
		if w := parts.walk; w != nil {
			// Members[0] is the payload itself: the envelope's "payload"
			// field.
			for i := 1; i < len(w.Members); i++ {
				dst = appendSep(dst, &n)
				dst = appendMember(dst, w, &w.Members[i], parts.off)
			}
		}
	}
	dst = append(dst, `],"rpc":`...)
	dst = appendRPC(dst, &r.RPC)
	if p != nil {
		dst = append(dst, `,"payload":{"encoding":`...)
		dst = termsafe.AppendJSONString(dst, p.Encoding.String())
		dst = append(dst, `,"bytes":`...)
		dst = digits.AppendInt(dst, int64(p.Bytes))
		dst = append(dst, `,"value":`...)
		if parts != nil && parts.json != nil {
			dst = appendWalked(dst, parts.json, parts.walk)
		} else {
			dst = appendPayloadValue(dst, p)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"expert":[`...)
	for i := range r.Findings {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = r.Findings[i].AppendJSON(dst)
	}
	if parts != nil && parts.payload != nil {
		n := len(r.Findings)
		for i := range parts.payload.Findings {
			dst = appendSep(dst, &n)
			dst = parts.finding(dst, &parts.payload.Findings[i])
		}
	}
	dst = append(dst, ']')
	if r.Envelope != nil {
		dst = append(dst, `,"hex":"`...)
		if payHex >= 0 {
			// The payload's hex is written already: copied, not encoded
			// again.
			e := parts.exact
			end := e.PayloadOff + len(e.Payload)
			dst = digits.AppendHex(dst, r.Envelope[:e.PayloadOff])
			dst = append(dst, dst[payHex:payHex+2*len(e.Payload)]...)
			dst = digits.AppendHex(dst, r.Envelope[end:])
		} else {
			dst = digits.AppendHex(dst, r.Envelope)
		}
		dst = append(dst, '"')
	}
	if r.Pair != 0 {
		dst = append(dst, `,"pair":`...)
		dst = digits.AppendInt(dst, int64(r.Pair))
	}
	if r.HasLatency {
		dst = append(dst, `,"latency_ns":`...)
		dst = digits.AppendInt(dst, int64(r.Latency))
	}
	return append(dst, '}')
}

// appendDirTransport appends a record's keys from "dir" to "len", up to
// its value.
func appendDirTransport(dst []byte, d dissect.Dir, t Transport) []byte {
	dst = append(dst, `,"dir":`...)
	dst = termsafe.AppendJSONString(dst, d.String())
	dst = append(dst, `,"proto":"ulinkrpc","transport":`...)
	dst = termsafe.AppendJSONString(dst, t.String())
	return append(dst, `,"len":`...)
}

func appendRPC(dst []byte, p *RPC) []byte {
	dst = append(dst, `{"request_id":`...)
	if p.RequestID != nil {
		dst = digits.AppendUint(dst, uint64(*p.RequestID))
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"service_id":`...)
	dst = appendOptInt32(dst, p.ServiceID)
	dst = append(dst, `,"method_id":`...)
	dst = appendOptInt32(dst, p.MethodID)
	if p.Service == nil && p.Method == nil {
		dst = append(dst, `,"service":null,"method":null`...)
	} else {
		dst = append(dst, `,"service":`...)
		dst = appendOptString(dst, p.Service)
		dst = append(dst, `,"method":`...)
		dst = appendOptString(dst, p.Method)
	}
	if p.StatusCode == nil && p.Status == nil && p.Error == nil {
		dst = append(dst, `,"status_code":null,"status":null,"error":null`...)
	} else {
		dst = append(dst, `,"status_code":`...)
		if p.StatusCode != nil {
			dst = digits.AppendInt(dst, int64(*p.StatusCode))
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, `,"status":`...)
		dst = appendOptString(dst, p.Status)
		dst = append(dst, `,"error":`...)
		dst = appendOptString(dst, p.Error)
	}
	if p.ErrorRaw != nil {
		dst = append(dst, `,"error_hex":"`...)
		dst = digits.AppendHex(dst, p.ErrorRaw)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"ticks":`...)
	if p.Ticks != nil {
		dst = digits.AppendInt(dst, *p.Ticks)
	} else {
		dst = append(dst, "null"...)
	}
	return append(dst, '}')
}

func appendOptInt32(dst []byte, p *int32) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	return digits.AppendInt(dst, int64(*p))
}

func appendOptString(dst []byte, p *string) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	return termsafe.AppendJSONString(dst, *p)
}

// appendExactFields appends the field entries of envelope b, of a frame
// ulinkrpc.EnvelopeLayout read as e, as appendField appends those
// DecodeEnvelope lists (ulinkrpc.md 4: the same names, spans and values),
// without listing them; n is how many, payHex where the payload's hex
// starts in dst (-1 for none).
func appendExactFields(dst, b []byte, e *ulinkrpc.Envelope) (_ []byte, n, payHex int) {
	be := func(off int) uint32 {
		return uint32(b[off])<<24 | uint32(b[off+1])<<16 | uint32(b[off+2])<<8 | uint32(b[off+3])
	}
	// payload appends the length and payload fields at byte off.
	payload := func(dst []byte, off int) []byte {
		dst = append(dst, `,{"name":"length","bit":`...)
		dst = digits.AppendInt(dst, int64(8*off))
		dst = append(dst, `,"bits":32,"value":`...)
		dst = digits.AppendInt(dst, int64(len(e.Payload)))
		dst = append(dst, `},{"name":"payload","bit":`...)
		dst = digits.AppendInt(dst, int64(8*(off+4)))
		dst = append(dst, `,"bits":`...)
		dst = digits.AppendInt(dst, int64(8*len(e.Payload)))
		dst = append(dst, `,"value":"`...)
		payHex = len(dst)
		dst = digits.AppendHex(dst, e.Payload)
		return append(dst, `"}`...)
	}
	dst = append(dst, `{"name":"type","bit":0,"bits":8,"value":`...)
	dst = digits.AppendUint(dst, uint64(e.Type))
	dst = append(dst, '}')
	switch e.Type {
	case ulinkrpc.Request:
		dst = append(dst, `,{"name":"request_id","bit":8,"bits":32,"value":`...)
		dst = digits.AppendUint(dst, uint64(be(1)))
		dst = append(dst, `},{"name":"service_id","bit":40,"bits":32,"value":`...)
		dst = digits.AppendInt(dst, int64(int32(be(5))))
		dst = append(dst, `},{"name":"method_id","bit":72,"bits":32,"value":`...)
		dst = digits.AppendInt(dst, int64(int32(be(9))))
		dst = append(dst, '}')
		return payload(dst, 13), 6, payHex
	case ulinkrpc.Push:
		dst = append(dst, `,{"name":"service_id","bit":8,"bits":32,"value":`...)
		dst = digits.AppendInt(dst, int64(int32(be(1))))
		dst = append(dst, `},{"name":"method_id","bit":40,"bits":32,"value":`...)
		dst = digits.AppendInt(dst, int64(int32(be(5))))
		dst = append(dst, '}')
		return payload(dst, 9), 5, payHex
	case ulinkrpc.Response:
		dst = append(dst, `,{"name":"request_id","bit":8,"bits":32,"value":`...)
		dst = digits.AppendUint(dst, uint64(be(1)))
		dst = append(dst, `},{"name":"status","bit":40,"bits":8,"value":`...)
		dst = digits.AppendUint(dst, uint64(b[5]))
		dst = append(dst, '}')
		dst = payload(dst, 6)
		at := 10 + len(e.Payload) // has_error
		dst = append(dst, `,{"name":"has_error","bit":`...)
		dst = digits.AppendInt(dst, int64(8*at))
		dst = append(dst, `,"bits":8,"value":`...)
		dst = strconv.AppendBool(dst, e.HasError)
		dst = append(dst, '}')
		if !e.HasError {
			return dst, 6, payHex
		}
		// The error text ends the frame: appendField's string, from its
		// bytes.
		text := b[at+5:]
		dst = append(dst, `,{"name":"error_length","bit":`...)
		dst = digits.AppendInt(dst, int64(8*(at+1)))
		dst = append(dst, `,"bits":32,"value":`...)
		dst = digits.AppendInt(dst, int64(len(text)))
		dst = append(dst, `},{"name":"error"`...)
		dst = appendSpan(dst, 8*(at+5), 8*len(text))
		dst = termsafe.AppendJSONBytes(dst, text)
		if !e.ErrorUTF8 {
			dst = append(dst, `,"raw_hex":"`...)
			dst = digits.AppendHex(dst, text)
			dst = append(dst, '"')
		}
		return append(dst, '}'), 8, payHex
	}
	// KeepAlivePing, KeepAlivePong
	dst = append(dst, `,{"name":"ticks","bit":8,"bits":64,"value":`...)
	dst = digits.AppendInt(dst, e.Ticks)
	return append(dst, '}'), 2, payHex
}

// appendField appends an outputs.md field entry; a string that is not valid
// UTF-8 keeps its bytes in raw_hex.
func appendField(dst []byte, f *dissect.Field) []byte {
	dst = append(dst, `{"name":`...)
	dst = termsafe.AppendJSONString(dst, f.Name)
	dst = appendSpan(dst, f.Bit, f.Bits)
	dst = appendAny(dst, f.Value)
	if s, ok := f.Value.(string); ok && !utf8.ValidString(s) {
		dst = append(dst, `,"raw_hex":"`...)
		dst = digits.AppendHex(dst, []byte(s))
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

// appendAny appends a decoded value: numbers as numbers, strings exactly,
// byte blocks as lower-case hex, a JSON payload as its compacted text,
// MemoryPack objects (map[string]any, keys sorted) and lists as JSON, a
// non-finite float as its Go spelling (JSON has no NaN).
func appendAny(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case uint64:
		return digits.AppendUint(dst, x)
	case int64:
		return digits.AppendInt(dst, x)
	case int:
		return digits.AppendInt(dst, int64(x))
	case uint32:
		return digits.AppendUint(dst, uint64(x))
	case int32:
		return digits.AppendInt(dst, int64(x))
	case string:
		return termsafe.AppendJSONString(dst, x)
	case []byte:
		dst = append(dst, '"')
		dst = digits.AppendHex(dst, x)
		return append(dst, '"')
	case float64:
		return appendFloat(dst, x)
	case json.RawMessage:
		return appendRawJSON(dst, x)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = termsafe.AppendJSONString(dst, k)
			dst = append(dst, ':')
			dst = appendAny(dst, x[k])
		}
		return append(dst, '}')
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendAny(dst, e)
		}
		return append(dst, ']')
	}
	b, err := json.Marshal(v)
	if err != nil {
		return append(dst, "null"...)
	}
	return append(dst, termsafe.EscapeJSON(b)...)
}

// appendRawJSON appends JSON text as appendAny appends a json.RawMessage:
// compacted, or a string of its text when it is not valid JSON.
func appendRawJSON(dst, x []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, x) != nil {
		return termsafe.AppendJSONString(dst, string(x))
	}
	return append(dst, termsafe.EscapeJSON(buf.Bytes())...)
}

// appendSpan appends a field entry's keys after its name, up to its value.
func appendSpan(dst []byte, bit, bits int) []byte {
	dst = append(dst, `,"bit":`...)
	dst = digits.AppendInt(dst, int64(bit))
	dst = append(dst, `,"bits":`...)
	dst = digits.AppendInt(dst, int64(bits))
	return append(dst, `,"value":`...)
}

// appendSep appends the comma before a list's item when *n items came
// before it, and counts it.
func appendSep(dst []byte, n *int) []byte {
	if *n > 0 {
		dst = append(dst, ',')
	}
	*n++
	return dst
}

// appendFloat appends a float as encoding/json spells it, a non-finite
// one as its Go spelling in a string.
func appendFloat(dst []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return termsafe.AppendJSONString(dst, strconv.FormatFloat(x, 'g', -1, 64))
	}
	// encoding/json's floatEncoder, without its reflection and buffer:
	// like %g, with ES6's exponent cutoffs and no exponent padding.
	f := byte('f')
	if abs := math.Abs(x); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		f = 'e'
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, x, f, -1, 64)
	if f == 'e' {
		// e-09 to e-9
		if k := len(dst) - n; k >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// appendPayloadValue appends a payload's value as appendAny does: a JSON
// payload, valid JSON (DecodePayload's test), with no space to elide is
// its compacted text itself.
func appendPayloadValue(dst []byte, p *ulinkrpc.Payload) []byte {
	if raw, ok := p.Value.(json.RawMessage); ok && p.Encoding == ulinkrpc.EncodingJSON {
		return appendJSONValue(dst, raw)
	}
	return appendAny(dst, p.Value)
}

// appendJSONValue appends a JSON payload's value, raw, as
// appendPayloadValue appends it.
func appendJSONValue(dst, raw []byte) []byte {
	if !hasSpace(raw) {
		return append(dst, termsafe.EscapeJSON(raw)...)
	}
	return appendRawJSON(dst, raw)
}

// appendWalked is appendJSONValue of raw, a JSON payload walked by w
// (JSONWalk.WalkValid), which knows whether it holds space to elide and
// whether it is plain: a plain payload holds no byte termsafe rewrites
// (EscapeJSON), so without space it is its own value.
func appendWalked(dst, raw []byte, w *ulinkrpc.JSONWalk) []byte {
	switch {
	case w == nil:
		return appendJSONValue(dst, raw)
	case w.Spaced:
		return appendRawJSON(dst, raw)
	case w.Plain:
		return append(dst, raw...)
	}
	return append(dst, termsafe.EscapeJSON(raw)...)
}

// hasSpace reports whether b holds a byte of JSON's insignificant space.
func hasSpace(b []byte) bool {
	i := 0
	// Eight bytes at a time while none is at most ' ' (a byte of 0x80 or
	// more may look like one: that word is read byte by byte).
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if (w-0x2121212121212121)&^w&0x8080808080808080 != 0 && spaceIn(b[i:i+8]) {
			return true
		}
	}
	return spaceIn(b[i:])
}

// spaceIn is hasSpace byte by byte.
func spaceIn(b []byte) bool {
	for _, c := range b {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			return true
		}
	}
	return false
}

// appendMember appends the outputs.md field entry of member m of a JSON
// payload at byte off of the envelope, as appendField appends the field
// jsonFields makes of it: same name, span and value.
func appendMember(dst []byte, w *ulinkrpc.JSONWalk, m *ulinkrpc.JSONMember, off int) []byte {
	if w.Plain {
		// Its name and strings need no escape (JSONWalk.Plain): a
		// string's token is the JSON string of its text.
		dst = append(dst, `{"name":"`...)
		dst = append(dst, w.Name(m)...)
		dst = append(dst, '"')
	} else {
		dst = append(dst, `{"name":`...)
		dst = termsafe.AppendJSONBytes(dst, w.Name(m))
	}
	dst = appendSpan(dst, 8*(off+int(m.From)), 8*int(m.To-m.From))
	switch m.Kind {
	case ulinkrpc.JSONString:
		// Valid UTF-8 (DecodePayload's test): no raw_hex, as appendField
		// writes none for the string jsonFields unescapes.
		if w.Plain {
			dst = append(dst, w.Token(m)...)
		} else {
			dst = termsafe.AppendJSONBytes(dst, w.Text(m))
		}
	case ulinkrpc.JSONNumber:
		if m.Int {
			dst = append(dst, w.Token(m)...) // as AppendInt spells it
		} else if i, ok, f := w.Number(m); ok {
			dst = digits.AppendInt(dst, i)
		} else {
			dst = appendFloat(dst, f)
		}
	case ulinkrpc.JSONTrue:
		dst = append(dst, "true"...)
	case ulinkrpc.JSONFalse:
		dst = append(dst, "false"...)
	default:
		dst = append(dst, "null"...)
	}
	return append(dst, '}')
}

// appendEntry appends the outputs.md field entry of entry e of a
// MemoryPack payload at byte off of the envelope, as appendField appends
// the field MPObject.Fields makes of it: same name, span and value.
func appendEntry(dst []byte, w *ulinkrpc.MPWalk, e *ulinkrpc.MPEntry, off int) []byte {
	k, b := w.Kind(e)
	if k == ulinkrpc.MPOther {
		f := w.Field(e, off)
		return appendField(dst, &f)
	}
	// Its name is the walk's prefix, "payload" (appendBare), and indices:
	// plain, written as it is.
	dst = append(dst, `{"name":"`...)
	dst = append(dst, w.Name(e)...)
	dst = append(dst, '"')
	dst = appendSpan(dst, 8*(off+e.Off), 8*e.Len)
	switch k {
	case ulinkrpc.MPText:
		// Valid UTF-8 (a MemoryPack string's test): no raw_hex.
		dst = termsafe.AppendJSONBytes(dst, b)
	case ulinkrpc.MPInt:
		dst = digits.AppendInt(dst, w.Int(b))
	case ulinkrpc.MPBytes:
		dst = append(dst, '"')
		dst = digits.AppendHex(dst, b)
		dst = append(dst, '"')
	default:
		dst = append(dst, "null"...)
	}
	return append(dst, '}')
}

// appendNs appends a duration in nanoseconds.
func appendNs(dst []byte, d time.Duration) []byte { return digits.AppendInt(dst, int64(d)) }

// AppendValue appends a field value as AppendJSON writes it in a field's
// "value": for an exporter that keeps payload members as JSON text
// (usmnscope export's payload map).
func AppendValue(dst []byte, v any) []byte { return appendAny(dst, v) }
