package decode

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"sort"
	"time"
)

// The JSON encodings of outputs.md. Key names are the contract ("Keys named
// here keep their names and meaning"), so they are spelled out in struct
// tags here and nowhere else; lists are always arrays, never null.

// timeLayout is RFC 3339 with all nine nanosecond digits (outputs.md "time").
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

type jsonEnum struct {
	Value   uint32 `json:"value"`
	Bits    int    `json:"bits"`
	Widened bool   `json:"widened"`
}

type jsonField struct {
	Name  string `json:"name"`
	Bit   int    `json:"bit"`
	Bits  int    `json:"bits"`
	Value any    `json:"value"`
}

type jsonListener struct {
	Type     *string `json:"type"`
	Version  *uint32 `json:"version"`
	ClientID *uint32 `json:"client_id"`
	ServerID *uint32 `json:"server_id"`
	Resolved bool    `json:"resolved"`
}

type jsonFinding struct {
	Severity string `json:"severity"`
	Group    string `json:"group"`
	Text     string `json:"text"`
}

type jsonMessage struct {
	N           int           `json:"n"`
	Frame       int           `json:"frame"`
	Time        string        `json:"time"`
	Conn        string        `json:"conn"`
	Dir         string        `json:"dir"`
	Len         int           `json:"len"`
	Enum        jsonEnum      `json:"enum"`
	Msg         string        `json:"msg"`
	Summary     string        `json:"summary,omitempty"`
	Fields      []jsonField   `json:"fields"`
	Mode        string        `json:"mode,omitempty"`
	Listener    *jsonListener `json:"listener,omitempty"`
	PayloadBits *int          `json:"payload_bits,omitempty"`
	Expert      []jsonFinding `json:"expert"`
}

// jsonValue maps a span value to what outputs.md expects: numbers as JSON
// numbers, strings exactly as decoded, byte blocks as lower-case hex (raw
// bytes are not text), and non-finite floats, which JSON cannot hold, as
// their Go spelling.
func jsonValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return hex.EncodeToString(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return formatFloat(x)
		}
	case float32:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return formatFloat(f)
		}
	}
	return v
}

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

func jsonFindings(fs []Finding) []jsonFinding {
	out := make([]jsonFinding, len(fs))
	for i, f := range fs {
		out[i] = jsonFinding{Severity: f.Severity.String(), Group: f.Group.String(), Text: f.Text}
	}
	return out
}

// formatTime formats t as outputs.md "time".
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// MarshalJSON encodes the message as one outputs.md `dump --json` record.
// "mode" appears for NegotiateListenerDetails, "listener" for the two USMN
// messages and "payload_bits" for Invoke Message Listener. Fields are empty
// unless the message came with spans (Capture.Detail, DecodeOne).
func (m *Message) MarshalJSON() ([]byte, error) {
	j := jsonMessage{
		N:       m.N,
		Frame:   m.Frame,
		Time:    formatTime(m.Time),
		Conn:    m.Conn.String(),
		Dir:     m.Dir.String(),
		Len:     len(m.Data),
		Enum:    jsonEnum{Value: m.Enum.Value, Bits: m.Enum.Bits, Widened: m.Enum.Widened},
		Msg:     m.Name,
		Summary: m.Summary,
		Fields:  make([]jsonField, len(m.Fields)),
		Mode:    m.Mode,
		Expert:  jsonFindings(m.Findings),
	}
	for i, s := range m.Fields {
		j.Fields[i] = jsonField{Name: s.Name, Bit: s.Bit, Bits: s.Bits, Value: jsonValue(s.Value)}
	}
	if m.Listener != nil {
		l := m.Listener
		j.Listener = &jsonListener{Type: l.Type, Version: l.Version, ClientID: l.ClientID, ServerID: l.ServerID, Resolved: l.Resolved}
	}
	if m.Name == KindInvokeMessageListener.String() {
		pb := m.PayloadBits
		j.PayloadBits = &pb
	}
	return marshal(j)
}

// marshal encodes v without HTML escaping (wire strings stay readable) and
// without the encoder's trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return escapeTerminalJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// WriteJSON writes the message as one NDJSON line (outputs.md `dump --json`).
func (m *Message) WriteJSON(w io.Writer) error {
	b, err := m.MarshalJSON()
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
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
	Client          string            `json:"client"`
	Server          string            `json:"server"`
	USMN            jsonUSMN          `json:"usmn"`
	Messages        int               `json:"messages"`
	ServerListeners []jsonServerEntry `json:"server_listeners"`
	ClientListeners []jsonClientEntry `json:"client_listeners"`
	MissingOnServer []uint32          `json:"missing_on_server"`
	MissingOnClient []uint32          `json:"missing_on_client"`
	Unresolved      []jsonRef         `json:"unresolved"`
	Warnings        []jsonFinding     `json:"warnings"`
}

type jsonTables struct {
	Profile     string     `json:"profile"`
	Connections []jsonConn `json:"connections"`
}

// tablesJSON builds the outputs.md record of one connection. t may be nil
// (a connection that carried no USMN messages).
func tablesJSON(ci ConnInfo, t *Tables) jsonConn {
	j := jsonConn{
		Conn:            ci.Conn.String(),
		Client:          ci.Conn.Client.String(),
		Server:          ci.Conn.Server.String(),
		USMN:            jsonUSMN{Client: ci.USMNClient, Server: ci.USMNServer, Widened: ci.Widened[C2S] || ci.Widened[S2C]},
		Messages:        ci.Messages,
		ServerListeners: []jsonServerEntry{},
		ClientListeners: []jsonClientEntry{},
		MissingOnServer: []uint32{},
		MissingOnClient: []uint32{},
		Unresolved:      []jsonRef{},
		Warnings:        []jsonFinding{},
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
	return j
}

// WriteTablesJSON writes outputs.md's `tables --json` document: the
// listener-ID tables of every connection as of the end of what was read, in
// the order the connections were first seen, with the profile that decoded
// them.
func (c *Capture) WriteTablesJSON(w io.Writer) error {
	b, err := c.TablesJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// TablesJSON returns the `tables --json` document (see WriteTablesJSON),
// indented, ending in a newline.
func (c *Capture) TablesJSON() ([]byte, error) { return c.TablesJSONAt(0) }

// TablesJSONAt is TablesJSON with the tables as of message asOf (≤ 0: the
// end of what was read), for `usmnscope tables --at N --json`.
func (c *Capture) TablesJSONAt(asOf int) ([]byte, error) {
	doc := jsonTables{Profile: c.Profile().Name, Connections: []jsonConn{}}
	for _, ci := range c.Connections() {
		doc.Connections = append(doc.Connections, tablesJSON(ci, c.Tables(ci.Conn, asOf)))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return escapeTerminalJSON(buf.Bytes()), nil
}

// sortedIDs returns the keys of a set, sorted (outputs.md: lists are sorted
// by id).
func sortedIDs(m map[uint32]struct{}) []uint32 {
	out := make([]uint32, 0, len(m))
	for id := range m {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
