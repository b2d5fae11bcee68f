package digits

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// pairs holds the two digits of each number below 100.
const pairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" + "30313233343536373839" +
	"40414243444546474849" + "50515253545556575859" + "60616263646566676869" + "70717273747576777879" +
	"80818283848586878889" + "90919293949596979899"

// pow10s are the powers of ten an uint64 holds.
var pow10s = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// AppendUint appends v in decimal, as strconv.AppendUint(dst, v, 10):
// inlined for a number below 100, most of a record's.
func AppendUint(dst []byte, v uint64) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	return appendUint2(dst, v, false)
}

// appendUint2 is AppendUint of v of 10 and more (and of less), or with
// neg AppendInt of int64(v), below 0 (and of more). Up to
// eight digits (most of a record's numbers: a field's bit offset and
// width, a record's number, frame, pair and latency) are written with
// one append, two digits a table entry.
func appendUint2(dst []byte, v uint64, neg bool) []byte {
	if neg {
		dst = append(dst, '-')
		v = -v // |int64(v)|, MinInt64's too
	}
	switch {
	case v < 10:
		return append(dst, byte('0'+v))
	case v < 100:
		return append(dst, pairs[2*v], pairs[2*v+1])
	case v < 10000:
		q := v / 100
		r := 2 * (v - 100*q)
		if q < 10 {
			return append(dst, byte('0'+q), pairs[r], pairs[r+1])
		}
		return append(dst, pairs[2*q], pairs[2*q+1], pairs[r], pairs[r+1])
	case v < 1e8 && cap(dst)-len(dst) >= 8:
		return appendWord(dst, v)
	case v < 1e8:
		hi := v / 10000
		lo := v - 10000*hi
		q := lo / 100
		r := 2 * (lo - 100*q)
		q *= 2
		switch {
		case hi < 10:
			return append(dst, byte('0'+hi), pairs[q], pairs[q+1], pairs[r], pairs[r+1])
		case hi < 100:
			return append(dst, pairs[2*hi], pairs[2*hi+1], pairs[q], pairs[q+1], pairs[r], pairs[r+1])
		}
		h := hi / 100
		g := 2 * (hi - 100*h)
		if h < 10 {
			return append(dst, byte('0'+h), pairs[g], pairs[g+1], pairs[q], pairs[q+1], pairs[r], pairs[r+1])
		}
		return append(dst, pairs[2*h], pairs[2*h+1], pairs[g], pairs[g+1], pairs[q], pairs[q+1], pairs[r], pairs[r+1])
	}
	// Its digits: log10 from its bit length, corrected by one power.
	t := bits.Len64(v) * 1233 >> 12
	n := t + 1
	if v < pow10s[t] {
		n = t
	}
	l := len(dst)
	dst = slices.Grow(dst, n)[:l+n]
	i := l + n
	for v >= 100 {
		q := v / 100
		r := 2 * (v - 100*q)
		i -= 2
		dst[i], dst[i+1] = pairs[r], pairs[r+1]
		v = q
	}
	if v >= 10 {
		dst[i-2], dst[i-1] = pairs[2*v], pairs[2*v+1]
	} else {
		dst[i-1] = byte('0' + v)
	}
	return dst
}

// pairWords holds pairs' two digits of each number below 100 as they lie
// in memory (little-endian: the tens digit in the low byte).
var pairWords = func() (t [100]uint16) {
	for i := range t {
		t[i] = uint16(pairs[2*i]) | uint16(pairs[2*i+1])<<8
	}
	return t
}()

// appendWord appends v, from 10000 to 1e8-1, to dst, which has room for
// eight more bytes: its eight digits zero-padded are made in a word and
// stored at once, less their leading zeros (issue 28: the tests of the
// number's size, taken in no order a branch predictor follows, were most
// of a `dump --json` number).
func appendWord(dst []byte, v uint64) []byte {
	hi, lo := v/10000, v%10000
	w := uint64(pairWords[hi/100]) | uint64(pairWords[hi%100])<<16 | uint64(pairWords[lo/100])<<32 | uint64(pairWords[lo%100])<<48
	// The leading zeros are the low bytes equal to '0' (v ≥ 10000: at
	// most three of them).
	z := uint(bits.TrailingZeros64(w^0x3030303030303030)) &^ 7
	l := len(dst)
	binary.LittleEndian.PutUint64(dst[l:l+8], w>>z)
	return dst[:l+8-int(z/8)]
}

// AppendInt appends v in decimal, as strconv.AppendInt(dst, v, 10),
// inlined for a digit.
func AppendInt(dst []byte, v int64) []byte {
	if uint64(v) < 10 {
		return append(dst, byte('0'+v))
	}
	return appendUint2(dst, uint64(v), v < 0)
}

// hexPairs holds each byte's two lower-case hex digits, the first in the
// low byte (as they lie in memory, little-endian).
var hexPairs = func() (t [256]uint16) {
	const digits = "0123456789abcdef"
	for i := range t {
		t[i] = uint16(digits[i>>4]) | uint16(digits[i&15])<<8
	}
	return t
}()

// AppendHex appends src in lower-case hex, as hex.AppendEncode, four
// bytes' digits at a time.
func AppendHex(dst, src []byte) []byte {
	l := len(dst)
	dst = slices.Grow(dst, 2*len(src))[:l+2*len(src)]
	out := dst[l:]
	for len(src) >= 8 && len(out) >= 16 {
		// Eight bytes a step: two stores, one loop test.
		s, o := src[:8:8], out[:16:16]
		binary.LittleEndian.PutUint64(o, uint64(hexPairs[s[0]])|uint64(hexPairs[s[1]])<<16|
			uint64(hexPairs[s[2]])<<32|uint64(hexPairs[s[3]])<<48)
		binary.LittleEndian.PutUint64(o[8:], uint64(hexPairs[s[4]])|uint64(hexPairs[s[5]])<<16|
			uint64(hexPairs[s[6]])<<32|uint64(hexPairs[s[7]])<<48)
		src, out = src[8:], out[16:]
	}
	for len(src) >= 4 && len(out) >= 8 {
		binary.LittleEndian.PutUint64(out, uint64(hexPairs[src[0]])|uint64(hexPairs[src[1]])<<16|
			uint64(hexPairs[src[2]])<<32|uint64(hexPairs[src[3]])<<48)
		src, out = src[4:], out[8:]
	}
	for i, c := range src {
		if 2*i+1 < len(out) {
			binary.LittleEndian.PutUint16(out[2*i:], hexPairs[c])
		}
	}
	return dst
}

// AppendPadded appends the width low decimal digits of v ≥ 0, zero-padded
// (a time's nanoseconds, a fixed-width part of a number).
func AppendPadded(dst []byte, v, width int) []byte {
	if width == 9 && uint(v) < 1e9 && cap(dst)-len(dst) >= 9 {
		// A time's nanoseconds: its first digit, then eight in a word.
		q := uint64(v) / 1e8
		r := uint64(v) - 1e8*q
		hi, lo := r/10000, r%10000
		w := uint64(pairWords[hi/100]) | uint64(pairWords[hi%100])<<16 | uint64(pairWords[lo/100])<<32 | uint64(pairWords[lo%100])<<48
		l := len(dst)
		dst = dst[:l+9]
		dst[l] = byte('0' + q)
		binary.LittleEndian.PutUint64(dst[l+1:], w)
		return dst
	}
	n := len(dst) + width
	dst = append(dst, "00000000000000000000"[:width]...)
	i := n
	for ; i-2 >= n-width; i -= 2 {
		q := v / 100
		r := 2 * (v - 100*q)
		dst[i-2], dst[i-1] = pairs[r], pairs[r+1]
		v = q
	}
	if i > n-width {
		dst[i-1] = byte('0' + v%10)
	}
	return dst
}
