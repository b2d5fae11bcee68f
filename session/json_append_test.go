package session

import (
	"bytes"
	"github.com/usmnscope/usmnscope/internal/jsontime"
	"math"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/unturned"
)

// The reflection encoding that Message.AppendJSON replaced, kept here as
// the reference it must match byte for byte: jsonMessage marshalled by
// encoding/json without HTML escaping, then escapeTerminalJSON.

type refEnum struct {
	Value   uint32 `json:"value"`
	Bits    int    `json:"bits"`
	Widened bool   `json:"widened"`
}

type refField struct {
	Name  string `json:"name"`
	Bit   int    `json:"bit"`
	Bits  int    `json:"bits"`
	Value any    `json:"value"`
	// RawHex: the exact bytes of a string value that is not UTF-8.
	RawHex string `json:"raw_hex,omitempty"`
}

type refListener struct {
	Type     *string `json:"type"`
	TypeHex  string  `json:"type_hex,omitempty"`
	Version  *uint32 `json:"version"`
	ClientID *uint32 `json:"client_id"`
	ServerID *uint32 `json:"server_id"`
	Resolved bool    `json:"resolved"`
}

type refMessage struct {
	N           int           `json:"n"`
	Frame       int           `json:"frame"`
	Time        string        `json:"time"`
	TimeNS      *int64        `json:"time_ns,omitempty"`
	Conn        string        `json:"conn"`
	Dir         string        `json:"dir"`
	Proto       string        `json:"proto"`
	Len         int           `json:"len"`
	Hex         string        `json:"hex"`
	Enum        refEnum       `json:"enum"`
	Msg         string        `json:"msg"`
	Summary     string        `json:"summary,omitempty"`
	Fields      []refField    `json:"fields"`
	Mode        string        `json:"mode,omitempty"`
	Listener    *refListener  `json:"listener,omitempty"`
	PayloadBits *int          `json:"payload_bits,omitempty"`
	Expert      []jsonFinding `json:"expert"`
	Pair        int           `json:"pair,omitempty"`
	LatencyNS   *int64        `json:"latency_ns,omitempty"`
}

func refValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return hexString(x)
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

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func refMarshalJSON(m *Message) ([]byte, error) {
	j := refMessage{
		N:       m.N,
		Frame:   m.Frame,
		Time:    m.Time.UTC().Format(jsontime.Layout),
		Conn:    m.Conn.String(),
		Dir:     m.Dir.String(),
		Proto:   "unturned",
		Len:     len(m.Data),
		Hex:     hexString(m.Data),
		Enum:    refEnum{Value: m.Enum.Value, Bits: m.Enum.Bits, Widened: m.Enum.Widened},
		Msg:     m.Name(),
		Summary: m.Summary,
		Fields:  make([]refField, len(m.Fields)),
		Mode:    m.ModeName(),
		Expert:  jsonFindings(m.Findings),
		Pair:    m.Pair,
	}
	if m.HasLatency {
		ns := int64(m.Latency)
		j.LatencyNS = &ns
	}
	// time_ns when an int64 of nanoseconds holds the time.
	if ns := m.Time.UnixNano(); time.Unix(0, ns).Equal(m.Time) {
		j.TimeNS = &ns
	}
	for i, s := range m.Fields {
		j.Fields[i] = refField{Name: s.Name, Bit: s.Bit, Bits: s.Bits, Value: refValue(s.Value)}
		if v, ok := s.Value.(string); ok && !utf8.ValidString(v) {
			j.Fields[i].RawHex = hexString([]byte(v))
		}
	}
	if m.Listener != nil {
		l := m.Listener
		j.Listener = &refListener{Type: l.Type, Version: l.Version, ClientID: l.ClientID, ServerID: l.ServerID, Resolved: l.Resolved}
		if l.Type != nil && !utf8.ValidString(*l.Type) {
			j.Listener.TypeHex = hexString([]byte(*l.Type))
		}
	}
	if m.Kind == unturned.KindInvokeMessageListener {
		pb := m.PayloadBits
		j.PayloadBits = &pb
	}
	return marshal(j)
}

// sameJSON fails t unless AppendJSON, MarshalJSON and WriteJSON of m all
// give the reference encoding.
func sameJSON(t *testing.T, what string, m *Message) {
	t.Helper()
	want, werr := refMarshalJSON(m)
	got, gerr := m.MarshalJSON()
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s: MarshalJSON error = %v; want %v", what, gerr, werr)
	}
	if werr != nil {
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: MarshalJSON =\n%s\nwant\n%s", what, got, want)
	}
	prefix := []byte("x")
	if app := m.AppendJSON(prefix); !bytes.Equal(app, append(prefix, want...)) {
		t.Fatalf("%s: AppendJSON(%q) =\n%s\nwant x + \n%s", what, prefix, app, want)
	}
	var buf bytes.Buffer
	if err := m.WriteJSON(&buf); err != nil || buf.String() != string(want)+"\n" {
		t.Fatalf("%s: WriteJSON = %q, %v; want %q", what, buf.String(), err, string(want)+"\n")
	}
}

// readFixture decodes a capture file through internal/pipeline, as every
// command does, for comparing every message of it.
func readFixture(t testing.TB, path string) *Index { return readFixtureStore(t, path, false) }

// readFixtureStore is readFixture; with store, the capture keeps messages
// that lie whole in the file by their offset (Index.SetStore, DataAt).
func readFixtureStore(t testing.TB, path string, store bool) *Index {
	t.Helper()
	return ReadFixture(t, path, store)
}

// TestAppendJSONFixtures compares AppendJSON with the reflection encoding
// for every message of every fixture capture (the hostile one included),
// with and without spans.
func TestAppendJSONFixtures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "fixtures", "captures", "*.pcapng"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture captures: %v", err)
	}
	sawHostile := false
	for _, path := range paths {
		sawHostile = sawHostile || filepath.Base(path) == "hostile.pcapng"
		c := readFixture(t, path)
		if c.Len() == 0 {
			t.Errorf("%s: no messages decoded", path)
		}
		for n := 1; n <= c.Len(); n++ {
			sameJSON(t, path+" Message("+strconv.Itoa(n)+")", c.Message(n))
			sameJSON(t, path+" Detail("+strconv.Itoa(n)+")", c.Detail(n))
		}
	}
	if !sawHostile {
		t.Error("fixtures/captures/hostile.pcapng not compared")
	}
}

// TestAppendJSONRange compares Index.AppendJSONRange, which reuses one
// message's buffers for the next, with Detail(n).AppendJSON over every
// fixture capture, kept in memory and in its file, for whole and partial
// ranges and with filters.
func TestAppendJSONRange(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "fixtures", "captures", "*.pcapng"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture captures: %v", err)
	}
	inFile := 0
	for _, path := range paths {
		for _, store := range []bool{false, true} {
			c := readFixtureStore(t, path, store)
			if store {
				n, _ := c.Placement()
				inFile += n
			}
			for _, sel := range matchers {
				expr, f := sel.name, sel.match
				var want []byte
				for n := 1; n <= c.Len(); n++ {
					if m := c.Detail(n); f == nil || f(m) {
						want = append(m.AppendJSON(want), '\n')
					}
				}
				if got := c.AppendJSONRange(nil, -3, c.Len()+5, selector(f)); !bytes.Equal(got, want) {
					t.Fatalf("%s (store %v): AppendJSONRange(all, %q) =\n%s\nwant\n%s", path, store, expr, got, want)
				}
				var parts []byte
				for from := 1; from <= c.Len(); from += 3 {
					parts = c.AppendJSONRange(parts, from, from+2, selector(f))
				}
				if !bytes.Equal(parts, want) {
					t.Fatalf("%s (store %v): AppendJSONRange in threes, %q =\n%s\nwant\n%s", path, store, expr, parts, want)
				}
			}
		}
	}
	if inFile == 0 {
		t.Error("no fixture message was kept in its file: the Store path is not compared")
	}
}

// matchers stand for display filters (the filter package is above this one
// and has its own AppendJSONRange test over real expressions).
// funcSelector is a Selector that always needs the message.
type funcSelector func(*Message) bool

func (funcSelector) HeadOnly() bool          { return false }
func (funcSelector) MatchHead(Head) bool     { return false }
func (f funcSelector) Match(m *Message) bool { return f(m) }

var matchers = []struct {
	name  string
	match func(*Message) bool
}{
	{"all", nil},
	{"dir==s2c", func(m *Message) bool { return m.Dir == dissect.S2C }},
	{"severity>=warn", func(m *Message) bool { w, ok := m.Worst(); return ok && w >= dissect.Warn }},
	{"listener~Chat", func(m *Message) bool {
		return m.Listener != nil && m.Listener.Type != nil && strings.Contains(strings.ToLower(*m.Listener.Type), "chat")
	}},
}

// selector is f as a Selector, nil for nil.
func selector(f func(*Message) bool) Selector {
	if f == nil {
		return nil
	}
	return funcSelector(f)
}

// everyByte is a string of all 256 byte values: C0 controls, '"', '\\',
// DEL and, from 0x80 on, invalid UTF-8.
func everyByte() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}

// hostileStrings are the strings whose spelling differs between a naive
// encoder and encoding/json plus escapeTerminalJSON.
var hostileStrings = []string{
	"", "plain", everyByte(), "<a href=\"x\">&amp;</a>", "\u2028\u2029", "\u0085\u009b[31m",
	"a\u202eb\u2066c\u200fd\u061ce\u200e\u202a\u2069", "é→✓\U0001F600", "\xff\xfe", "\xe2\x80", "\xed\xa0\x80",
	"\ufffd", "tab\there\r\n\b\f\x00\x1f\x7f", `back\slash "q"`,
}

// TestAppendJSONValues covers what the fixtures may not: every span value
// type, non-finite and extreme floats, hostile strings in every string
// key, odd addresses and enum values outside their names.
func TestAppendJSONValues(t *testing.T) {
	type named uint8
	ch := make(chan int)
	values := []any{
		nil, true, false, uint64(0), uint64(math.MaxUint64), int64(math.MinInt64), int64(-1),
		uint32(7), 42, -42, int8(-3), uint16(9), named(4), []byte(nil), []byte{}, []byte{0, 0xab, 0xff},
		0.0, math.Copysign(0, -1), 1.5, -2.25e-7, 1e-6, 9.99e-7, 1e20, 1e21, 123456789e30, math.MaxFloat64, math.SmallestNonzeroFloat64,
		math.NaN(), math.Inf(1), math.Inf(-1), float32(0.1), float32(1e-7), float32(3e21), float32(math.Inf(-1)), float32(math.NaN()),
		struct{ A string }{"<&>"}, []string{"x\u2028"}, map[string]int{"b": 1, "a": 2}, time.Duration(5),
	}
	for _, s := range hostileStrings {
		values = append(values, s)
	}
	u := func(v uint32) *uint32 { return &v }
	for i, v := range values {
		m := &Message{N: i, Fields: []netpak.Span{{Name: "v", Bit: i, Bits: 3, Value: v}}}
		sameJSON(t, "value "+strconv.Itoa(i), m)
	}
	for _, tm := range []time.Time{
		{}, time.Unix(0, 0), time.Unix(0, -1), time.Unix(1<<40, 999999999), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 23, 59, 59, 1, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 6, 1, 0, 30, 0, 5, time.FixedZone("", -90*60)),
	} {
		sameJSON(t, "time "+tm.String(), &Message{Time: tm})
	}
	bad := &Message{Fields: []netpak.Span{{Name: "ch", Value: ch}}}
	if _, err := bad.MarshalJSON(); err == nil {
		t.Error("MarshalJSON of a channel field value = nil error; want the encoding error")
	}
	if got := string(bad.AppendJSON(nil)); !strings.Contains(got, `"value":null`) {
		t.Errorf("AppendJSON of a channel field value = %s; want value null", got)
	}
	zone, _ := netip.ParseAddr("fe80::1%eth\u009b0")
	conns := []dissect.Conn{
		{},
		{Client: netip.MustParseAddrPort("10.0.0.2:50412"), Server: netip.MustParseAddrPort("[2001:db8::1]:27016")},
		{Client: netip.MustParseAddrPort("[::ffff:1.2.3.4]:1"), Server: netip.AddrPortFrom(zone, 65535)},
	}
	for i, s := range hostileStrings {
		typ := s
		m := &Message{
			N: -i, Frame: 1 << 40, Time: time.Date(2026, 1, 2, 3, 4, 5, i, time.FixedZone("x", 3600)),
			Conn: conns[i%len(conns)], Dir: dissect.Dir(i % 4), Data: make([]byte, i),
			Enum: unturned.Enum{Value: math.MaxUint32, Bits: i, Widened: i%2 == 0},
			Kind: unturned.Kind(i * 7), Summary: s, Mode: unturned.NegotiateMode(i), PayloadBits: i,
			Fields:   []netpak.Span{{Name: s, Bit: -1, Bits: 0, Value: s}, {Name: "b", Value: []byte(s)}},
			Listener: &unturned.Listener{Type: &typ, Version: u(1), ClientID: nil, ServerID: u(math.MaxUint32), Resolved: i%2 == 1},
			Findings: []dissect.Finding{{Severity: dissect.Severity(i % 5), Group: dissect.Group(i), Text: s}, {Severity: dissect.Error, Text: ""}},
		}
		sameJSON(t, "strings "+strconv.Itoa(i), m)
		m.Kind = unturned.KindInvokeMessageListener
		m.Listener = &unturned.Listener{}
		sameJSON(t, "invoke "+strconv.Itoa(i), m)
		m.Time, m.Listener, m.Findings, m.Fields = time.Time{}, nil, nil, nil
		sameJSON(t, "bare "+strconv.Itoa(i), m)
	}
}

// TestAppendJSONStrings checks the string spelling itself on each hostile
// string, and that the result is valid UTF-8 with no raw control rune.
func TestAppendJSONStrings(t *testing.T) {
	for _, s := range hostileStrings {
		want, err := marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := termsafe.AppendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("termsafe.AppendJSONString(%q) = %s; want %s", s, got, want)
		}
		got := string(termsafe.AppendJSONString(nil, s))
		if !utf8.ValidString(got) {
			t.Errorf("termsafe.AppendJSONString(%q) = %q; not valid UTF-8", s, got)
		}
		for _, r := range got {
			if r < 0x20 || termsafe.TerminalRune(r) {
				t.Errorf("termsafe.AppendJSONString(%q) = %q; raw %U", s, got, r)
			}
		}
	}
}

// FuzzAppendJSON decodes fuzz bytes as a message (DecodeOne), sets the
// capture-side keys from them too, and compares AppendJSON with the
// reflection encoding.
func FuzzAppendJSON(f *testing.F) {
	// Seeds beyond the committed corpus: one message of each USMN form and
	// a vanilla text message, in both widths.
	e := unturned.Encoder{P: unturned.Default()}
	for _, widened := range []bool{false, true} {
		def := unturned.Invoke{HasDefinition: true, IDBits: 3, ServerID: 2, Type: "Sample.ChatListener", Version: 1}
		f.Add(e.InvokeS2C(widened, def, []byte{1, 2, 3}), true, widened, uint8(3), "")
		f.Add(e.InvokeC2S(widened, unturned.Invoke{ServerID: 2}, []byte{4}), false, widened, uint8(3), "")
		f.Add(e.Negotiate(dissect.S2C, widened, unturned.Negotiate{Mode: unturned.TellClientListenerID, IDBits: 3, ServerID: 1}), true, widened, uint8(3), "")
		f.Add(e.GetWorkshopFiles(true, nil), false, widened, uint8(0), "")
		f.Add(e.Kicked(widened, "bye"), true, widened, uint8(0), "")
	}
	f.Add([]byte{0x8c, 0, 0, 'b', 'y', 'e'}, true, false, uint8(0), everyByte())
	p := unturned.Default()
	f.Fuzz(func(t *testing.T, data []byte, s2c, widened bool, idBits uint8, text string) {
		dir := dissect.C2S
		if s2c {
			dir = dissect.S2C
		}
		m := DecodeOne(p, dir, widened, int(idBits%40), data)
		sameJSON(t, "DecodeOne", m)
		var bits uint64
		for i, b := range data {
			bits |= uint64(b) << (8 * (i % 8))
		}
		m.Fields = append(m.Fields,
			netpak.Span{Name: text, Value: text},
			netpak.Span{Name: "f64", Value: math.Float64frombits(bits)},
			netpak.Span{Name: "f32", Value: math.Float32frombits(uint32(bits))},
			netpak.Span{Name: "bytes", Value: data})
		m.Summary, m.Mode = text, unturned.NegotiateMode(idBits)
		m.Findings = append(m.Findings, dissect.Finding{Severity: dissect.Severity(idBits), Group: dissect.Group(idBits), Text: text})
		m.Time = time.Unix(0, int64(bits))
		sameJSON(t, "DecodeOne with fuzz strings", m)
	})
}

// BenchmarkAppendJSON encodes the records of the fixture captures (with
// spans, as dump --json does) into one reused buffer; ns/op and allocs/op
// are per message.
func BenchmarkAppendJSON(b *testing.B) {
	msgs := fixtureMessages(b)
	b.ReportAllocs()
	var buf []byte
	total := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = msgs[i%len(msgs)].AppendJSON(buf[:0])
		total += len(buf)
	}
	b.SetBytes(int64(total / max(b.N, 1)))
}

// BenchmarkAppendJSONRange encodes every message of the fixture captures
// from the Index, decoding included, as dump --json does; ns/op and
// allocs/op are per message.
func BenchmarkAppendJSONRange(b *testing.B) {
	caps, msgs := fixtureCaptures(b)
	b.ReportAllocs()
	var buf []byte
	b.ResetTimer()
	for i := 0; i < b.N; i += msgs {
		for _, c := range caps {
			buf = c.AppendJSONRange(buf[:0], 1, c.Len(), nil)
		}
	}
}

// fixtureCaptures reads every fixture capture, and counts their messages.
func fixtureCaptures(b *testing.B) (caps []*Index, msgs int) {
	b.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "captures", "*.pcapng"))
	for _, path := range paths {
		c := readFixture(b, path)
		caps = append(caps, c)
		msgs += c.Len()
	}
	if msgs == 0 {
		b.Fatal("no fixture messages")
	}
	return caps, msgs
}

// fixtureMessages decodes every message of the fixture captures, with
// spans.
func fixtureMessages(b *testing.B) []*Message {
	caps, total := fixtureCaptures(b)
	msgs := make([]*Message, 0, total)
	for _, c := range caps {
		for n := 1; n <= c.Len(); n++ {
			msgs = append(msgs, c.Detail(n))
		}
	}
	return msgs
}

// BenchmarkDetailAppendJSON is BenchmarkAppendJSONRange through Detail, one
// new Message per message, for comparison.
func BenchmarkDetailAppendJSON(b *testing.B) {
	caps, msgs := fixtureCaptures(b)
	b.ReportAllocs()
	var buf []byte
	b.ResetTimer()
	for i := 0; i < b.N; i += msgs {
		for _, c := range caps {
			buf = buf[:0]
			for n := 1; n <= c.Len(); n++ {
				buf = append(c.Detail(n).AppendJSON(buf), '\n')
			}
		}
	}
}

// BenchmarkMarshalJSONReflect is the reflection encoding AppendJSON
// replaced, on the same records, for comparison.
func BenchmarkMarshalJSONReflect(b *testing.B) {
	msgs := fixtureMessages(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := refMarshalJSON(msgs[i%len(msgs)]); err != nil {
			b.Fatal(err)
		}
	}
}
