package export

import (
	"math"

	"github.com/usmnscope/usmnscope/schema"
)

// PayloadColumns returns a column for each payload field the schemas of
// set name (`--payload-columns`): the top-level fields of every listener
// message and method, vanilla InvokeMethod parameters and ULinkRPC DTO
// members, as `payload.<name>` (a struct's fields as
// `payload.<name>.<field>`), plus `payload.message`, `payload.method` and
// `payload.instance`, which the decoder adds (schema.md section 3). A
// column's type follows the schema type: integers INT64 (uint64 and
// steamid UINT64), floating and quantised kinds DOUBLE, bool BOOLEAN,
// everything else STRING (a vector's or colour's JSON text). A list is no
// column: its items stay in the payload map. A name the schemas give two
// types gets the wider: INT64 with UINT64 is INT64, a number with a
// floating kind DOUBLE, anything else STRING. Columns are in order of
// first appearance.
func PayloadColumns(set *schema.Set) []Column {
	pc := &payloadCols{at: map[string]int{}}
	files := set.Files()
	for _, f := range files {
		for _, l := range f.Listeners {
			pc.add("payload.message", Int64)
			for _, side := range []*schema.Side{l.Server, l.Client} {
				if side == nil {
					continue
				}
				for _, m := range side.Messages {
					pc.fields("payload.", m.Fields)
				}
				pc.methods(side.Methods)
			}
		}
		pc.methods(f.Vanilla.ClientMethods)
		pc.methods(f.Vanilla.ServerMethods)
		for _, d := range f.ULinkRPC.Types {
			for _, m := range d.Members {
				if t, ok := memberType(m.Type); ok {
					pc.add("payload."+m.Name, t)
				}
			}
		}
	}
	return pc.cols
}

type payloadCols struct {
	cols []Column
	at   map[string]int
}

func (pc *payloadCols) methods(ms []*schema.Method) {
	for _, m := range ms {
		pc.add("payload.method", String)
		if m.Instance {
			pc.add("payload.instance", Int64)
		}
		pc.fields("payload.", m.Params)
	}
}

func (pc *payloadCols) fields(prefix string, fs []*schema.Field) {
	for _, f := range fs {
		pc.field(prefix+f.Name, f)
	}
}

func (pc *payloadCols) field(name string, f *schema.Field) {
	switch f.Type.Kind {
	case schema.Align, schema.List, schema.Invalid:
		return
	case schema.Optional:
		if f.Item != nil {
			pc.field(name, f.Item)
		}
		return
	case schema.Struct:
		pc.fields(name+".", f.Fields)
		return
	}
	pc.add(name, kindType(f.Type.Kind))
}

func (pc *payloadCols) add(name string, t Type) {
	if i, ok := pc.at[name]; ok {
		pc.cols[i].Type = wider(pc.cols[i].Type, t)
		return
	}
	pc.at[name] = len(pc.cols)
	pc.cols = append(pc.cols, Column{Name: name, Type: t})
}

// wider is the type of a column that holds values of a and b.
func wider(a, b Type) Type {
	switch {
	case a == b:
		return a
	case a == Int64 && b == UInt64 || a == UInt64 && b == Int64:
		return Int64
	case numeric(a) && numeric(b):
		return Double
	}
	return String
}

func numeric(t Type) bool { return t == Int64 || t == UInt64 || t == Double }

// kindType is a schema kind's column type.
func kindType(k schema.Kind) Type {
	switch k {
	case schema.Bool:
		return Boolean
	case schema.UInt8, schema.Int8, schema.UInt16, schema.Int16, schema.UInt32, schema.Int32,
		schema.Int64, schema.UInt, schema.Signed, schema.NetID:
		return Int64
	case schema.UInt64, schema.SteamID:
		return UInt64
	case schema.Float, schema.ClampedFloat, schema.UClampedFloat, schema.UNorm, schema.SNorm,
		schema.Radians, schema.Degrees:
		return Double
	}
	return String
}

// memberType is a MemoryPack member type's column type; a list or a DTO
// is none.
func memberType(t string) (Type, bool) {
	switch t {
	case "bool":
		return Boolean, true
	case "byte", "sbyte", "short", "ushort", "int", "uint", "long":
		return Int64, true
	case "ulong":
		return UInt64, true
	case "float", "double":
		return Double, true
	case "string":
		return String, true
	}
	return 0, false
}

// asInt64 converts a decoded number to int64; false when it is none or
// does not fit.
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), true
		}
	}
	return 0, false
}

func asUint64(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint64:
		return x, true
	case uint32:
		return uint64(x), true
	case float64:
		if x >= 0 && x == math.Trunc(x) && x < 1<<64 {
			return uint64(x), true
		}
	}
	if i, ok := asInt64(v); ok && i >= 0 {
		return uint64(i), true
	}
	return 0, false
}

func asFloat64(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	if i, ok := asInt64(v); ok {
		return float64(i), true
	}
	return 0, false
}
