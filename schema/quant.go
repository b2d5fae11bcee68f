package schema

import (
	"math"

	"github.com/usmnscope/usmnscope/netpak"
)

// The quantised types of wire.md 1.3, decoded in float64 straight from the
// formulas. netpak's readers return the float32 the game would compute;
// here the exact value of the formula is wanted instead, so that a
// vector3 component of 4095.9921875 shows as that and not as float32's
// shortest spelling 4095.9922, and schema.md's "decoded per wire.md" holds
// to the last bit. Each composite checks its whole length first, so a cut
// names the whole read, as netpak's composites do.

// need checks that n more bits exist; if not it fails the reader with a
// ShortError for all n of them.
func (d *decoder) need(n int) bool {
	if d.r.Err() != nil {
		return false
	}
	if d.r.Remaining() < n {
		d.r.Skip(n) // records the ShortError naming n bits at this bit
		return false
	}
	return true
}

// clamped reads ClampedFloat (signed: offset 2^(i−1)) or
// UnsignedClampedFloat: i bits of the integer part, then f bits of the
// fraction scaled by 2^f.
func (d *decoder) clamped(i, f int, signed bool) float64 {
	if !d.need(i + f) {
		return 0
	}
	iv := int64(d.r.Bits(i))
	fv := d.r.Bits(f)
	if signed && i > 0 {
		iv -= 1 << (i - 1)
	}
	return float64(iv) + math.Ldexp(float64(fv), -f)
}

func (d *decoder) vector3(i, f int) Vec3 {
	if !d.need(3 * (i + f)) {
		return Vec3{}
	}
	return Vec3{d.clamped(i, f, true), d.clamped(i, f, true), d.clamped(i, f, true)}
}

// unorm reads n bits of round(v·(2^n − 1)).
func (d *decoder) unorm(n int) float64 {
	x := d.r.Bits(n)
	return float64(x) / float64(uint64(1)<<n-1)
}

// snorm reads n bits: the low n−1 the magnitude round(|v|·(2^(n−1) − 1)),
// bit n−1 the sign.
func (d *decoder) snorm(n int) float64 {
	x := uint64(d.r.Bits(n))
	if n < 2 {
		return 0
	}
	m := uint64(1)<<(n-1) - 1
	v := float64(x&m) / float64(m)
	if x>>(n-1) != 0 {
		v = -v
	}
	return v
}

// quaternion reads "smallest three": the largest component's index in 2
// bits, the other three as snorm(b) of c·sign(largest)·√2; the largest is
// √(1 − Σ others²).
func (d *decoder) quaternion(b int) Quat {
	if !d.need(2 + 3*b) {
		return Quat{}
	}
	largest := int(d.r.Bits(2))
	var c [4]float64
	sum := 0.0
	for i := range c {
		if i != largest {
			c[i] = d.snorm(b) / math.Sqrt2
			sum += c[i] * c[i]
		}
	}
	c[largest] = math.Sqrt(max(0, 1-sum))
	return Quat{c[0], c[1], c[2], c[3]}
}

// normal3 reads NormalVector3: the largest index in 2 bits, its sign bit
// (1 = negative), the other two as snorm(b) of c·√2. Index 3 names no
// component of a vector; wire.md does not say what the game does with it,
// so it is a range error, as in netpak.
func (d *decoder) normal3(b int) Vec3 {
	if !d.need(3 + 2*b) {
		return Vec3{}
	}
	at := d.r.Pos()
	largest := int(d.r.Bits(2))
	if largest == 3 {
		d.r.SetErr(&netpak.BitError{Bit: at, Err: netpak.ErrRange, Detail: "NormalVector3: largest component index 3"})
		return Vec3{}
	}
	neg := d.r.Bit()
	var c [3]float64
	sum := 0.0
	for i := range c {
		if i != largest {
			c[i] = d.snorm(b) / math.Sqrt2
			sum += c[i] * c[i]
		}
	}
	c[largest] = math.Sqrt(max(0, 1-sum))
	if neg {
		c[largest] = -c[largest]
	}
	return Vec3{c[0], c[1], c[2]}
}

// angle reads n bits of v/period·2^n.
func (d *decoder) angle(n int, period float64) float64 {
	return math.Ldexp(float64(d.r.Bits(n)), -n) * period
}

// yaw reads VectorAsYaw: a Float magnitude, then the yaw in n bits of
// degrees, rebuilt in Unity's convention (m·sin yaw, 0, m·cos yaw).
func (d *decoder) yaw(n int) Vec3 {
	if !d.need(32 + n) {
		return Vec3{}
	}
	m := f64(d.r.Float())
	y := d.angle(n, 360) * math.Pi / 180
	return Vec3{m * math.Sin(y), 0, m * math.Cos(y)}
}
