package session

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/digits"
	"github.com/usmnscope/usmnscope/internal/jsontime"
	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// The JSON encodings of outputs.md. Key names are the contract ("Keys named
// here keep their names and meaning"), so they are spelled out here and
// nowhere else: the `dump --json` record key by key in appendJSON (written
// by hand: a million of them must take seconds, issue 7), the `tables
// --json` document in struct tags. Lists are always arrays, never null.

type jsonFinding struct {
	Severity string `json:"severity"`
	Group    string `json:"group"`
	Text     string `json:"text"`
}

// formatFloat spells a non-finite float, which JSON cannot hold, as Go does
// (a field value: outputs.md "value": any).
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	default:
		return "-Inf"
	}
}

func jsonFindings(fs []dissect.Finding) []jsonFinding {
	out := make([]jsonFinding, len(fs))
	for i, f := range fs {
		out[i] = jsonFinding{Severity: f.Severity.String(), Group: f.Group.String(), Text: f.Text}
	}
	return out
}

// AppendJSON appends the message as one outputs.md `dump --json` record
// (without a newline) to dst and returns the extended buffer. "mode"
// appears for NegotiateListenerDetails, "listener" for the two USMN
// messages and "payload_bits" for Invoke Message Listener; "hex" (the
// message bytes) always. Fields are empty
// unless the message came with spans (Index.Detail, DecodeOne).
//
// The record is written by hand, key by key, in the order and with the
// number and string spellings encoding/json gave it (without HTML
// escaping, plus the terminal escapes of escapeTerminalJSON), so that
// `dump --json` of a large capture spends its time decoding, not
// reflecting. A field value of a type the decoders never produce is
// handed to encoding/json; one it cannot encode is written as null
// (MarshalJSON and WriteJSON report it as an error instead).
func (m *Message) AppendJSON(dst []byte) []byte {
	dst, _ = m.appendJSON(dst, nil)
	return dst
}

// appendJSON is AppendJSON reporting a field value JSON cannot hold. conn,
// when not nil, is m.Conn already encoded (appendConn), which a caller
// encoding many messages of few connections keeps.
func (m *Message) appendJSON(dst, conn []byte) ([]byte, error) {
	if m.Rec != nil {
		// A hosted protocol's record, as its package writes it
		// (outputs.md "ULinkRPC records").
		return m.Rec.AppendJSON(dst, m.recOrigin()), nil
	}
	return m.appendJSONTime(dst, conn, nil)
}

// SetOrigin names the host and the capture the Index's messages were
// captured on and in: each `dump --json` record then has "host" and
// "capture" after "time_ns" (outputs.md "Several captures"). Call it
// before the feed.
func (c *Index) SetOrigin(host, capture string) {
	b := append([]byte(nil), `,"host":`...)
	b = termsafe.AppendJSONString(b, host)
	b = append(b, `,"capture":`...)
	b = termsafe.AppendJSONString(b, capture)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.origin = b
}

// appendJSONTime is appendJSON with rc, when not nil, spelling what
// records share (recordCache: a batch of records mostly shares its
// seconds, names and keys).
func (m *Message) appendJSONTime(dst, conn []byte, rc *recordCache) ([]byte, error) {
	dst = m.appendJSONHead(dst, conn, rc)
	if m.Summary != "" {
		dst = append(dst, `,"summary":`...)
		dst = termsafe.AppendJSONString(dst, m.Summary)
	}
	dst, err := m.appendFields(dst, rc)
	return m.appendJSONTail(dst, rc), err
}

// appendJSONHead appends the record of m up to its "msg", which its
// "summary" follows (appendJSONTime).
func (m *Message) appendJSONHead(dst, conn []byte, rc *recordCache) []byte {
	return m.appendJSONKind(m.appendJSONStart(dst, conn, rc), rc)
}

// appendJSONStart appends the record of m up to its "conn"
// (appendJSONHead).
func (m *Message) appendJSONStart(dst, conn []byte, rc *recordCache) []byte {
	dst = append(dst, `{"n":`...)
	dst = digits.AppendInt(dst, int64(m.N))
	dst = append(dst, `,"frame":`...)
	dst = digits.AppendInt(dst, int64(m.Frame))
	if rc != nil {
		dst = rc.appendTime(dst, m.Time)
	} else {
		dst = append(dst, `,"time":"`...)
		dst = jsontime.Append(dst, m.Time)
		dst = append(dst, '"')
		dst = jsontime.AppendNS(dst, m.Time)
	}
	dst = append(dst, m.origin...)
	dst = appendSight(dst, m.Sight)
	dst = append(dst, `,"conn":`...)
	if conn != nil {
		dst = append(dst, conn...)
	} else {
		dst = appendConn(dst, m.Conn)
	}
	return dst
}

// appendJSONKind appends the record of m from its "dir" to its "msg"
// (appendJSONHead): what its bytes, its direction and its decoding's
// enum and kind make.
func (m *Message) appendJSONKind(dst []byte, rc *recordCache) []byte {
	if rc != nil {
		dst = rc.appendDir(dst, m.Dir)
	} else {
		dst = append(dst, `,"dir":`...)
		dst = termsafe.AppendJSONString(dst, m.Dir.String())
	}
	dst = append(dst, `,"proto":"unturned","len":`...)
	dst = digits.AppendInt(dst, int64(len(m.Data)))
	dst = appendHex(dst, m.Data)
	dst = append(dst, `,"enum":{"value":`...)
	dst = digits.AppendInt(dst, int64(m.Enum.Value))
	dst = append(dst, `,"bits":`...)
	dst = digits.AppendInt(dst, int64(m.Enum.Bits))
	dst = append(dst, `,"widened":`...)
	dst = strconv.AppendBool(dst, m.Enum.Widened)
	if rc != nil && m.Rec == nil {
		return rc.appendKind(dst, m.Kind)
	}
	dst = append(dst, `},"msg":`...)
	return termsafe.AppendJSONString(dst, m.Name())
}

// appendFields appends the "fields" key of m's record (appendJSONTime),
// reporting a value JSON cannot hold.
func (m *Message) appendFields(dst []byte, rc *recordCache) ([]byte, error) {
	var err error
	dst = append(dst, `,"fields":[`...)
	for i := range m.Fields {
		s := &m.Fields[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		if rc != nil {
			dst = rc.appendName(dst, s.Name)
		} else {
			dst = append(dst, `{"name":`...)
			dst = termsafe.AppendJSONString(dst, s.Name)
			dst = append(dst, `,"bit":`...)
		}
		dst = digits.AppendInt(dst, int64(s.Bit))
		dst = append(dst, `,"bits":`...)
		dst = digits.AppendInt(dst, int64(s.Bits))
		dst = append(dst, `,"value":`...)
		var verr error
		if dst, verr = appendValue(dst, s.Value); verr != nil && err == nil {
			err = verr
		}
		if v, ok := s.Value.(string); ok {
			dst = termsafe.AppendHexIfInvalid(dst, "raw_hex", v)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), err
}

// appendJSONTail appends the record of m after its "fields"
// (appendJSONTime).
func (m *Message) appendJSONTail(dst []byte, rc *recordCache) []byte {
	if mode := m.ModeName(); mode != "" {
		dst = append(dst, `,"mode":`...)
		dst = termsafe.AppendJSONString(dst, mode)
	}
	if l := m.Listener; l != nil {
		dst = append(dst, `,"listener":{"type":`...)
		switch {
		case l.Type != nil && rc != nil:
			dst = append(dst, rc.typeOf(*l.Type).json...)
		case l.Type != nil:
			dst = termsafe.AppendJSONString(dst, *l.Type)
			dst = termsafe.AppendHexIfInvalid(dst, "type_hex", *l.Type)
		default:
			dst = append(dst, "null"...)
		}
		dst = append(dst, `,"version":`...)
		dst = appendOptUint(dst, l.Version)
		dst = append(dst, `,"client_id":`...)
		dst = appendOptUint(dst, l.ClientID)
		dst = append(dst, `,"server_id":`...)
		dst = appendOptUint(dst, l.ServerID)
		dst = append(dst, `,"resolved":`...)
		dst = strconv.AppendBool(dst, l.Resolved)
		dst = append(dst, '}')
	}
	if m.Invokes() {
		dst = append(dst, `,"payload_bits":`...)
		dst = digits.AppendInt(dst, int64(m.PayloadBits))
	}
	if m.PayloadMessage != "" {
		dst = append(dst, `,"payload_message":`...)
		dst = termsafe.AppendJSONString(dst, m.PayloadMessage)
	}
	if m.PayloadMethod != "" {
		dst = append(dst, `,"payload_method":`...)
		dst = termsafe.AppendJSONString(dst, m.PayloadMethod)
	}
	dst = append(dst, `,"expert":[`...)
	for i := range m.Findings {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = m.Findings[i].AppendJSON(dst)
	}
	dst = append(dst, ']')
	// After the findings, as the ULinkRPC records place them (rpc.AppendJSON).
	if m.Pair != 0 {
		dst = append(dst, `,"pair":`...)
		dst = digits.AppendInt(dst, int64(m.Pair))
	}
	if m.HasLatency {
		dst = append(dst, `,"latency_ns":`...)
		dst = digits.AppendInt(dst, int64(m.Latency))
	}
	return append(dst, '}')
}

// MarshalJSON encodes the message as one outputs.md `dump --json` record
// (see AppendJSON).
func (m *Message) MarshalJSON() ([]byte, error) {
	return m.appendJSON(nil, nil)
}

// WriteJSON writes the message as one NDJSON line (outputs.md `dump --json`).
func (m *Message) WriteJSON(w io.Writer) error {
	b, err := m.appendJSON(make([]byte, 0, 1024), nil)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// marshal encodes v without HTML escaping (wire strings stay readable) and
// without the encoder's trailing newline: a field value of a type
// appendValue does not spell itself.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return termsafe.EscapeJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

type jsonUSMN struct {
	Client  bool `json:"client"`
	Server  bool `json:"server"`
	Widened bool `json:"widened"`
}

type jsonServerEntry struct {
	ID          uint32 `json:"id"`
	Type        string `json:"type"`
	Version     uint32 `json:"version"`
	IDBits      int    `json:"id_bits"`
	Learned     string `json:"learned"`
	First       int    `json:"first"`
	Invokes     int    `json:"invokes"`
	PayloadBits int    `json:"payload_bits"`
}

type jsonClientEntry struct {
	ID          uint32  `json:"id"`
	Type        string  `json:"type"`
	Version     uint32  `json:"version"`
	ServerID    *uint32 `json:"server_id"`
	Learned     string  `json:"learned"`
	First       int     `json:"first"`
	Invokes     int     `json:"invokes"`
	PayloadBits int     `json:"payload_bits"`
}

type jsonRef struct {
	N   int    `json:"n"`
	Dir string `json:"dir"`
	ID  uint32 `json:"id"`
}

type jsonConn struct {
	Conn            string            `json:"conn"`
	Host            string            `json:"host,omitempty"`    // several captures
	Capture         string            `json:"capture,omitempty"` // several captures
	Client          string            `json:"client"`
	Server          string            `json:"server"`
	Proto           string            `json:"proto"` // outputs.md: every connection has it
	USMN            jsonUSMN          `json:"usmn"`
	Messages        int               `json:"messages"`
	ServerListeners []jsonServerEntry `json:"server_listeners"`
	ClientListeners []jsonClientEntry `json:"client_listeners"`
	MissingOnServer []uint32          `json:"missing_on_server"`
	MissingOnClient []uint32          `json:"missing_on_client"`
	Unresolved      []jsonRef         `json:"unresolved"`
	Warnings        []jsonFinding     `json:"warnings"`
	Ping            *jsonPing         `json:"ping,omitempty"`
	// Findings are the connection-level findings (outputs.md: every
	// connection has them): gaps, resynchronisation, inference notes.
	Findings []jsonFinding `json:"findings"`
}

// jsonPing is outputs.md's `"ping": {"c2s": STATS, "s2c": STATS}`.
type jsonPing struct {
	C2S jsonPingStats `json:"c2s"`
	S2C jsonPingStats `json:"s2c"`
}

type jsonPingStats struct {
	Requests int          `json:"requests"`
	Answered int          `json:"answered"`
	RTT      *jsonLatency `json:"rtt_ns"`
}

// jsonLatency is a `{"min", "median", "max"}` object in nanoseconds, with
// the keys outputs.md adds to every latency object (issue 26) after them.
type jsonLatency struct {
	Min    int64 `json:"min"`
	Median int64 `json:"median"`
	Max    int64 `json:"max"`
	P90    int64 `json:"p90"`
	P95    int64 `json:"p95"`
	P99    int64 `json:"p99"`
	Mean   int64 `json:"mean"`
	Count  int   `json:"count"`
	Jitter int64 `json:"jitter"`
}

func pingJSON(s PingStats) jsonPingStats {
	j := jsonPingStats{Requests: s.Requests, Answered: s.Answered}
	if s.RTT.OK {
		x := &s.RTT.Summary
		j.RTT = &jsonLatency{Min: int64(s.RTT.Min), Median: int64(s.RTT.Median), Max: int64(s.RTT.Max),
			P90: int64(x.P90), P95: int64(x.P95), P99: int64(x.P99), Mean: int64(x.Mean), Count: x.Count, Jitter: int64(x.Jitter)}
	}
	return j
}

type jsonTables struct {
	Profile string `json:"profile"`
	// Connections are jsonConn, or a ULinkRPC connection's entry as
	// package rpc writes it (json.RawMessage).
	Connections []any `json:"connections"`
	// Clocks are the captures' clocks, several captures only.
	Clocks []Clock `json:"clocks,omitempty"`
	// Findings are the capture-level findings (outputs.md: profile
	// hints); left out when there are none.
	Findings []jsonFinding `json:"findings,omitempty"`
}

// tablesJSON builds the outputs.md record of one connection. t may be nil
// (a connection that carried no USMN messages).
func tablesJSON(ci ConnInfo, t *Tables) jsonConn {
	j := jsonConn{
		Conn:            ci.Conn.String(),
		Host:            ci.Host,
		Capture:         ci.Capture,
		Client:          ci.Conn.Client.String(),
		Server:          ci.Conn.Server.String(),
		Proto:           "unturned",
		USMN:            jsonUSMN{Client: ci.USMNClient, Server: ci.USMNServer, Widened: ci.Widened[dissect.C2S] || ci.Widened[dissect.S2C]},
		Messages:        ci.Messages,
		ServerListeners: []jsonServerEntry{},
		ClientListeners: []jsonClientEntry{},
		MissingOnServer: []uint32{},
		MissingOnClient: []uint32{},
		Unresolved:      []jsonRef{},
		Warnings:        []jsonFinding{},
		Findings:        make([]jsonFinding, 0, len(ci.Findings)),
	}
	for _, f := range ci.Findings {
		j.Findings = append(j.Findings, jsonFinding{Severity: f.Severity.String(), Group: f.Group.String(), Text: f.Text})
	}
	if t == nil {
		return j
	}
	j.Messages = t.Messages
	for _, e := range t.Server {
		j.ServerListeners = append(j.ServerListeners, jsonServerEntry{
			ID: e.ID, Type: e.Type, Version: e.Version, IDBits: e.IDBits,
			Learned: e.Learned.String(), First: e.First, Invokes: e.Invokes, PayloadBits: e.PayloadBits,
		})
	}
	for _, e := range t.Client {
		je := jsonClientEntry{
			ID: e.ID, Type: e.Type, Version: e.Version,
			Learned: e.Learned.String(), First: e.First, Invokes: e.Invokes, PayloadBits: e.PayloadBits,
		}
		if e.Mapped {
			sid := e.ServerID
			je.ServerID = &sid
		}
		j.ClientListeners = append(j.ClientListeners, je)
	}
	j.MissingOnServer = append(j.MissingOnServer, t.MissingOnServer...)
	j.MissingOnClient = append(j.MissingOnClient, t.MissingOnClient...)
	for _, r := range t.Unresolved {
		j.Unresolved = append(j.Unresolved, jsonRef{N: r.N, Dir: r.Dir.String(), ID: r.ID})
	}
	j.Warnings = jsonFindings(t.Warnings)
	if t.ProtoTable == nil {
		j.Ping = &jsonPing{C2S: pingJSON(t.Ping[dissect.C2S]), S2C: pingJSON(t.Ping[dissect.S2C])}
	}
	return j
}

// WriteTablesJSON writes outputs.md's `tables --json` document: the
// listener-ID tables of every connection as of the end of what was read, in
// the order the connections were first seen, with the profile that decoded
// them.
func (c *Index) WriteTablesJSON(w io.Writer) error {
	b, err := c.TablesJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// TablesJSON returns the `tables --json` document (see WriteTablesJSON),
// indented, ending in a newline.
func (c *Index) TablesJSON() ([]byte, error) { return c.TablesJSONAt(0) }

// TablesJSONAt is TablesJSON with the tables as of message asOf (≤ 0: the
// end of what was read), for `usmnscope tables --at N --json`.
func (c *Index) TablesJSONAt(asOf int) ([]byte, error) {
	doc := jsonTables{Profile: c.Profile().Name, Connections: []any{}}
	for i, ci := range c.Connections() {
		if ci.Proto != "" {
			if raw, ok := c.hostedConnJSON(i, asOf); ok {
				doc.Connections = append(doc.Connections, connOriginJSON(raw, ci))
				continue
			}
		}
		doc.Connections = append(doc.Connections, tablesJSON(ci, c.Tables(ci.Conn, asOf)))
	}
	if c.multi != nil {
		doc.Clocks = c.multi.clocks
	}
	if fs := c.Findings(); len(fs) > 0 {
		doc.Findings = jsonFindings(fs)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return termsafe.EscapeJSON(indentJSON(make([]byte, 0, buf.Len()*2), buf.Bytes(), "  ")), nil
}

// indentJSON appends src, compact JSON as encoding/json writes it (no
// space outside strings but a final newline), indented as json.Indent
// would with no prefix. json.Indent runs its full validating scanner over
// every byte, which was a quarter of `tables --at 1000` on a 200k-message
// capture (issue 18); the encoder's output needs only its strings found.
func indentJSON(dst, src []byte, indent string) []byte {
	depth, open := 0, false // open: after { or [, the indent waits to see if it is empty
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			newline()
		}
		switch c {
		case '"':
			// Copy the string through its closing quote; a backslash
			// escapes the byte after it.
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			open = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if open {
				open = false
			} else {
				depth--
				newline()
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
