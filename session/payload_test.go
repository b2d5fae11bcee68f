package session

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/schema"
)

// fixtureSchemas is every schema of fixtures/schemas.
func fixtureSchemas(t testing.TB) *schema.Set {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "fixtures", "schemas", "*.toml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture schemas: %v", err)
	}
	var files []*schema.File
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := schema.Parse(filepath.Base(p), b)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	set, err := schema.NewSet(files...)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

const schemaFixture = "../fixtures/captures/usmn-schemas.pcapng"

// TestPayloadDecode: with the fixture schemas, every invoke of a listener
// with a schema and every vanilla InvokeMethod with one decodes into
// payload fields after the header fields, inside the message, the same in
// Message, Detail and AppendJSONRange (in memory and from the file); the
// undecoded "payload" span is replaced by them.
func TestPayloadDecode(t *testing.T) {
	set := fixtureSchemas(t)
	for _, store := range []bool{false, true} {
		c := readFixtureStore(t, schemaFixture, store)
		c.SetSchemas(set)
		var want []byte
		decoded := 0
		for n := 1; n <= c.Len(); n++ {
			d, m := c.Detail(n), c.Message(n)
			want = append(d.AppendJSON(want), '\n')
			if d.PayloadMessage != m.PayloadMessage || d.PayloadMethod != m.PayloadMethod || d.Summary != m.Summary ||
				!reflect.DeepEqual(d.Payload, m.Payload) || !reflect.DeepEqual(d.Findings, m.Findings) {
				t.Errorf("n=%d: Detail and Message disagree: %q/%q %q vs %q/%q %q", n, d.PayloadMessage, d.PayloadMethod, d.Summary, m.PayloadMessage, m.PayloadMethod, m.Summary)
			}
			if d.Payload == nil {
				for _, f := range d.Fields {
					if strings.HasPrefix(f.Name, "payload.") {
						t.Errorf("n=%d: %s without a schema decode", n, f.Name)
					}
				}
				continue
			}
			decoded++
			k := len(d.Fields) - len(d.Payload)
			if k < 0 || !reflect.DeepEqual(d.Fields[k:], d.Payload) {
				t.Fatalf("n=%d: the payload fields are not the last fields", n)
			}
			for i, f := range d.Fields {
				if i < k && (f.Name == "payload" || f.Name == "parameters" || strings.HasPrefix(f.Name, "payload.")) {
					t.Errorf("n=%d: %s before the payload fields", n, f.Name)
				}
				if f.Bit < 0 || f.End() > 8*len(d.Data) {
					t.Errorf("n=%d: %s at %d+%d outside %d bytes", n, f.Name, f.Bit, f.Bits, len(d.Data))
				}
			}
		}
		if got := c.AppendJSONRange(nil, 1, c.Len(), nil); !bytes.Equal(got, want) {
			t.Fatalf("store %v: AppendJSONRange differs from Detail(n).AppendJSON:\n%s\nwant\n%s", store, got, want)
		}
		if decoded < 25 {
			t.Errorf("store %v: %d payloads decoded; want every one with a schema (≥ 25)", store, decoded)
		}
	}
}

// TestPayloadFindingsAndNames: the schema.md findings reach the message,
// the names reach the record, a reference resolved only later is decoded
// with its listener's schema, and a listener without a schema or outside
// `versions` keeps its undecoded payload.
func TestPayloadFindingsAndNames(t *testing.T) {
	c := readFixture(t, schemaFixture)
	c.SetSchemas(fixtureSchemas(t))
	find := func(pred func(m *Message) bool) *Message {
		t.Helper()
		for n := 1; n <= c.Len(); n++ {
			if m := c.Detail(n); pred(m) {
				return m
			}
		}
		t.Fatal("no such message")
		return nil
	}
	has := func(m *Message, sev dissect.Severity, text string) bool {
		for _, f := range m.Findings {
			if f.Severity == sev && strings.Contains(f.Text, text) {
				return true
			}
		}
		return false
	}
	short := find(func(m *Message) bool { return m.PayloadMessage == "Say" && has(m, dissect.Error, "need") })
	if !has(short, dissect.Error, "schema Chat.Say: text: need") {
		t.Errorf("too-short Say: findings %v", short.Findings)
	}
	extra := find(func(m *Message) bool { return has(m, dissect.Warn, "extra bits after the last field") })
	if extra.PayloadMessage != "Clear" {
		t.Errorf("extra bits on %q; want Map Clear", extra.PayloadMessage)
	}
	unknown := find(func(m *Message) bool { return strings.HasPrefix(m.PayloadMessage, "Unknown(") })
	if !has(unknown, dissect.Warn, "message value 3 is not in the schema") {
		t.Errorf("unknown message value: findings %v", unknown.Findings)
	}
	radio := find(func(m *Message) bool {
		return has(m, dissect.Note, "version 2 has no schema; the schema covers versions 1")
	})
	if radio.Payload != nil || radio.Fields[len(radio.Fields)-1].Name != "payload" {
		t.Errorf("uncovered version: payload decoded anyway (%v)", radio.Payload)
	}
	late := find(func(m *Message) bool { return m.Listener != nil && !m.Listener.Resolved && m.Listener.Type == nil })
	if late.PayloadMessage != "Marker" || !strings.HasPrefix(late.Summary, `Map.Marker 1`) {
		t.Errorf("reference resolved later: payload %q, summary %q; want Map.Marker", late.PayloadMessage, late.Summary)
	}
	rpc := find(func(m *Message) bool { return m.PayloadMethod == "ReceiveKillFeed" })
	if rpc.PayloadMessage != "InvokeMethod" || !bytes.Contains(rpc.AppendJSON(nil), []byte(`"payload_message":"InvokeMethod","payload_method":"ReceiveKillFeed"`)) {
		t.Errorf("RPC record: %s", rpc.AppendJSON(nil))
	}
	vanilla := find(func(m *Message) bool { return m.PayloadMethod == "ReceiveChatEntry" })
	if j := vanilla.AppendJSON(nil); bytes.Contains(j, []byte(`payload_message`)) || !bytes.Contains(j, []byte(`{"name":"payload.text","bit":`)) {
		t.Errorf("vanilla InvokeMethod record: %s", j)
	}
}

// TestPayloadNoSchemas: without schemas (nil, or none matching) every
// record is what it was.
func TestPayloadNoSchemas(t *testing.T) {
	for _, path := range []string{schemaFixture, "../fixtures/captures/usmn-basic.pcapng"} {
		plain := readFixture(t, path)
		with := readFixture(t, path)
		with.SetSchemas(nil)
		empty, err := schema.NewSet()
		if err != nil {
			t.Fatal(err)
		}
		none := readFixture(t, path)
		none.SetSchemas(empty)
		a := plain.AppendJSONRange(nil, 1, plain.Len(), nil)
		for _, c := range []*Index{with, none} {
			if b := c.AppendJSONRange(nil, 1, c.Len(), nil); !bytes.Equal(a, b) {
				t.Errorf("%s: records differ without schemas", path)
			}
		}
	}
}

// TestAppendSchemaValue: the schema values are spelled as encoding/json
// (with the terminal escapes) spells them.
func TestAppendSchemaValue(t *testing.T) {
	for _, v := range []any{
		schema.Vec3{X: 1.5, Y: -0, Z: 1e-7}, schema.Vec3{X: math.NaN(), Y: math.Inf(1), Z: 3},
		schema.Quat{X: 0, Y: 0.7071067811865476, Z: 0, W: 0.7071067811865475},
		schema.RGBA{R: 255, G: 0, B: 7, A: 128},
		schema.TransformRef{NetID: 5, Path: "Root/\x1b[2J\u202e\"<&>\xff"},
	} {
		want, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendValue(nil, v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("appendValue(%#v) = %s, %v; want %s", v, got, err, want)
		}
	}
}

// TestPayloadHead: with schemas, a message's Head counts its payload
// findings, so that a HeadOnly severity filter sees them.
func TestPayloadHead(t *testing.T) {
	c := readFixture(t, schemaFixture)
	c.SetSchemas(fixtureSchemas(t))
	for n := 1; n <= c.Len(); n++ {
		h, _ := c.Head(n)
		w, ok := c.Detail(n).Worst()
		if h.HasFinding != ok || (ok && h.Worst != w) {
			t.Errorf("n=%d: Head worst %v %v; Detail worst %v %v", n, h.Worst, h.HasFinding, w, ok)
		}
	}
}

// TestPayloadNoLate: with SetLateSchemas(false) a reference unresolved when
// decoded keeps its undecoded payload, whatever the tables learned since.
func TestPayloadNoLate(t *testing.T) {
	c := readFixture(t, schemaFixture)
	c.SetSchemas(fixtureSchemas(t))
	c.SetLateSchemas(false)
	saw := false
	for n := 1; n <= c.Len(); n++ {
		m := c.Detail(n)
		if m.Listener != nil && m.Listener.Type == nil {
			saw = true
			if m.Payload != nil || m.PayloadMessage != "" {
				t.Errorf("n=%d: unresolved reference decoded (%q) with late resolution off", n, m.PayloadMessage)
			}
		}
	}
	if !saw {
		t.Error("no unresolved reference in the schema fixture")
	}
}
