package session

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/unturned"
)

// SetSchemas sets the payload schemas (schema.md) messages are decoded
// with when they are shown: the payload of a USMN invoke whose listener
// (type, version) has a schema, and the parameters of a vanilla
// InvokeMethod whose index has one. Nothing is decoded at feed time, so a
// reference that replay resolves later is decoded with its listener's
// schema whenever it is shown. A nil set (the default) leaves every
// message as it was.
func (c *Index) SetSchemas(s *schema.Set) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.schemas = s
}

// SetLateSchemas says whether a reference that was unresolved when it was
// decoded has its payload decoded with the schema of the listener the
// tables have resolved its ID to by the time it is shown (the default).
// A consumer that shows each message once, while the capture is still
// being read (dump), turns it off: what it prints must not depend on how
// far the feed got, and the record's listener stays unresolved too
// (outputs.md "listener").
func (c *Index) SetLateSchemas(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noLate = !on
}

// Schemas returns the schemas set with SetSchemas, or nil.
func (c *Index) Schemas() *schema.Set {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.schemas
}

// payloadKind reports the kinds a schema may decode the payload of.
func payloadKind(k unturned.Kind) bool {
	return k == unturned.KindInvokeMessageListener || k == unturned.KindServerInvokeMethod || k == unturned.KindClientInvokeMethod
}

// maxSummaryValues and maxSummaryValue bound the payload values a row
// summary shows (`Chat.Say "hello" …`).
const (
	maxSummaryValues = 3
	maxSummaryValue  = 40
)

// decodePayload decodes m's payload with the schemas, when one applies,
// after the header fields: the schema's fields go to m.Payload and, when
// spans were asked for, replace the undecoded "payload" (USMN invoke) or
// "parameters" (vanilla InvokeMethod) span at the end of m.Fields. Its
// findings (schema.md section 3) and a version note are appended to
// m.Findings. Called with the read lock held.
func decodePayload(set *schema.Set, m *Message, d *unturned.Decoded, p *unturned.Profile, cn *connection, sc *payloadScratch) {
	// cn nil: no late resolution (SetLateSchemas).
	if set == nil || len(m.Data) == 0 {
		return
	}
	if sc == nil {
		sc = &payloadScratch{}
	}
	r := &sc.r
	r.Reset(m.Data)
	var res schema.Result
	var title string
	raw := ""
	switch d.Kind {
	case unturned.KindInvokeMessageListener:
		typ, version, ok := listenerOf(m.Listener, cn)
		if !ok || d.PayloadBit <= 0 {
			return
		}
		sl, notes := set.Listener(typ, version)
		m.Findings = append(m.Findings, notes...)
		if sl == nil {
			return
		}
		r.Seek(d.PayloadBit)
		res = sl.DecodeBuf(m.Dir, r, sc.fields)
		title, raw = sl.Name(), "payload"
	case unturned.KindServerInvokeMethod, unturned.KindClientInvokeMethod:
		at, n := d.Enum.Bits, p.MethodBits(m.Dir)
		if at+n > 8*len(m.Data) {
			return
		}
		me := set.VanillaMethod(m.Dir, int(d.Vanilla.Value))
		if me == nil {
			return
		}
		r.Seek(at + n)
		res = me.DecodeBuf(r, at, sc.fields)
		title, raw = "", "parameters"
	default:
		return
	}
	m.PayloadMessage, m.PayloadMethod = res.Message, res.Method
	m.Payload, sc.fields = res.Fields, res.Fields
	if m.Payload == nil {
		m.Payload = []netpak.Span{}
	}
	m.Findings = append(m.Findings, res.Findings...)
	if m.Fields != nil {
		if k := len(m.Fields) - 1; k >= 0 && m.Fields[k].Name == raw && m.Fields[k].Value == nil {
			m.Fields = m.Fields[:k]
		}
		m.Fields = append(m.Fields, res.Fields...)
	}
	m.payloadTitle = payloadTitle(title, res)
}

// payloadScratch is what decodePayload reuses from message to message
// (AppendJSONRange): the reader and the payload fields.
type payloadScratch struct {
	r      netpak.Reader
	fields []netpak.Span
}

// listenerOf is the listener type and version of an invoke: as its record
// knew it, or else, for a reference unresolved when it was decoded, as the
// connection's tables know its ID now that replay may have resolved it
// (wire.md 4.5): the payload is decoded when the message is shown.
func listenerOf(l *unturned.Listener, cn *connection) (string, uint32, bool) {
	if l == nil {
		return "", 0, false
	}
	if l.Type != nil && l.Version != nil {
		return *l.Type, *l.Version, true
	}
	if cn == nil || cn.tables == nil {
		return "", 0, false
	}
	if l.ServerID != nil {
		if e, ok := cn.tables.server.get(*l.ServerID); ok {
			return e.Type, e.Version, true
		}
	}
	if l.ClientID != nil {
		if e, ok := cn.tables.client.get(*l.ClientID); ok {
			return e.Type, e.Version, true
		}
	}
	return "", 0, false
}

// payloadTitle is the name a row summary starts with: `Chat.Say` for a
// listener message, `Chat.InvokeMethod.ReceiveEmote` for its RPC, the
// method name for a vanilla InvokeMethod.
func payloadTitle(listener string, res schema.Result) string {
	t := listener
	for _, s := range [2]string{res.Message, res.Method} {
		switch {
		case s == "":
		case t == "":
			t = s
		default:
			t += "." + s
		}
	}
	return t
}

// hasPayloadSummary reports whether payloadSummary changes m's summary:
// whether a schema named or decoded its payload.
func (m *Message) hasPayloadSummary() bool { return m.payloadTitle != "" || m.Payload != nil }

// payloadSummary prefixes a summary with the payload's name and its first
// values, escaped for a terminal: `Chat.Say "hello" · srv#0 …`. It is
// written into one buffer: dump --json writes one per message.
func payloadSummary(m *Message, summary string) string {
	if !m.hasPayloadSummary() {
		return summary
	}
	var buf [256]byte
	b := append(buf[:0], m.payloadTitle...)
	shown := 0
	for _, f := range m.Payload {
		switch f.Name {
		case "payload.message", "payload.method", "payload.instance":
			continue
		}
		if strings.Count(f.Name, ".") > 1 || strings.IndexByte(f.Name, '[') >= 0 {
			continue // inside a struct or list: the summary shows the top level
		}
		if shown == maxSummaryValues {
			b = append(b, " …"...)
			break
		}
		if len(b) > 0 {
			b = append(b, ' ')
		}
		at := len(b)
		b = appendSummaryValue(b, f.Value)
		if seg := b[at:]; utf8.RuneCount(seg) > maxSummaryValue {
			cut, runes := 0, 0
			for runes < maxSummaryValue-1 {
				_, size := utf8.DecodeRune(seg[cut:])
				cut += size
				runes++
			}
			b = append(b[:at+cut], "…"...)
		}
		shown++
	}
	if len(b) == 0 {
		return summary
	}
	b = append(b, " · "...)
	b = append(b, summary...)
	return string(b)
}

// appendSummaryValue appends a value as the text outputs show it
// (dissect.FormatValue), without fmt for the common kinds.
func appendSummaryValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		b = append(b, '"')
		b = append(b, termsafe.Escape(x)...)
		return append(b, '"')
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case bool:
		return strconv.AppendBool(b, x)
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	}
	return append(b, dissect.FormatValue(v, dissect.TextValues)...)
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

// lateConn is cn when late resolution is on (SetLateSchemas), else nil.
func (c *Index) lateConn(cn *connection) *connection {
	if c.noLate {
		return nil
	}
	return cn
}
