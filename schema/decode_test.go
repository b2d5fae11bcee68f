package schema

import (
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// typed builds a field of the given type string, with enum names A, B, C.
func typed(t testing.TB, name, typ string) *Field {
	t.Helper()
	ty, err := ParseType(typ)
	if err != nil {
		t.Fatal(err)
	}
	f := &Field{Name: name, Type: ty}
	if ty.Kind == Enum {
		f.Values = map[uint32]string{0: "A", 1: "B", 2: "C"}
	}
	return f
}

// near compares decoded values, floats within tol (0 = exactly).
func near(got, want any, tol float64) bool {
	fl := func(a, b float64) bool {
		return a == b || math.Abs(a-b) <= tol || math.IsNaN(a) && math.IsNaN(b)
	}
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		return ok && fl(g, w)
	case Vec3:
		g, ok := got.(Vec3)
		return ok && fl(g.X, w.X) && fl(g.Y, w.Y) && fl(g.Z, w.Z)
	case Quat:
		g, ok := got.(Quat)
		return ok && fl(g.X, w.X) && fl(g.Y, w.Y) && fl(g.Z, w.Z) && fl(g.W, w.W)
	}
	return reflect.DeepEqual(got, want)
}

// errorsOf returns the texts of findings at or above sev.
func errorsOf(res Result, sev dissect.Severity) []string {
	var out []string
	for _, f := range res.Findings {
		if f.Severity >= sev {
			out = append(out, f.Text)
		}
	}
	return out
}

// TestVectors decodes one field from bits computed by hand from wire.md
// section 1.3's formulas (the quantised ones also with an independent
// script), checking the value and the span.
func TestVectors(t *testing.T) {
	s2 := math.Sqrt2
	for _, tt := range []struct {
		typ  string
		hex  string // the payload; unused high bits of the last byte are zero
		want any
		bits int
		tol  float64
	}{
		{"bool", "01", true, 1, 0},
		{"bool", "00", false, 1, 0},
		{"uint8", "ab", uint64(0xab), 8, 0},
		{"int8", "ff", int64(-1), 8, 0},
		{"uint16", "34 12", uint64(0x1234), 16, 0}, // little-endian when aligned
		{"int16", "00 80", int64(-32768), 16, 0},
		{"uint32", "04 03 02 01", uint64(0x01020304), 32, 0},
		{"int32", "fe ff ff ff", int64(-2), 32, 0},
		// wire.md 1.3: 0x0102030405060708 aligned is 04 03 02 01 08 07 06 05.
		{"uint64", "04 03 02 01 08 07 06 05", uint64(0x0102030405060708), 64, 0},
		{"int64", "ff ff ff ff fe ff ff ff", int64(-2), 64, 0},
		{"float", "00 00 c0 3f", 1.5, 32, 0},
		{"float", "cd cc cc 3d", 0.1, 32, 0}, // shown as the float32's shortest spelling
		{"uint:5", "16", uint64(22), 5, 0},
		{"uint:0", "", uint64(0), 0, 0},
		{"signed:4", "05", int64(-3), 4, 0}, // offset binary: −3 + 8 = 5
		{"signed:4", "0f", int64(7), 4, 0},
		{"enum:2", "01", "B", 2, 0},
		// String: isEmpty 0, (2−1) in 11 bits, align, "hi".
		{"string", "02 00 68 69", "hi", 32, 0},
		{"string", "01", "", 1, 0},
		{"string:7", "04 61 62 63", "abc", 32, 0},
		{"bytes:3", "aa bb cc", []byte{0xaa, 0xbb, 0xcc}, 24, 0},
		{"bytes:0", "", []byte{}, 0, 0},
		{"bytes", "02 de ad", []byte{0xde, 0xad}, 24, 0},
		{"bytes", "00", []byte{}, 8, 0},
		{"netid", "2a 00 00 00", uint64(42), 32, 0},
		{"steamid", "01 00 10 01 78 56 34 12", uint64(0x0110000112345678), 64, 0},
		// wire.md 1.3: aligned wire order g[4..7] g[0..3] g[12..15] g[8..11].
		{"guid", "55 44 77 66 33 22 11 00 cc dd ee ff 88 99 aa bb", "00112233-4455-6677-8899-aabbccddeeff", 128, 0},
		// 2024-05-01T12:00:00Z as ToBinary(): ticks 638501616000000000 | UTC<<62.
		{"datetime", "d6 69 dc 48 00 60 31 3a", "2024-05-01T12:00:00Z", 64, 0},
		// (1.5, −2.25, 4095.9921875): 13 bits of floor+4096, 7 bits of frac·128 each.
		{"vector3", "01 10 d8 ff c0 ff ff 0f", Vec3{1.5, -2.25, 4095.9921875}, 60, 0},
		{"vector3:4,0", "00 00", Vec3{-8, -8, -8}, 12, 0},
		// Largest index 3 (w), three zero SignedNormalizedFloats: identity.
		{"quaternion", "03 00 00 00", Quat{0, 0, 0, 1}, 29, 0},
		// Largest index 0 (x), then y, z, w each 180 in 9 bits: c = 180/255/√2.
		{"quaternion", "d0 a2 45 0b", Quat{math.Sqrt(1 - 3*sq(180/255.0/s2)), 180 / 255.0 / s2, 180 / 255.0 / s2, 180 / 255.0 / s2}, 29, 1e-6},
		// Largest w; x = −180/255/√2 (bit 8 is the sign).
		{"quaternion", "d3 06 00 00", Quat{-180 / 255.0 / s2, 0, 0, math.Sqrt(1 - sq(180/255.0/s2))}, 29, 1e-6},
		// Largest index 2, sign bit 1: (0, 0, −1).
		{"normal3", "06 00 00", Vec3{0, 0, -1}, 21, 0},
		// Largest y positive; x = round(0.6·√2·255) = 216 → 216/255/√2.
		{"normal3", "c1 06 00", Vec3{216 / 255.0 / s2, math.Sqrt(1 - sq(216/255.0/s2)), 0}, 21, 1e-6},
		// ClampedFloat(4, 4) of −1.25: floor −2 + 8 = 6, frac 0.75·16 = 12.
		{"clampedfloat:4,4", "c6", -1.25, 8, 0},
		{"uclampedfloat:4,4", "83", 3.5, 8, 0},
		{"unorm:8", "80", 128 / 255.0, 8, 1e-7},
		{"unorm:8", "ff", 1.0, 8, 0},
		{"snorm:8", "ff", -1.0, 8, 0}, // bit 7 = negative, magnitude 127/127
		{"snorm:8", "40", 64 / 127.0, 8, 1e-7},
		{"radians:8", "40", math.Pi / 2, 8, 1e-6}, // 64/256 of 2π
		{"degrees:8", "20", 45.0, 8, 0},
		// Float speed 2, then yaw 64/256·360 = 90°: (2·sin 90°, 0, 2·cos 90°).
		{"yaw:8", "00 00 00 40 40", Vec3{2, 0, 0}, 40, 1e-6},
		{"color32rgb", "01 02 03", RGBA{1, 2, 3, 255}, 24, 0},
		{"color32rgba", "01 02 03 04", RGBA{1, 2, 3, 4}, 32, 0},
		{"transform", "00", nil, 1, 0},
		// Has-value 1, NetID 5, String(7) "a": flag 0, 0 in 7 bits, align, 'a'.
		{"transform", "0b 00 00 00 00 00 61", TransformRef{5, "a"}, 56, 0},
	} {
		f := typed(t, "x", tt.typ)
		res := DecodeFields([]*Field{f}, "payload.", "T", netpak.NewReader(unhex(t, tt.hex)))
		if errs := errorsOf(res, dissect.Warn); len(errs) > 0 || len(res.Fields) != 1 {
			t.Errorf("decode %s of %s: fields %v, findings %q; want one field", tt.typ, tt.hex, res.Fields, errs)
			continue
		}
		got := res.Fields[0]
		if !near(got.Value, tt.want, tt.tol) || got.Bit != 0 || got.Bits != tt.bits || got.Name != "payload.x" {
			t.Errorf("decode %s of %s = %s %v (bits %d+%d); want %v (bits 0+%d)", tt.typ, tt.hex, got.Name, got.Value, got.Bit, got.Bits, tt.want, tt.bits)
		}
	}
}

func sq(x float64) float64 { return x * x }

type span struct {
	name string
	bit  int
	bits int
	val  any
}

func spansOf(res Result) []span {
	out := make([]span, len(res.Fields))
	for i, f := range res.Fields {
		out[i] = span{f.Name, f.Bit, f.Bits, f.Value}
	}
	return out
}

// TestNaming checks the names and spans of schema.md section 3 for the
// compound types: a list's count and an align have no entry of their own,
// an optional is one entry at its flag.
func TestNaming(t *testing.T) {
	src := listenerSrc(`
  { name = "flag", type = "bool" },
  { type = "align" },
  { name = "b", type = "uint8" },
  { name = "l", type = "list:3", item = { type = "uint:2" } },
  { name = "ls", type = "list:1", fields = [ { name = "k", type = "uint:4" } ] },
  { name = "none", type = "optional", item = { type = "uint8" } },
  { name = "some", type = "optional", item = { type = "uint:3" } },
  { name = "os", type = "optional", item = { type = "struct", fields = [ { name = "a", type = "bool" } ] } },
  { name = "ol", type = "optional", item = { type = "list:1", item = { type = "bool" } } },
  { name = "s", type = "struct", fields = [ { name = "x", type = "bool" }, { name = "in", type = "struct", fields = [ { name = "y", type = "bool" } ] } ] },
`)
	l := mustParse(t, "t.toml", src).Listeners[0]
	// Bit by bit, from bit 0 (the message enum has 0 bits):
	//   0      flag = 1
	//   1..7   align (zero)          → belongs to b
	//   8..15  b = 0xab
	//   16..17 l count = 3; 18..19 1, 20..21 2, 22..23 3   → byte 2 = 11 10 01 11 = 0xe7
	//   24     ls count = 1; 25..28 k = 0xf                → bits 24..28 = 1,1,1,1,1
	//   29     none flag 0
	//   30     some flag 1; 31..33 = 0b101
	//   34     os flag 1; 35 a = 1
	//   36     ol flag 1; 37 count 1; 38 item 0
	//   39     s.x = 1; 40 s.in.y = 1
	// byte 3 = bits 24..31 = 1 1 1 1 1 0 1 1 → 0xdf; byte 4 = bits 32..39:
	// 0 1 1 1 1 1 0 1 → 0xbe; byte 5 = bit 40 = 1 → 0x01.
	b := unhex(t, "01 ab e7 df be 01")
	res := l.Decode(dissect.C2S, netpak.NewReader(b))
	want := []span{
		{"payload.message", 0, 0, uint64(0)},
		{"payload.flag", 0, 1, true},
		{"payload.b", 1, 15, uint64(0xab)},
		{"payload.l", 16, 8, uint64(3)},
		{"payload.l[0]", 18, 2, uint64(1)},
		{"payload.l[1]", 20, 2, uint64(2)},
		{"payload.l[2]", 22, 2, uint64(3)},
		{"payload.ls", 24, 5, uint64(1)},
		{"payload.ls[0].k", 25, 4, uint64(15)},
		{"payload.none", 29, 1, nil},
		{"payload.some", 30, 4, uint64(5)},
		{"payload.os", 34, 2, true},
		{"payload.os.a", 35, 1, true},
		{"payload.ol", 36, 3, uint64(1)},
		{"payload.ol[0]", 38, 1, false},
		{"payload.s.x", 39, 1, true},
		{"payload.s.in.y", 40, 1, true},
	}
	if got := spansOf(res); !reflect.DeepEqual(got, want) {
		t.Errorf("Decode(% x) =\n%v\nwant\n%v", b, got, want)
	}
	if len(res.Findings) != 0 || res.Message != "M" || res.End != 41 {
		t.Errorf("Decode(% x): findings %v, message %q, end %d; want none, M, 41", b, res.Findings, res.Message, res.End)
	}
}

// chatSrc is schema.md's section 1 example as the decoder tests use it.
const chatSrc = `
[[listener]]
type = "Sample.ChatListener, Sample"
versions = [1, 2]
[listener.server]
enum_bits = 2
[[listener.server.message]]
value = 0
name = "Say"
fields = [ { name = "hello", type = "string" }, { name = "e", type = "enum:2", values = { 0 = "A" } } ]
[[listener.server.message]]
value = 1
name = "InvokeMethod"
rpc = true
[[listener.server.method]]
name = "ReceiveFlyRequest"
instance = true
params = [ { name = "speed", type = "float" } ]
[[listener.server.method]]
name = "Stop"
[[listener.server.method]]
name = "Land"
`

// TestFindings checks each finding of schema.md section 3, by its text.
func TestFindings(t *testing.T) {
	l := mustParse(t, "chat.toml", chatSrc).Listeners[0]
	for _, tt := range []struct {
		name string
		hex  string
		skip int // header bits before the payload
		want []string
	}{
		// Say: enum 0 (2 bits), hello "hi" (flag 0, 1 in 11 bits at 3..13,
		// align to 16, 'h' 'i'), e = 0 in 2 bits at 32..33.
		{"clean", "08 00 68 69 00", 0, nil},
		{"pad bits", "08 00 68 69 28", 0, []string{"warn@34: schema Chat.Say: non-zero trailing pad bits 0xa (6 bits)"}},
		{"extra", "08 00 68 69 00 00", 0, []string{"warn@34: schema Chat.Say: 14 extra bits after the last field"}},
		{"enum", "08 00 68 69 02", 0, []string{"warn@32: schema Chat.Say: e: value 2 is not in the enum"}},
		{"short", "08 00 68", 0, []string{"error@16: schema Chat.Say: hello: need 16 bits at bit 16, have 8"}},
		{"short enum", "08 00 68 69", 0, []string{"error@32: schema Chat.Say: e: need 2 bits at bit 32, have 0"}},
		{"short message", "01", 7, []string{"error@7: schema Chat: message: need 2 bits at bit 7, have 1"}},
		{"padding", "08 c0 68 69 00", 0, []string{"error@14: schema Chat.Say: hello: non-zero alignment padding 0x3 (2 bits)"}},
		{"utf8", "08 00 c3 28 00", 0, []string{"error@16: schema Chat.Say: hello: invalid UTF-8 in a 2-byte string"}},
		{"unknown message", "03", 0, []string{"warn@0: schema Chat: message value 3 is not in the schema"}},
		// InvokeMethod: enum 1, index in CountBits(3) = 2 bits, NetID, float.
		{"rpc", "01 00 00 00 00 00 00 c0 0f", 0, nil},
		{"rpc index", "0d", 0, []string{"warn@2: schema Chat.InvokeMethod: method index 3 out of range (3 methods)"}},
		{"rpc short", "01 00 00 00 00 00 00", 0, []string{"error@36: schema Chat.ReceiveFlyRequest: speed: need 32 bits at bit 36, have 20"}},
		{"rpc no instance", "01 00", 0, []string{"error@4: schema Chat.ReceiveFlyRequest: instance: need 32 bits at bit 4, have 12"}},
		{"rpc stop", "05", 0, nil},
	} {
		r := netpak.NewReader(unhex(t, tt.hex))
		r.Skip(tt.skip)
		res := l.Decode(dissect.C2S, r)
		var got []string
		for _, f := range res.Findings {
			got = append(got, f.Severity.String()+"@"+strconv.Itoa(f.Bit)+": "+f.Text)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Decode(%s) findings = %q; want %q", tt.name, tt.hex, got, tt.want)
		}
	}
	// Bad padding and bad UTF-8 are errors on values that are still shown,
	// and decoding goes on after them.
	for _, tt := range []struct{ hex, hello string }{{"08 c0 68 69 00", "hi"}, {"08 00 c3 28 00", "\xc3("}} {
		res := l.Decode(dissect.C2S, netpak.NewReader(unhex(t, tt.hex)))
		if len(res.Fields) != 3 || res.Fields[1].Value != tt.hello || res.Fields[2].Value != "A" {
			t.Errorf("Decode(%s) = %v; want hello %q and e A", tt.hex, res.Fields, tt.hello)
		}
	}
}

func TestSetLookup(t *testing.T) {
	chat := mustParse(t, "chat.toml", chatSrc)
	noAsm := mustParse(t, "noasm.toml", "[[listener]]\ntype = \"Sample.ChatListener\"\nversions = [3]")
	van := mustParse(t, "spec.toml", string(readFile(t, "testdata/spec.toml")))
	van.Listeners = nil
	set, err := NewSet(chat, noAsm, van)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		typ     string
		version uint32
		file    string // "" = no schema
		note    string
	}{
		{"Sample.ChatListener, Sample", 1, "chat.toml", ""},
		{"Sample.ChatListener, Sample", 2, "chat.toml", ""},
		{" Sample.ChatListener, Sample ", 2, "chat.toml", ""},
		{"Sample.ChatListener, Other", 3, "noasm.toml", ""}, // no assembly: any assembly
		{"Sample.ChatListener, Other", 1, "", "schema Chat: version 1 has no schema; the schema covers versions 3"},
		{"Sample.ChatListener, Sample", 4, "", "schema Chat: version 4 has no schema; the schema covers versions 1, 2, 3"},
		{"Sample.ChatListener", 3, "noasm.toml", ""},
		{"Sample.MapListener, Sample", 1, "", ""},
	} {
		l, notes := set.Listener(tt.typ, tt.version)
		file, note := "", ""
		if l != nil {
			file = l.File
		}
		if len(notes) > 0 {
			note = notes[0].Text
		}
		if file != tt.file || note != tt.note {
			t.Errorf("Listener(%q, %d) = %q, %q; want %q, %q", tt.typ, tt.version, file, note, tt.file, tt.note)
		}
	}
	if m := set.VanillaMethod(dissect.S2C, 55); m == nil || m.Name != "ReceiveChatEntry" {
		t.Errorf("VanillaMethod(s2c, 55) = %v; want ReceiveChatEntry", m)
	}
	if m := set.VanillaMethod(dissect.C2S, 55); m != nil {
		t.Errorf("VanillaMethod(c2s, 55) = %v; want nil", m)
	}
	if s := set.Service(1); s == nil || s.Method(1).Name != "LoginAsync" || s.Push(1).Arg != "PlayerNotify" || s.Method(2) != nil {
		t.Errorf("Service(1) = %v; want IPlayerService with LoginAsync and OnNotify", s)
	}
	if d := set.DTO("LoginRequest"); d == nil || len(d.Members) != 2 {
		t.Errorf("DTO(LoginRequest) = %v; want 2 members", d)
	}
	// Clashes name both places.
	err = set.Add(mustParse(t, "again.toml", chatSrc+"\n[[vanilla.client_method]]\nindex = 55\nname = \"X\""))
	want := "again.toml:2: listener[0].type: \"Sample.ChatListener, Sample\" is also defined at chat.toml:2 for the same versions\n" +
		"again.toml:24: vanilla: s2c method index 55 is also defined as \"ReceiveChatEntry\""
	if err == nil || err.Error() != want {
		t.Errorf("Add(clashing) = %v; want %s", err, want)
	}
	var none *Set
	if l, _ := none.Listener("A", 1); l != nil || none.VanillaMethod(dissect.C2S, 1) != nil {
		t.Errorf("nil Set found a schema")
	}
}

// TestVanillaDecode decodes a vanilla InvokeMethod's parameters after an
// index the caller read (wire.md 3: 9 bits for 272 client methods).
func TestVanillaDecode(t *testing.T) {
	set, _ := NewSet(mustParse(t, "spec.toml", string(readFile(t, "testdata/spec.toml"))))
	w := netpak.NewWriter()
	w.Bits(17, 5) // EClientMessage InvokeMethod
	w.Bits(55, 9) // method index
	w.String("gg", 11)
	w.Color32RGB(netpak.Color32{R: 1, G: 2, B: 3})
	r := netpak.NewReader(w.Bytes())
	r.Bits(5)
	at := r.Pos()
	m := set.VanillaMethod(dissect.S2C, int(r.Bits(9)))
	res := m.Decode(r, at)
	want := []span{
		{"payload.method", 5, 9, "ReceiveChatEntry"},
		{"payload.text", 14, 34, "gg"}, // flag, 11 bits, align from bit 26 to 32, 2 bytes
		{"payload.color", 48, 24, RGBA{1, 2, 3, 255}},
	}
	if got := spansOf(res); !reflect.DeepEqual(got, want) || len(res.Findings) != 0 || res.Method != "ReceiveChatEntry" || res.Message != "" {
		t.Errorf("Decode = %v, %v, %q; want %v, no findings", got, res.Findings, res.Method, want)
	}
	if r.Pos() != 14 {
		t.Errorf("Decode moved its reader to %d; want it left at 14", r.Pos())
	}
}

// TestBounds: hostile payloads against schemas that invite unbounded work
// stop at the bounds with a warning, and never panic.
func TestBounds(t *testing.T) {
	for _, tt := range []struct {
		name, fields, hex, want string
	}{
		{"zero-width items", `{ name = "l", type = "list:4294967295", item = { type = "uint:0" } }`, "ffffffff",
			"schema A.M: more than 65536 fields; the rest is not decoded"},
		{"empty structs", `{ name = "l", type = "list:4294967295", item = { type = "struct", fields = [] } }`, "ffffffff",
			"schema A.M: more than 131072 reads; the rest is not decoded"},
		{"count above max", `{ name = "l", type = "list:5", item = { type = "bool" } }`, "07",
			"schema A.M: l: count 7 above the maximum 5"},
	} {
		l := mustParse(t, "t.toml", listenerSrc(tt.fields)).Listeners[0]
		res := l.Decode(dissect.C2S, netpak.NewReader(unhex(t, tt.hex)))
		if len(res.Findings) == 0 || res.Findings[0].Text != tt.want {
			t.Errorf("%s: findings = %v; want first %q", tt.name, res.Findings, tt.want)
		}
		if len(res.Fields) > MaxFields {
			t.Errorf("%s: %d fields; want at most %d", tt.name, len(res.Fields), MaxFields)
		}
	}
	// A cyclic Field built by hand stops at MaxDepth.
	cyc := &Field{Name: "c", Type: Type{Kind: Optional}}
	cyc.Item = cyc
	res := DecodeFields([]*Field{cyc}, "payload.", "T", netpak.NewReader(unhex(t, "ffffffff")))
	if got := errorsOf(res, dissect.Error); len(got) != 1 || !strings.Contains(got[0], "nested deeper than 16 levels") {
		t.Errorf("cyclic optional: findings %q; want one nesting error", got)
	}
}

func TestValueStrings(t *testing.T) {
	for _, tt := range []struct {
		v         any
		str, json string
	}{
		{Vec3{1, -2.5, 0}, "(1, -2.5, 0)", `{"x":1,"y":-2.5,"z":0}`},
		{Vec3{math.NaN(), math.Inf(1), 0}, "(NaN, +Inf, 0)", `{"x":"NaN","y":"+Inf","z":0}`},
		{Quat{0, 0, 0, 1}, "(0, 0, 0, 1)", `{"x":0,"y":0,"z":0,"w":1}`},
	} {
		var b []byte
		switch v := tt.v.(type) {
		case Vec3:
			b, _ = v.MarshalJSON()
		case Quat:
			b, _ = v.MarshalJSON()
		}
		if s := fmt.Sprint(tt.v); s != tt.str || string(b) != tt.json {
			t.Errorf("%#v: String = %s, JSON = %s; want %s, %s", tt.v, s, b, tt.str, tt.json)
		}
	}
}
