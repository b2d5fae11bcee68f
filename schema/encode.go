package schema

import (
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// The encoder writes payloads from named values, for the scenario
// generator: a scenario gives a payload's fields by name (schema.md
// section 3 names, without "payload.") and gets the bits the game would
// write. Values are what a TOML decoder yields (int64, float64, string,
// bool, []any, map[string]any, time.Time) or the Go values the decoder
// returns (uint64, Vec3, RGBA, …), so a decoded payload encodes back:
//
//	integers      any Go integer, or an integral float
//	float kinds   any Go number
//	enum:N        the name, or the number
//	string        string or []byte (written as given, valid UTF-8 or not)
//	bytes         []byte, or a string of hex digits
//	guid          "00112233-4455-6677-8899-aabbccddeeff" or netpak.GUID
//	datetime      time.Time, an RFC 3339 string, netpak.DateTime, or the raw ToBinary integer
//	vector3 normal3 yaw   Vec3, netpak.Vector3, {x, y, z} or [x, y, z]
//	quaternion    Quat, netpak.Quaternion, {x, y, z, w} or [x, y, z, w]
//	colours       RGBA, netpak.Color32 or {r, g, b, a} (a defaults to 255)
//	transform     nil (unset), TransformRef, netpak.Transform or {netid, path}
//	list          any slice or array of item values
//	optional      nil or missing (unset), or the item's value
//	struct        map[string]any of its fields
//
// A missing value is the type's zero value; a key naming no field is an
// error, so a typo cannot go unnoticed.

// EncodeError says which field could not be written and why.
type EncodeError struct {
	Field string // "items[1].count"
	Msg   string
}

func (e *EncodeError) Error() string { return "schema encode: " + e.Field + ": " + e.Msg }

// Encode writes a payload of this listener in direction dir: the message
// enum of the named message, then its fields from values. For an RPC
// message, values["method"] names the method, values["instance"] gives an
// instance method's NetID and the other keys its parameters.
func (l *Listener) Encode(w *netpak.Writer, dir dissect.Dir, message string, values map[string]any) error {
	side := l.Server
	if dir == dissect.S2C {
		side = l.Client
	}
	if side == nil {
		return &EncodeError{Field: "message", Msg: fmt.Sprintf("schema %s has no %s messages", l.Name(), dir)}
	}
	i := slices.IndexFunc(side.Messages, func(m *Message) bool { return m.Name == message })
	if i < 0 {
		return &EncodeError{Field: "message", Msg: fmt.Sprintf("no %s message %q", dir, message)}
	}
	m := side.Messages[i]
	w.Bits(m.Value, side.EnumBits)
	if !m.RPC {
		return EncodeFields(w, m.Fields, values)
	}
	name, _ := values["method"].(string)
	j := slices.IndexFunc(side.Methods, func(me *Method) bool { return me.Name == name })
	if j < 0 {
		return &EncodeError{Field: "method", Msg: fmt.Sprintf("no method %q", name)}
	}
	w.Bits(uint32(j), netpak.CountBits(uint32(len(side.Methods))))
	rest := make(map[string]any, len(values))
	for k, v := range values {
		if k != "method" {
			rest[k] = v
		}
	}
	return side.Methods[j].Encode(w, rest)
}

// Encode writes a method's instance NetID (values["instance"]) and its
// parameters; the caller has written the index (for vanilla methods its
// width is the profile's, wire.md 3).
func (m *Method) Encode(w *netpak.Writer, values map[string]any) error {
	if m.Instance {
		id, err := uintValue(values["instance"], 32)
		if err != nil {
			return &EncodeError{Field: "instance", Msg: err.Error()}
		}
		w.NetID(uint32(id))
	}
	rest := values
	if _, ok := values["instance"]; ok {
		if !m.Instance {
			return &EncodeError{Field: "instance", Msg: "not an instance method"}
		}
		rest = make(map[string]any, len(values))
		for k, v := range values {
			if k != "instance" {
				rest[k] = v
			}
		}
	}
	return EncodeFields(w, m.Params, rest)
}

// EncodeFields writes fields from values by name.
func EncodeFields(w *netpak.Writer, fields []*Field, values map[string]any) error {
	return encodeFields(w, fields, values, "", 0)
}

func encodeFields(w *netpak.Writer, fields []*Field, values map[string]any, prefix string, depth int) error {
	for _, k := range sortedKeys(values) {
		if !slices.ContainsFunc(fields, func(f *Field) bool { return f.Name == k && f.Type.Kind != Align }) {
			return &EncodeError{Field: prefix + k, Msg: "no such field"}
		}
	}
	for _, f := range fields {
		if err := encode(w, f, values[f.Name], prefix+f.Name, depth); err != nil {
			return err
		}
	}
	return nil
}

func encode(w *netpak.Writer, f *Field, v any, name string, depth int) error {
	if f == nil {
		return &EncodeError{Field: name, Msg: "no item type"}
	}
	if depth > MaxDepth {
		return &EncodeError{Field: name, Msg: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}
	}
	fail := func(err error) error { return &EncodeError{Field: name, Msg: err.Error()} }
	t := f.Type
	switch t.Kind {
	case Align:
		w.AlignToByte()
		return nil
	case Struct:
		m, err := mapValue(v)
		if err != nil {
			return fail(err)
		}
		return encodeFields(w, f.Fields, m, name+".", depth+1)
	case List:
		items, err := sliceValue(v)
		if err != nil {
			return fail(err)
		}
		if len(items) > t.A {
			return fail(fmt.Errorf("%d items, the list holds at most %d", len(items), t.A))
		}
		w.ListCount(len(items), t.A)
		for i, x := range items {
			if err := encode(w, f.Item, x, index(name, i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case Optional:
		w.Bit(v != nil)
		if v == nil {
			return nil
		}
		return encode(w, f.Item, v, name, depth+1)
	}
	if err := scalar(w, f, v); err != nil {
		return fail(err)
	}
	return nil
}

// widths of the fixed integer kinds, for range checks.
var intWidth = map[Kind]int{UInt8: 8, Int8: 8, UInt16: 16, Int16: 16, UInt32: 32, Int32: 32, UInt64: 64, Int64: 64}

func scalar(w *netpak.Writer, f *Field, v any) error {
	t := f.Type
	switch t.Kind {
	case Bool:
		b, ok := v.(bool)
		if v != nil && !ok {
			return fmt.Errorf("want true or false, have %T", v)
		}
		w.Bit(b)
	case UInt8, UInt16, UInt32, UInt64, NetID, SteamID, UInt:
		n := intWidth[t.Kind]
		switch t.Kind {
		case NetID:
			n = 32
		case SteamID:
			n = 64
		case UInt:
			n = t.A
		}
		x, err := uintValue(v, n)
		if err != nil {
			return err
		}
		if n == 64 {
			w.UInt64(x)
		} else {
			w.Bits(uint32(x), n)
		}
	case Int8, Int16, Int32, Int64, Signed:
		n := intWidth[t.Kind]
		if t.Kind == Signed {
			n = t.A
		}
		x, err := intValue(v, n)
		if err != nil {
			return err
		}
		switch {
		case t.Kind == Signed:
			w.SignedInt(int32(x), n)
		case n == 64:
			w.Int64(x)
		default:
			w.Bits(uint32(x), n)
		}
	case Enum:
		x, err := enumValue(f, v)
		if err != nil {
			return err
		}
		w.Bits(x, t.A)
	case String, Transform:
		return stringish(w, t, v)
	case Bytes, ByteArray:
		b, err := bytesValue(v)
		if err != nil {
			return err
		}
		if t.Kind == Bytes && v == nil {
			b = make([]byte, t.A) // the zero value of a fixed block
		}
		if t.Kind == Bytes && len(b) != t.A {
			return fmt.Errorf("%d bytes, the field holds exactly %d", len(b), t.A)
		}
		if t.Kind == ByteArray {
			if len(b) > math.MaxUint8 {
				return fmt.Errorf("%d bytes, a UInt8 length holds at most 255", len(b))
			}
			w.UInt8(uint8(len(b)))
		}
		w.RawBytes(b)
	case GUID:
		g, err := guidValue(v)
		if err != nil {
			return err
		}
		w.GUID(g)
	case DateTime:
		d, err := dateValue(v)
		if err != nil {
			return err
		}
		w.DateTime(d)
	case Color32RGB, Color32RGBA:
		c, err := colorValue(v)
		if err != nil {
			return err
		}
		if t.Kind == Color32RGB {
			w.Color32RGB(c)
		} else {
			w.Color32RGBA(c)
		}
	default:
		return floatish(w, t, v)
	}
	return nil
}

func stringish(w *netpak.Writer, t Type, v any) error {
	if t.Kind == Transform {
		tr, err := transformValue(v)
		if err != nil {
			return err
		}
		w.Transform(tr)
		return nil
	}
	switch s := v.(type) {
	case nil:
		w.String("", t.A)
	case string:
		if len(s) > 1<<t.A {
			return fmt.Errorf("%d bytes, a %d-bit length holds at most %d", len(s), t.A, 1<<t.A)
		}
		w.String(s, t.A)
	case []byte:
		if len(s) > 1<<t.A {
			return fmt.Errorf("%d bytes, a %d-bit length holds at most %d", len(s), t.A, 1<<t.A)
		}
		w.StringBytes(s, t.A)
	default:
		return fmt.Errorf("want a string, have %T", v)
	}
	return nil
}

// floatish writes the float kinds and the vector kinds made of them.
func floatish(w *netpak.Writer, t Type, v any) error {
	switch t.Kind {
	case Vector3, Normal3, Yaw:
		c, err := floatsValue(v, "x", "y", "z")
		if err != nil {
			return err
		}
		vec := netpak.Vector3{X: c[0], Y: c[1], Z: c[2]}
		switch t.Kind {
		case Vector3:
			w.ClampedVector3(vec, t.A, t.B)
		case Normal3:
			w.NormalVector3(vec, t.A)
		default:
			w.VectorAsYaw(vec, t.A)
		}
		return nil
	case Quaternion:
		c, err := floatsValue(v, "x", "y", "z", "w")
		if err != nil {
			return err
		}
		w.Quaternion(netpak.Quaternion{X: c[0], Y: c[1], Z: c[2], W: c[3]}, t.A)
		return nil
	}
	x, err := floatValue(v)
	if err != nil {
		return err
	}
	switch t.Kind {
	case Float:
		w.Float(x)
	case ClampedFloat:
		w.ClampedFloat(x, t.A, t.B)
	case UClampedFloat:
		w.UnsignedClampedFloat(x, t.A, t.B)
	case UNorm:
		w.UnsignedNormalizedFloat(x, t.A)
	case SNorm:
		w.SignedNormalizedFloat(x, t.A)
	case Radians:
		w.Radians(x, t.A)
	case Degrees:
		w.Degrees(x, t.A)
	default:
		return fmt.Errorf("field type %v cannot be written", t)
	}
	return nil
}

// number reads any Go number as an int64 or uint64 (integral floats too).
func number(v any) (i int64, u uint64, neg, ok bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i = rv.Int()
		return i, uint64(i), i < 0, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u = rv.Uint()
		return int64(u), u, false, true
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if f != math.Trunc(f) || f < math.MinInt64 || f >= 1<<64 {
			return 0, 0, false, false
		}
		if f < 0 {
			return int64(f), uint64(int64(f)), true, true
		}
		u = uint64(f)
		return int64(u), u, false, true
	}
	return 0, 0, false, false
}

func uintValue(v any, bits int) (uint64, error) {
	if v == nil {
		return 0, nil
	}
	_, u, neg, ok := number(v)
	if !ok {
		return 0, fmt.Errorf("want an integer, have %v (%T)", v, v)
	}
	if neg || bits < 64 && u >= 1<<bits {
		return 0, fmt.Errorf("%v does not fit in %d unsigned bits", v, bits)
	}
	return u, nil
}

func intValue(v any, bits int) (int64, error) {
	if v == nil {
		return 0, nil
	}
	i, u, neg, ok := number(v)
	if !ok {
		return 0, fmt.Errorf("want an integer, have %v (%T)", v, v)
	}
	if !neg && u > math.MaxInt64 || bits < 64 && (i < -1<<(bits-1) || i >= 1<<(bits-1)) {
		return 0, fmt.Errorf("%v does not fit in %d signed bits", v, bits)
	}
	return i, nil
}

func floatValue(v any) (float32, error) {
	if v == nil {
		return 0, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return float32(rv.Float()), nil
	}
	if i, u, neg, ok := number(v); ok {
		if neg {
			return float32(i), nil
		}
		return float32(u), nil
	}
	return 0, fmt.Errorf("want a number, have %v (%T)", v, v)
}

// enumValue accepts a listed name, "Unknown(n)" as the decoder writes an
// unlisted value, or a number that fits the enum's bits.
func enumValue(f *Field, v any) (uint32, error) {
	if s, ok := v.(string); ok {
		for x, name := range f.Values {
			if name == s {
				return x, nil
			}
		}
		if in, ok := strings.CutPrefix(s, "Unknown("); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(in, ")"), 10, 32); err == nil {
				v = n
			}
		}
		if _, ok := v.(string); ok {
			return 0, fmt.Errorf("%q is not a name of this enum", s)
		}
	}
	x, err := uintValue(v, f.Type.A)
	return uint32(x), err
}

func bytesValue(v any) ([]byte, error) {
	switch b := v.(type) {
	case nil:
		return nil, nil
	case []byte:
		return b, nil
	case string:
		out, err := hex.DecodeString(strings.ReplaceAll(b, " ", ""))
		if err != nil {
			return nil, fmt.Errorf("bytes as a string must be hex: %v", err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want bytes or a hex string, have %T", v)
}

func guidValue(v any) (netpak.GUID, error) {
	var g netpak.GUID
	switch x := v.(type) {
	case nil:
		return g, nil
	case netpak.GUID:
		return x, nil
	case string:
		// .NET's "D" format: the first three groups little-endian in
		// ToByteArray() order (netpak.GUID.String is the inverse).
		b, err := hex.DecodeString(strings.ReplaceAll(x, "-", ""))
		if err != nil || len(b) != 16 || len(x) != 36 {
			return g, fmt.Errorf("%q is not a GUID (00112233-4455-6677-8899-aabbccddeeff)", x)
		}
		g = netpak.GUID{b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6]}
		copy(g[8:], b[8:])
		return g, nil
	}
	return g, fmt.Errorf("want a GUID string, have %T", v)
}

func dateValue(v any) (netpak.DateTime, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case netpak.DateTime:
		return x, nil
	case time.Time:
		return netpak.DateTimeOf(x), nil
	case string:
		t, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			return 0, fmt.Errorf("%q is not an RFC 3339 time", x)
		}
		return netpak.DateTimeOf(t), nil
	}
	i, err := intValue(v, 64)
	if err != nil {
		return 0, fmt.Errorf("want a time, have %T", v)
	}
	return netpak.DateTime(i), nil
}

func mapValue(v any) (map[string]any, error) {
	switch m := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return m, nil
	}
	return nil, fmt.Errorf("want a table of fields, have %T", v)
}

func sliceValue(v any) ([]any, error) {
	if v == nil {
		return nil, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, fmt.Errorf("want a list, have %T", v)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, nil
}

// floatsValue reads a vector or quaternion from its value types, a table
// of named components (missing ones are 0) or a list of them in order.
func floatsValue(v any, names ...string) ([]float32, error) {
	out := make([]float32, len(names))
	var comps []any
	switch x := v.(type) {
	case nil:
		return out, nil
	case Vec3:
		comps = []any{x.X, x.Y, x.Z}
	case netpak.Vector3:
		comps = []any{x.X, x.Y, x.Z}
	case Quat:
		comps = []any{x.X, x.Y, x.Z, x.W}
	case netpak.Quaternion:
		comps = []any{x.X, x.Y, x.Z, x.W}
	case map[string]any:
		for k := range x {
			if !slices.Contains(names, k) {
				return nil, fmt.Errorf("unknown component %q (want %s)", k, strings.Join(names, ", "))
			}
		}
		for _, n := range names {
			comps = append(comps, x[n])
		}
	default:
		s, err := sliceValue(v)
		if err != nil {
			return nil, fmt.Errorf("want {%s}, have %T", strings.Join(names, ", "), v)
		}
		comps = s
	}
	if len(comps) != len(names) {
		return nil, fmt.Errorf("want %d components, have %d", len(names), len(comps))
	}
	for i, c := range comps {
		f, err := floatValue(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", names[i], err)
		}
		out[i] = f
	}
	return out, nil
}

func colorValue(v any) (netpak.Color32, error) {
	switch x := v.(type) {
	case nil:
		return netpak.Color32{A: 255}, nil
	case RGBA:
		return netpak.Color32(x), nil
	case netpak.Color32:
		return x, nil
	case map[string]any:
		c := [4]uint64{3: 255}
		for k, cv := range x {
			i := strings.Index("rgba", k)
			if len(k) != 1 || i < 0 {
				return netpak.Color32{}, fmt.Errorf("unknown component %q (want r, g, b, a)", k)
			}
			n, err := uintValue(cv, 8)
			if err != nil {
				return netpak.Color32{}, fmt.Errorf("%s: %v", k, err)
			}
			c[i] = n
		}
		return netpak.Color32{R: uint8(c[0]), G: uint8(c[1]), B: uint8(c[2]), A: uint8(c[3])}, nil
	}
	return netpak.Color32{}, fmt.Errorf("want {r, g, b, a}, have %T", v)
}

func transformValue(v any) (netpak.Transform, error) {
	switch x := v.(type) {
	case nil:
		return netpak.Transform{}, nil
	case netpak.Transform:
		return x, nil
	case TransformRef:
		return netpak.Transform{Valid: true, NetID: x.NetID, Path: x.Path}, nil
	case map[string]any:
		t := netpak.Transform{Valid: true}
		for k := range x {
			if k != "netid" && k != "path" {
				return t, fmt.Errorf("unknown key %q (want netid, path)", k)
			}
		}
		id, err := uintValue(x["netid"], 32)
		if err != nil {
			return t, fmt.Errorf("netid: %v", err)
		}
		t.NetID = uint32(id)
		if p, ok := x["path"]; ok {
			s, ok := p.(string)
			if !ok {
				return t, fmt.Errorf("path: want a string, have %T", p)
			}
			t.Path = s
		}
		if len(t.Path) > 1<<netpak.TransformPathBits {
			return t, fmt.Errorf("path of %d bytes, a String(7) holds at most 128", len(t.Path))
		}
		return t, nil
	}
	return netpak.Transform{}, fmt.Errorf("want {netid, path} or nothing, have %T", v)
}
