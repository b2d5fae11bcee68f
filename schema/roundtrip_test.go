package schema

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// TestRoundTrip writes each field type with edge values and reads it back.
// Quantised types come back within the step of wire.md 1.3's formula: the
// writer truncates clamped fractions (step 2^−F) and rounds normalised
// values (half a step), so tol is one step.
func TestRoundTrip(t *testing.T) {
	q := func(x, y, z, w float64) Quat {
		n := math.Sqrt(x*x + y*y + z*z + w*w)
		return Quat{x / n, y / n, z / n, w / n}
	}
	long := strings.Repeat("é", 1024) // 2048 bytes: the most an 11-bit length holds
	for _, tt := range []struct {
		typ  string
		in   any
		want any // nil: the same as in
		tol  float64
	}{
		{"bool", true, nil, 0},
		{"bool", false, nil, 0},
		{"uint8", uint64(0), nil, 0},
		{"uint8", uint64(255), nil, 0},
		{"int8", int64(-128), nil, 0},
		{"int8", int64(127), nil, 0},
		{"uint16", uint64(65535), nil, 0},
		{"int16", int64(-32768), nil, 0},
		{"uint32", uint64(math.MaxUint32), nil, 0},
		{"int32", int64(math.MinInt32), nil, 0},
		{"int32", int64(math.MaxInt32), nil, 0},
		{"uint64", uint64(math.MaxUint64), nil, 0},
		{"uint64", uint64(1), nil, 0},
		{"int64", int64(math.MinInt64), nil, 0},
		{"int64", int64(math.MaxInt64), nil, 0},
		{"int64", int64(-1), nil, 0},
		{"float", 0.0, nil, 0},
		{"float", 0.1, nil, 0},
		{"float", float64(math.MaxFloat32), 3.4028235e38, 0}, // the float32's shortest spelling
		{"float", float64(math.SmallestNonzeroFloat32), 1e-45, 0},
		{"float", math.Inf(-1), nil, 0},
		{"float", math.NaN(), nil, 0},
		{"uint:0", uint64(0), nil, 0},
		{"uint:1", uint64(1), nil, 0},
		{"uint:32", uint64(math.MaxUint32), nil, 0},
		{"signed:1", int64(-1), nil, 0},
		{"signed:1", int64(0), nil, 0},
		{"signed:8", int64(-128), nil, 0},
		{"signed:32", int64(math.MinInt32), nil, 0},
		{"signed:32", int64(math.MaxInt32), nil, 0},
		{"enum:2", "C", nil, 0},
		{"enum:2", "A", nil, 0},
		{"enum:2", uint64(1), "B", 0},
		{"enum:2", "Unknown(3)", nil, 0},
		{"enum:0", "A", nil, 0},
		{"string", "", nil, 0},
		{"string", "a", nil, 0},
		{"string", long, nil, 0},
		{"string", "\x1b[2J\u202e\u009b", nil, 0}, // hostile text stays exact
		{"string:0", "x", nil, 0},
		{"string:3", "12345678", nil, 0},
		{"bytes:0", []byte{}, nil, 0},
		{"bytes:4", []byte{0, 0xff, 1, 0x80}, nil, 0},
		{"bytes:3", "a1b2c3", []byte{0xa1, 0xb2, 0xc3}, 0},
		{"bytes", []byte{}, nil, 0},
		{"bytes", []byte(strings.Repeat("\xff", 255)), nil, 0},
		{"netid", uint64(0), nil, 0},
		{"netid", uint64(math.MaxUint32), nil, 0},
		{"steamid", uint64(76561198000000000), nil, 0},
		{"guid", "00112233-4455-6677-8899-aabbccddeeff", nil, 0},
		{"guid", "ffffffff-ffff-ffff-ffff-ffffffffffff", nil, 0},
		{"datetime", "0001-01-01T00:00:00Z", nil, 0},
		{"datetime", "2026-01-01T12:00:00.0000001Z", nil, 0}, // 100 ns: one tick
		{"datetime", time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC), "9999-12-31T23:59:59.9999999Z", 0},
		{"vector3", Vec3{-4096, 0, 4095.9921875}, nil, 0}, // the range ends (wire.md 1.3)
		{"vector3", Vec3{1.2345, -0.001, 100.1}, nil, 1.0 / 128},
		{"vector3", Vec3{-5000, 5000, 0}, Vec3{-4096, 4095.9921875, 0}, 0}, // clamped
		{"vector3:13,11", Vec3{0.3, -0.3, 17}, nil, 1.0 / 2048},
		{"vector3:1,0", Vec3{-1, 0, 0}, nil, 0},
		{"quaternion", Quat{0, 0, 0, 1}, nil, 0},
		{"quaternion", Quat{0.5, 0.5, 0.5, 0.5}, nil, 2.0 / 255},
		{"quaternion", q(0.1, -0.7, 0.2, 0.68), q(-0.1, 0.7, -0.2, -0.68), 2.0 / 255}, // q and −q: the largest (y) comes back ≥ 0
		{"quaternion", q(0.1, 0.2, 0.9, -0.1), nil, 2.0 / 255},
		{"quaternion:16", q(0.3, 0.3, 0.3, 0.85), nil, 2.0 / 32767},
		{"normal3", Vec3{0, 0, -1}, nil, 0},
		{"normal3", Vec3{0.6, 0.8, 0}, nil, 2.0 / 255},
		{"normal3", Vec3{-0.5773502691896258, 0.5773502691896258, 0.5773502691896258}, nil, 2.0 / 255},
		{"clampedfloat:10,6", -512.0, nil, 0},
		{"clampedfloat:10,6", 511.984375, nil, 0},
		{"clampedfloat:10,6", math.Pi, nil, 1.0 / 64},
		{"uclampedfloat:8,4", 0.0, nil, 0},
		{"uclampedfloat:8,4", 255.9375, nil, 0},
		{"unorm:8", 0.0, nil, 0},
		{"unorm:8", 1.0, nil, 0},
		{"unorm:8", 0.5, nil, 0.5 / 255},
		{"unorm:32", 1.0, nil, 0},
		{"snorm:9", -1.0, nil, 0},
		{"snorm:9", 1.0, nil, 0},
		{"snorm:9", 0.3, nil, 0.5 / 255},
		{"radians:8", 0.0, nil, 0},
		{"radians:8", math.Pi, nil, math.Pi / 256},
		{"radians:8", -math.Pi / 2, 3 * math.Pi / 2, math.Pi / 256}, // wrapped to [0, 2π)
		{"degrees:16", 359.9, nil, 360.0 / 65536},
		{"degrees:8", 45.0, nil, 0},
		{"yaw:9", Vec3{3, 0, 4}, nil, 5 * 2 * math.Pi / 512},
		{"yaw:9", Vec3{0, 0, 0}, nil, 0},
		{"color32rgb", RGBA{0, 255, 128, 255}, nil, 0},
		{"color32rgb", map[string]any{"r": int64(1)}, RGBA{1, 0, 0, 255}, 0},
		{"color32rgba", RGBA{255, 255, 255, 0}, nil, 0},
		{"transform", nil, nil, 0},
		{"transform", TransformRef{math.MaxUint32, strings.Repeat("p", 128)}, nil, 0},
		{"transform", map[string]any{"netid": int64(7), "path": ""}, TransformRef{7, ""}, 0},
	} {
		f := typed(t, "x", tt.typ)
		want := tt.want
		if want == nil {
			want = tt.in
		}
		w := netpak.NewWriter()
		if err := EncodeFields(w, []*Field{f}, map[string]any{"x": tt.in}); err != nil {
			t.Errorf("EncodeFields(%s, %v) = %v", tt.typ, tt.in, err)
			continue
		}
		res := DecodeFields([]*Field{f}, "payload.", "T", netpak.NewReader(w.Bytes()))
		if len(res.Fields) != 1 || res.End != w.Len() || len(errorsOf(res, dissect.Error)) > 0 {
			t.Errorf("round trip %s %v: fields %v, end %d of %d bits, findings %v", tt.typ, tt.in, res.Fields, res.End, w.Len(), res.Findings)
			continue
		}
		if got := res.Fields[0].Value; !near(got, want, tt.tol) {
			t.Errorf("round trip %s %v = %v; want %v (±%g)", tt.typ, tt.in, got, want, tt.tol)
		}
	}
}

// allValues fills every field of testdata/all.toml's "All" message.
func allValues() map[string]any {
	return map[string]any{
		"b": true, "u8": int64(200), "i8": int64(-100), "u16": int64(40000), "i16": int64(-20000),
		"u32": int64(3000000000), "i32": int64(-2000000000), "u64": uint64(1 << 63), "i64": int64(-1 << 40),
		"f": 2.5, "u5": int64(31), "s7": int64(-64), "e": "C", "str": "hello, world", "str5": "hey",
		"fixed": []byte{1, 2, 3}, "blob": "deadbeef", "id": int64(77), "steam": uint64(76561198000000001),
		"g": "01234567-89ab-cdef-0123-456789abcdef", "when": "2026-01-01T12:00:00Z",
		"pos": []any{1.5, -2.0, 3.25}, "pos9": map[string]any{"x": 0.5}, "rot": Quat{0, 0, 0, 1},
		"rot10": []any{0.0, 1.0, 0.0, 0.0}, "n": Vec3{0, 1, 0}, "cf": -3.5, "ucf": 12.25, "un": 1.0,
		"sn": -1.0, "rad": 0.0, "deg": 180.0, "yaw": Vec3{0, 0, 2}, "rgb": RGBA{1, 2, 3, 255},
		"rgba": RGBA{4, 5, 6, 7}, "t": TransformRef{9, "Root/Arm"},
		"l": []any{int64(1), int64(7)}, "ls": []map[string]any{{"k": int64(1)}, {"k": int64(2), "o": true}},
		"o": int64(-5), "os": map[string]any{"a": int64(9)},
		"st": map[string]any{"x": int64(3), "in": map[string]any{"y": "deep"}}, "last": int64(5),
	}
}

func TestEncodeAll(t *testing.T) {
	l := mustParse(t, "all.toml", string(readFile(t, "testdata/all.toml"))).Listeners[0]
	w := netpak.NewWriter()
	if err := l.Encode(w, dissect.S2C, "All", allValues()); err != nil {
		t.Fatal(err)
	}
	res := l.Decode(dissect.S2C, netpak.NewReader(w.Bytes()))
	if len(res.Findings) != 0 || res.Message != "All" || res.End != w.Len() {
		t.Fatalf("Decode(Encode(All)) findings %v, message %q, end %d; want none, All, %d", res.Findings, res.Message, res.End, w.Len())
	}
	got := map[string]any{}
	for _, f := range res.Fields {
		got[f.Name] = f.Value
	}
	for name, want := range map[string]any{
		"payload.message": uint64(3), "payload.e": "C", "payload.blob": []byte{0xde, 0xad, 0xbe, 0xef},
		"payload.pos": Vec3{1.5, -2, 3.25}, "payload.pos9": Vec3{0.5, 0, 0}, "payload.rot10": Quat{0, 1, 0, 0},
		"payload.t": TransformRef{9, "Root/Arm"}, "payload.t0": nil, "payload.l": uint64(2), "payload.l[1]": uint64(7),
		"payload.ls[1].o": true, "payload.ls[0].o": nil, "payload.o": int64(-5), "payload.onone": nil,
		"payload.os": true, "payload.os.a": uint64(9), "payload.st.in.y": "deep", "payload.last": uint64(5),
		"payload.when": "2026-01-01T12:00:00Z", "payload.g": "01234567-89ab-cdef-0123-456789abcdef",
	} {
		if !near(got[name], want, 1e-12) {
			t.Errorf("Decode(Encode(All)) %s = %v; want %v", name, got[name], want)
		}
	}
	// What the decoder returns encodes back to the same bits.
	back := map[string]any{}
	for _, f := range res.Fields {
		name := strings.TrimPrefix(f.Name, "payload.")
		if name != "message" && !strings.ContainsAny(name, ".[") && f.Name != "payload.l" && f.Name != "payload.ls" && f.Name != "payload.os" {
			back[name] = f.Value
		}
	}
	back["l"], back["ls"], back["os"] = []any{uint64(1), uint64(7)}, allValues()["ls"], allValues()["os"]
	back["st"] = allValues()["st"]
	w2 := netpak.NewWriter()
	if err := l.Encode(w2, dissect.S2C, "All", back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w2.Bytes(), w.Bytes()) {
		t.Errorf("Encode(Decode(x)) = % x; want % x", w2.Bytes(), w.Bytes())
	}
}

func TestEncodeRPC(t *testing.T) {
	l := mustParse(t, "all.toml", string(readFile(t, "testdata/all.toml"))).Listeners[0]
	w := netpak.NewWriter()
	err := l.Encode(w, dissect.C2S, "Call", map[string]any{"method": "OnInstance", "instance": int64(12), "frame": int64(99), "tag": "ab"})
	if err != nil {
		t.Fatal(err)
	}
	res := l.Decode(dissect.C2S, netpak.NewReader(w.Bytes()))
	want := []span{
		{"payload.message", 0, 1, uint64(1)},
		{"payload.method", 1, 2, "OnInstance"}, // CountBits(3 methods) = 2
		{"payload.instance", 3, 32, uint64(12)},
		{"payload.frame", 35, 32, uint64(99)},
		{"payload.tag", 67, 21, "ab"}, // flag, 4 bits, align from 72 to 72, 2 bytes
	}
	if got := spansOf(res); !reflect.DeepEqual(got, want) || res.Method != "OnInstance" || len(res.Findings) != 0 {
		t.Errorf("Decode(Encode(Call)) = %v, %q, %v; want %v", got, res.Method, res.Findings, want)
	}
}

func TestEncodeErrors(t *testing.T) {
	l := mustParse(t, "all.toml", string(readFile(t, "testdata/all.toml"))).Listeners[0]
	for _, tt := range []struct {
		dir     dissect.Dir
		message string
		values  map[string]any
		want    string
	}{
		{dissect.S2C, "Nope", nil, `schema encode: message: no s2c message "Nope"`},
		{dissect.S2C, "All", map[string]any{"u8": int64(256)}, "schema encode: u8: 256 does not fit in 8 unsigned bits"},
		{dissect.S2C, "All", map[string]any{"i8": int64(-129)}, "schema encode: i8: -129 does not fit in 8 signed bits"},
		{dissect.S2C, "All", map[string]any{"u8": 1.5}, "schema encode: u8: want an integer, have 1.5 (float64)"},
		{dissect.S2C, "All", map[string]any{"typo": 1}, "schema encode: typo: no such field"},
		{dissect.S2C, "All", map[string]any{"e": "D"}, `schema encode: e: "D" is not a name of this enum`},
		{dissect.S2C, "All", map[string]any{"fixed": []byte{1}}, "schema encode: fixed: 1 bytes, the field holds exactly 3"},
		{dissect.S2C, "All", map[string]any{"l": []any{1, 2, 3, 4, 5, 6}}, "schema encode: l: 6 items, the list holds at most 5"},
		{dissect.S2C, "All", map[string]any{"ls": []any{map[string]any{"z": 1}}}, "schema encode: ls[0].z: no such field"},
		{dissect.S2C, "All", map[string]any{"str5": strings.Repeat("x", 33)}, "schema encode: str5: 33 bytes, a 5-bit length holds at most 32"},
		{dissect.S2C, "All", map[string]any{"g": "nope"}, `schema encode: g: "nope" is not a GUID (00112233-4455-6677-8899-aabbccddeeff)`},
		{dissect.S2C, "All", map[string]any{"pos": map[string]any{"w": 1}}, "schema encode: pos: unknown component \"w\" (want x, y, z)"},
		{dissect.S2C, "All", map[string]any{"st": map[string]any{"in": map[string]any{"y": 3}}}, "schema encode: st.in.y: want a string, have int"},
		{dissect.C2S, "Call", map[string]any{"method": "Nope"}, `schema encode: method: no method "Nope"`},
		{dissect.C2S, "Call", map[string]any{"method": "Static", "instance": 1}, "schema encode: instance: not an instance method"},
	} {
		err := l.Encode(netpak.NewWriter(), tt.dir, tt.message, tt.values)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Encode(%s, %v) = %v; want %s", tt.message, tt.values, err, tt.want)
		}
	}
}
