package schema

import (
	"math"
	"strconv"
)

// Field values beyond the scalars of netpak.Span (bool, uint64, int64,
// float64, string, []byte, nil). Each marshals to JSON as schema.md
// section 3 prescribes and prints with String for text outputs (through
// fmt, so views escape it like any other value).

// Vec3 is the value of vector3, normal3 and yaw fields: {"x","y","z"}.
type Vec3 struct{ X, Y, Z float64 }

// Quat is the value of a quaternion field: {"x","y","z","w"}.
type Quat struct{ X, Y, Z, W float64 }

// RGBA is the value of color32rgb and color32rgba fields: {"r","g","b","a"}
// (alpha is 255 for color32rgb, wire.md 1.3).
type RGBA struct {
	R uint8 `json:"r"`
	G uint8 `json:"g"`
	B uint8 `json:"b"`
	A uint8 `json:"a"`
}

// TransformRef is the value of a set transform field: {"netid","path"}.
// An unset transform has the value nil (JSON null).
type TransformRef struct {
	NetID uint32 `json:"netid"`
	Path  string `json:"path"`
}

func (v Vec3) String() string { return "(" + floats(v.X, v.Y, v.Z) + ")" }
func (q Quat) String() string { return "(" + floats(q.X, q.Y, q.Z, q.W) + ")" }

func (c RGBA) String() string {
	return "rgba(" + strconv.Itoa(int(c.R)) + ", " + strconv.Itoa(int(c.G)) + ", " +
		strconv.Itoa(int(c.B)) + ", " + strconv.Itoa(int(c.A)) + ")"
}

func (t TransformRef) String() string {
	return "netid " + strconv.FormatUint(uint64(t.NetID), 10) + " " + strconv.Quote(t.Path)
}

// MarshalJSON writes {"x":…,"y":…,"z":…}. A component that is not finite
// (yaw's magnitude is a raw Float) is written as a string, as the record
// writer does for scalar floats, since JSON has no NaN.
func (v Vec3) MarshalJSON() ([]byte, error) {
	return jsonFloats([]string{"x", "y", "z"}, v.X, v.Y, v.Z), nil
}

// MarshalJSON writes {"x":…,"y":…,"z":…,"w":…}.
func (q Quat) MarshalJSON() ([]byte, error) {
	return jsonFloats([]string{"x", "y", "z", "w"}, q.X, q.Y, q.Z, q.W), nil
}

func jsonFloats(names []string, vs ...float64) []byte {
	b := []byte{'{'}
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, names[i]...)
		b = append(b, '"', ':')
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = strconv.AppendQuote(b, strconv.FormatFloat(v, 'g', -1, 64))
		} else {
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
	}
	return append(b, '}')
}

func floats(vs ...float64) string {
	var b []byte
	for i, v := range vs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return string(b)
}

// f64 widens a float32 the game computed to the float64 nearest its
// shortest decimal spelling, so that 0.1f shows as 0.1 rather than
// 0.10000000149011612 in every output, while staying a float64 as
// netpak.Span's values are.
func f64(f float32) float64 {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return float64(f)
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil {
		return float64(f)
	}
	return v
}
