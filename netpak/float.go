package netpak

import "math"

// Fixed-point and packed floats of wire.md section 1.3. Each comes as a
// Reader method and the matching Writer method, so round trips can be
// tested. The caller always names the widths: the game's call sites differ
// (ClampedVector3 is (13, 7) by default but (13, 9) or (13, 11) in places).
//
// Widths are validated before anything is read: a part wider than 32 bits
// or negative sets ErrRange. ClampedFloat reads its integer and fraction as
// two separate reads, so intBits+fracBits may exceed 32.

// checkWidths reports whether both widths are in 0..32, setting ErrRange
// otherwise. what names the read in the error.
func (r *Reader) checkWidths(what string, a, b int) bool {
	if r.failed() {
		return false
	}
	if uint(a) > 32 || uint(b) > 32 {
		bad := a
		if uint(a) <= 32 {
			bad = b
		}
		r.fail(r.pos, ErrRange, "%s: bit width %d", what, bad)
		return false
	}
	return true
}

// offset returns 2^(n−1), the bias of an n-bit offset-binary integer, or 0
// for n = 0.
func offset(n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64(1) << (n - 1)
}

// inverse returns 2^−n exactly for n in 0..32, built from its exponent
// bits: cheaper than math.Ldexp on the ClampedVector3 path.
func inverse(n int) float64 { return math.Float64frombits(uint64(1023-n) << 52) }

// mask returns 2^n − 1 for n in 0..32.
func mask(n int) uint32 { return uint32(1)<<uint(n) - 1 }

// ClampedFloat reads intBits bits of floor(v) + 2^(intBits−1), then fracBits
// bits of the fraction scaled by 2^fracBits (wire.md 1.3).
func (r *Reader) ClampedFloat(intBits, fracBits int) float32 {
	if !r.checkWidths("ClampedFloat", intBits, fracBits) || !r.need(intBits+fracBits) {
		return 0
	}
	return r.clamped(intBits, fracBits)
}

// clamped reads a ClampedFloat whose widths and length have been checked.
func (r *Reader) clamped(intBits, fracBits int) float32 {
	i := r.Bits(intBits)
	f := r.Bits(fracBits)
	return float32(float64(int64(i)-offset(intBits)) + float64(f)*inverse(fracBits))
}

// UnsignedClampedFloat is ClampedFloat without the offset: the integer part
// is stored as is.
func (r *Reader) UnsignedClampedFloat(intBits, fracBits int) float32 {
	if !r.checkWidths("UnsignedClampedFloat", intBits, fracBits) || !r.need(intBits+fracBits) {
		return 0
	}
	i := r.Bits(intBits)
	f := r.Bits(fracBits)
	return float32(float64(i) + float64(f)*inverse(fracBits))
}

// ClampedVector3 reads three ClampedFloats, x then y then z. The game's
// default widths are (13, 7): 60 bits, range [−4096, 4096), step 1/128.
func (r *Reader) ClampedVector3(intBits, fracBits int) Vector3 {
	if !r.checkWidths("ClampedVector3", intBits, fracBits) || !r.need(3*(intBits+fracBits)) {
		return Vector3{}
	}
	return Vector3{
		X: r.clamped(intBits, fracBits),
		Y: r.clamped(intBits, fracBits),
		Z: r.clamped(intBits, fracBits),
	}
}

// UnsignedNormalizedFloat reads n bits of round(v·(2^n − 1)), v in [0, 1].
func (r *Reader) UnsignedNormalizedFloat(n int) float32 {
	x := r.Bits(n)
	if r.failed() || n == 0 {
		return 0
	}
	return float32(float64(x) / float64(mask(n)))
}

// SignedNormalizedFloat reads n bits: the low n−1 bits are
// round(|v|·(2^(n−1) − 1)), bit n−1 is set for a negative v; v in [−1, 1].
// With n < 2 there is no magnitude and the value is zero.
func (r *Reader) SignedNormalizedFloat(n int) float32 {
	x := r.Bits(n)
	if r.failed() || n < 2 {
		return 0
	}
	v := float32(float64(x&mask(n-1)) / float64(mask(n-1)))
	if x>>(n-1) != 0 {
		v = -v
	}
	return v
}

// Quaternion reads a "smallest three" quaternion (wire.md 1.3): 2 bits give
// the index of the largest component (0 x, 1 y, 2 z, 3 w), then the other
// three in order, each a SignedNormalizedFloat of c·sign(largest)·√2 in bits
// bits. The largest is rebuilt as √(1 − Σ others²), so it comes back
// non-negative: q and −q are the same rotation. The game's default is 9 bits
// (29 in all).
func (r *Reader) Quaternion(bits int) Quaternion {
	if !r.checkWidths("Quaternion", bits, 0) || !r.need(2+3*bits) {
		return Quaternion{}
	}
	largest := int(r.Bits(2))
	var c [4]float32
	var sum float64
	for i := range c {
		if i == largest {
			continue
		}
		c[i] = r.SignedNormalizedFloat(bits) / math.Sqrt2
		sum += float64(c[i]) * float64(c[i])
	}
	c[largest] = float32(math.Sqrt(max(0, 1-sum)))
	return Quaternion{X: c[0], Y: c[1], Z: c[2], W: c[3]}
}

// NormalVector3 reads a unit vector (wire.md 1.3): 2 bits give the index of
// the largest component (0 x, 1 y, 2 z), 1 bit is set when that component
// is negative, then the other two in order as SignedNormalizedFloats of c·√2
// in bits bits. The largest is rebuilt as ±√(1 − Σ others²). Index 3 has no
// meaning (the spec does not say what the game does with it) and sets
// ErrRange. The game's default is 9 bits.
func (r *Reader) NormalVector3(bits int) Vector3 {
	if !r.checkWidths("NormalVector3", bits, 0) || !r.need(3+2*bits) {
		return Vector3{}
	}
	at := r.pos
	largest := int(r.Bits(2))
	if largest == 3 {
		r.fail(at, ErrRange, "NormalVector3: largest component index 3")
		return Vector3{}
	}
	neg := r.Bit()
	var c [3]float32
	var sum float64
	for i := range c {
		if i == largest {
			continue
		}
		c[i] = r.SignedNormalizedFloat(bits) / math.Sqrt2
		sum += float64(c[i]) * float64(c[i])
	}
	c[largest] = float32(math.Sqrt(max(0, 1-sum)))
	if neg {
		c[largest] = -c[largest]
	}
	return Vector3{X: c[0], Y: c[1], Z: c[2]}
}

// angle reads n bits of v/period·2^n.
func (r *Reader) angle(n int, period float64) float32 {
	x := r.Bits(n)
	if r.failed() {
		return 0
	}
	return float32(math.Ldexp(float64(x), -n) * period)
}

// Radians reads an angle in [0, 2π) quantised to n bits (the game's default
// is 8).
func (r *Reader) Radians(n int) float32 { return r.angle(n, 2*math.Pi) }

// Degrees reads an angle in [0, 360) quantised to n bits.
func (r *Reader) Degrees(n int) float32 { return r.angle(n, 360) }

// VectorAsYaw reads a horizontal vector as its magnitude (a Float) and its
// yaw in yawBits bits of yaw/360·2^yawBits (wire.md 1.3, known only from the
// seed article). The vector is rebuilt in Unity's convention, yaw measured
// from +Z towards +X: (m·sin yaw, 0, m·cos yaw).
func (r *Reader) VectorAsYaw(yawBits int) Vector3 {
	if !r.checkWidths("VectorAsYaw", yawBits, 0) || !r.need(32+yawBits) {
		return Vector3{}
	}
	m := float64(r.Float())
	yaw := float64(r.Degrees(yawBits)) * math.Pi / 180
	return Vector3{X: float32(m * math.Sin(yaw)), Z: float32(m * math.Cos(yaw))}
}

// ClampedFloat writes v as ClampedFloat(intBits, fracBits) reads it. Values
// outside the representable range are clamped to it and NaN is written as 0,
// so the writer never produces bits a reader would misplace.
func (w *Writer) ClampedFloat(v float32, intBits, fracBits int) {
	w.fixed(float64(v), intBits, fracBits, offset(intBits))
}

// UnsignedClampedFloat writes v as UnsignedClampedFloat reads it, clamped
// to [0, 2^intBits).
func (w *Writer) UnsignedClampedFloat(v float32, intBits, fracBits int) {
	w.fixed(float64(v), intBits, fracBits, 0)
}

// fixed writes floor(v)+off in intBits bits and the truncated fraction in
// fracBits bits, clamping to what the widths can hold.
func (w *Writer) fixed(v float64, intBits, fracBits int, off int64) {
	intBits, fracBits = min(max(intBits, 0), 32), min(max(fracBits, 0), 32)
	lo, hi := -off, int64(mask(intBits))-off
	var i int64
	var f uint32
	switch fl := math.Floor(v); {
	case math.IsNaN(v):
		i = 0
	case fl < float64(lo):
		i = lo
	case fl > float64(hi):
		i, f = hi, mask(fracBits)
	default:
		i = int64(fl)
		f = uint32(min(math.Ldexp(v-fl, fracBits), float64(mask(fracBits))))
	}
	w.Bits(uint32(i+off), intBits)
	w.Bits(f, fracBits)
}

// ClampedVector3 writes x, y and z as ClampedFloats.
func (w *Writer) ClampedVector3(v Vector3, intBits, fracBits int) {
	w.ClampedFloat(v.X, intBits, fracBits)
	w.ClampedFloat(v.Y, intBits, fracBits)
	w.ClampedFloat(v.Z, intBits, fracBits)
}

// UnsignedNormalizedFloat writes round(v·(2^n − 1)) in n bits, v clamped to
// [0, 1].
func (w *Writer) UnsignedNormalizedFloat(v float32, n int) {
	n = min(max(n, 0), 32)
	w.Bits(uint32(math.Round(clamp01(float64(v))*float64(mask(n)))), n)
}

// SignedNormalizedFloat writes v, clamped to [−1, 1], as
// SignedNormalizedFloat reads it.
func (w *Writer) SignedNormalizedFloat(v float32, n int) {
	n = min(max(n, 0), 32)
	if n < 1 {
		return
	}
	x := uint32(math.Round(clamp01(math.Abs(float64(v))) * float64(mask(n-1))))
	if v < 0 {
		x |= 1 << (n - 1)
	}
	w.Bits(x, n)
}

// clamp01 clamps v to [0, 1], NaN to 0.
func clamp01(v float64) float64 {
	if !(v > 0) {
		return 0
	}
	return min(v, 1)
}

// Quaternion writes q "smallest three" as Reader.Quaternion reads it. The
// first component of largest magnitude is dropped; the others are scaled by
// its sign so that it is rebuilt non-negative.
func (w *Writer) Quaternion(q Quaternion, bits int) {
	c := [4]float32{q.X, q.Y, q.Z, q.W}
	largest := 0
	for i := range c {
		if abs32(c[i]) > abs32(c[largest]) {
			largest = i
		}
	}
	sign := float32(1)
	if c[largest] < 0 {
		sign = -1
	}
	w.Bits(uint32(largest), 2)
	for i := range c {
		if i != largest {
			w.SignedNormalizedFloat(c[i]*sign*math.Sqrt2, bits)
		}
	}
}

// NormalVector3 writes a unit vector as Reader.NormalVector3 reads it.
func (w *Writer) NormalVector3(v Vector3, bits int) {
	c := [3]float32{v.X, v.Y, v.Z}
	largest := 0
	for i := range c {
		if abs32(c[i]) > abs32(c[largest]) {
			largest = i
		}
	}
	w.Bits(uint32(largest), 2)
	w.Bit(c[largest] < 0)
	for i := range c {
		if i != largest {
			w.SignedNormalizedFloat(c[i]*math.Sqrt2, bits)
		}
	}
}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }

// angle writes v wrapped into [0, period) as n bits, rounded to the nearest
// step (a value that rounds up to a full turn wraps to 0).
func (w *Writer) angle(v float64, n int, period float64) {
	n = min(max(n, 0), 32)
	v = math.Mod(v, period)
	if v < 0 {
		v += period
	}
	if math.IsNaN(v) {
		v = 0
	}
	x := uint64(math.Round(math.Ldexp(v/period, n)))
	w.Bits(uint32(x&uint64(mask(n))), n)
}

// Radians writes an angle in radians, wrapped to [0, 2π), in n bits.
func (w *Writer) Radians(v float32, n int) { w.angle(float64(v), n, 2*math.Pi) }

// Degrees writes an angle in degrees, wrapped to [0, 360), in n bits.
func (w *Writer) Degrees(v float32, n int) { w.angle(float64(v), n, 360) }

// VectorAsYaw writes v's magnitude as a Float and its yaw (atan2(x, z) in
// degrees) in yawBits bits. Y only contributes to the magnitude.
func (w *Writer) VectorAsYaw(v Vector3, yawBits int) {
	x, y, z := float64(v.X), float64(v.Y), float64(v.Z)
	w.Float(float32(math.Sqrt(x*x + y*y + z*z)))
	w.Degrees(float32(math.Atan2(x, z)*180/math.Pi), yawBits)
}
