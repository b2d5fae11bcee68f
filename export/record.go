package export

import (
	"strings"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/session"
)

// Record is one message as outputs.md's Parquet columns have it. An Opt
// value is null when its OK is false: the message has no such value (an
// Unturned message has no service, a ULinkRPC one no listener). A hosted
// protocol's record fills the columns from its Meta and the facts it
// states (decode.Caller, decode.ValueWriter): export names no protocol
// but the host's own.
type Record struct {
	N, TimeNS, Frame int64
	Host, Capture    string
	Conn, Dir, Proto string
	Msg              string
	Len              int32

	Summary, Worst, Listener    Opt[string]
	ClientID, ServerID          Opt[int64]
	Service, Method, Status     Opt[string]
	ServiceID, MethodID         Opt[int32]
	RequestID, Pair, LatencyNS  Opt[int64]
	PayloadMessage, PayloadMeth Opt[string]

	// Payload holds the message's `payload.<name>` fields in wire order,
	// as its `dump --json` record lists them; Values, when not nil, writes
	// their values as their protocol does (a ULinkRPC record's), else they
	// are the host's (session.AppendValue).
	Payload []netpak.Span
	Values  decode.ValueWriter
	// Hex is the bytes outputs.md's "hex" spells: the message without its
	// frame header, or a hosted record's bytes (Meta.Data: a ULinkRPC
	// envelope; nil when unrecovered).
	Hex []byte

	// Several captures, a connection both ends captured: Sighted says the
	// record has "seen" (else seen and missing_in are null), Seen the
	// captures that have it, OneWayNS the receiver's time minus the
	// sender's, MissingIn the captures that lack it.
	Sighted   bool
	Seen      []Seen
	OneWayNS  Opt[int64]
	MissingIn []string
}

// Seen is one capture's sight of a record: outputs.md's "seen" entry.
type Seen struct {
	Capture string `parquet:"capture"`
	Host    string `parquet:"host"`
	Frame   int64  `parquet:"frame"`
	TimeNS  int64  `parquet:"time_ns"`
}

// Opt is a value that may be null.
type Opt[T any] struct {
	V  T
	OK bool
}

func some[T any](v T) Opt[T] { return Opt[T]{V: v, OK: true} }

// optPtr is p's value, or null for nil.
func optPtr[T, U any](p *T, conv func(T) U) Opt[U] {
	if p == nil {
		return Opt[U]{}
	}
	return some(conv(*p))
}

// Adapter turns session.Messages into Records; it keeps each connection's
// text from one record to the next.
type Adapter struct {
	Host, Capture string
	// Renumber, when not nil, maps a message number of the capture to
	// that of all the captures read together (n and pair).
	Renumber func(int64) int64
	conns    map[dissect.Conn]string
	payload  []netpak.Span
	seen     []Seen
}

// maxConns bounds the connection texts an Adapter keeps (a capture of
// many connections starts the cache anew, never grows it past this).
const maxConns = 4096

// Of fills r from m, the message as a JSONBatch hands it out (with its
// fields and summary: session.JSONBatch.Message). r's Payload aliases the
// adapter's storage until the next call.
func (a *Adapter) Of(r *Record, m *session.Message) {
	*r = Record{Host: a.Host, Capture: a.Capture, Payload: a.payload[:0]}
	if o := m.Origin; o != nil {
		// Several captures read as one: the record's own.
		r.Host, r.Capture = o.Host, o.Capture
	}
	defer a.renumber(r)
	a.sight(r, m.Sight)
	if rec := m.Rec; rec != nil {
		a.ofHosted(r, rec)
		a.payload = r.Payload
		return
	}
	r.N, r.Frame, r.TimeNS = int64(m.N), int64(m.Frame), m.Time.UnixNano()
	r.Conn, r.Dir, r.Proto = a.conn(m.Conn), m.Dir.String(), "unturned"
	r.Msg, r.Len = m.Name(), int32(len(m.Data))
	if m.Summary != "" {
		r.Summary = some(m.Summary)
	}
	if w, ok := m.Worst(); ok {
		r.Worst = some(w.String())
	}
	if l := m.Listener; l != nil {
		if l.Type != nil {
			r.Listener = some(*l.Type)
		}
		r.ClientID = optPtr(l.ClientID, u32to64)
		r.ServerID = optPtr(l.ServerID, u32to64)
	}
	if m.PayloadMessage != "" {
		r.PayloadMessage = some(m.PayloadMessage)
	}
	if m.PayloadMethod != "" {
		r.PayloadMeth = some(m.PayloadMethod)
	}
	if m.Pair != 0 {
		r.Pair = some(int64(m.Pair))
	}
	if m.HasLatency {
		r.LatencyNS = some(int64(m.Latency))
	}
	r.Payload = payloadFields(r.Payload, m.Fields)
	r.Hex = m.Data
	if r.Hex == nil {
		r.Hex = []byte{}
	}
	a.payload = r.Payload
}

// sight fills r's seen, one_way_ns and missing_in from s (nil: none);
// r's Seen aliases the adapter's storage until the next call.
func (a *Adapter) sight(r *Record, s *session.Sight) {
	if s == nil {
		return
	}
	r.Sighted = true
	a.seen = a.seen[:0]
	for _, e := range s.Seen {
		a.seen = append(a.seen, Seen{Capture: e.Capture, Host: e.Host, Frame: int64(e.Frame), TimeNS: e.TimeNS})
	}
	r.Seen = a.seen
	if s.HasOneWay {
		r.OneWayNS = some(s.OneWayNS)
	}
	r.MissingIn = s.MissingIn
	if r.MissingIn == nil {
		r.MissingIn = []string{}
	}
}

func (a *Adapter) renumber(r *Record) {
	if a.Renumber == nil {
		return
	}
	r.N = a.Renumber(r.N)
	if r.Pair.OK {
		r.Pair.V = a.Renumber(r.Pair.V)
	}
}

// ofHosted fills r from a hosted protocol's record: its Meta (with its
// fields, a lazy record's payload decoded) as its `dump --json` record
// has it, so with no summary; the call columns when it is a
// decode.Caller. worst is of the findings the record was numbered with
// (decode.BriefOf): those a lazy record's payload adds when decoded
// (Meta) have never counted here.
func (a *Adapter) ofHosted(r *Record, rec decode.Record) {
	m := rec.Meta()
	r.N, r.Frame, r.TimeNS = int64(m.N), int64(m.Frame), m.Time.UnixNano()
	r.Conn, r.Dir, r.Proto = a.conn(m.Conn), m.Dir.String(), m.Proto
	r.Msg, r.Len = m.Name, int32(m.Len)
	var worst dissect.Severity
	fs := decode.BriefOf(rec).Findings
	for i, f := range fs {
		if i == 0 || f.Severity > worst {
			worst = f.Severity
		}
	}
	if len(fs) > 0 {
		r.Worst = some(worst.String())
	}
	if c, ok := rec.(decode.Caller); ok {
		p := c.Call()
		r.Service = optPtr(p.Service, same[string])
		r.Method = optPtr(p.Method, same[string])
		r.Status = optPtr(p.Status, same[string])
		r.ServiceID = optPtr(p.ServiceID, same[int32])
		r.MethodID = optPtr(p.MethodID, same[int32])
		r.RequestID = optPtr(p.RequestID, u32to64)
	}
	if m.Pair != 0 {
		r.Pair = some(int64(m.Pair))
	}
	if m.HasLatency {
		r.LatencyNS = some(int64(m.Latency))
	}
	r.Payload = payloadFields(r.Payload, m.Fields)
	r.Values, _ = rec.(decode.ValueWriter)
	r.Hex = m.Data
}

func same[T any](v T) T      { return v }
func u32to64(v uint32) int64 { return int64(v) }

// payloadFields appends the fields of fs named payload.<name> (the
// payload's own members; "payload" alone is the undecoded block).
func payloadFields(dst, fs []netpak.Span) []netpak.Span {
	for i := range fs {
		if strings.HasPrefix(fs[i].Name, "payload.") {
			dst = append(dst, fs[i])
		}
	}
	return dst
}

// conn is c as outputs.md spells "conn", kept per connection.
func (a *Adapter) conn(c dissect.Conn) string {
	if s, ok := a.conns[c]; ok {
		return s
	}
	if a.conns == nil || len(a.conns) >= maxConns {
		a.conns = make(map[dissect.Conn]string)
	}
	s := c.String()
	a.conns[c] = s
	return s
}

// AppendValue appends a payload field's value as its record's JSON text.
func (r *Record) AppendValue(dst []byte, v any) []byte {
	if r.Values != nil {
		return r.Values.AppendValue(dst, v)
	}
	return session.AppendValue(dst, v)
}

// validUTF8 is s with each byte of invalid UTF-8 replaced by U+FFFD, as
// the JSON records spell it (termsafe.AppendJSONString): a Parquet STRING
// holds UTF-8.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
