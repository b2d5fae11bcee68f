package digits

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendInt: AppendInt and AppendUint write what strconv does, at
// every power of ten and its neighbours, the extremes and at random.
func TestAppendInt(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 28))
	us := []uint64{0, 1, 9, 10, 11, 99, 100, 101, math.MaxUint64, math.MaxUint64 - 1, math.MaxInt64, 1 << 63}
	for p := uint64(1); p <= 1e19; p *= 10 {
		us = append(us, p-1, p, p+1)
		if p == 1e19 {
			break
		}
	}
	for range 100000 {
		us = append(us, rng.Uint64(), rng.Uint64()>>rng.IntN(64))
	}
	for _, u := range us {
		if got, want := string(AppendUint([]byte("x"), u)), "x"+strconv.FormatUint(u, 10); got != want {
			t.Fatalf("AppendUint(%d) = %s; want %s", u, got, want)
		}
		for _, i := range []int64{int64(u), -int64(u), math.MinInt64} {
			if got, want := string(AppendInt([]byte("x"), i)), "x"+strconv.FormatInt(i, 10); got != want {
				t.Fatalf("AppendInt(%d) = %s; want %s", i, got, want)
			}
		}
	}
}

// TestAppendHex: AppendHex writes what hex.AppendEncode does.
func TestAppendHex(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 28))
	for n := range 300 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		if got, want := AppendHex([]byte("x"), b), hex.AppendEncode([]byte("x"), b); !bytes.Equal(got, want) {
			t.Fatalf("AppendHex(%x) = %s; want %s", b, got, want)
		}
	}
}

// TestAppendPadded: AppendPadded writes what %0*d does for every width
// a number of that many digits fits in, at every power of ten.
func TestAppendPadded(t *testing.T) {
	for width := 1; width <= 9; width++ {
		for _, v := range []int{0, 1, 9, 10, 99, 100, 12345, 999999999} {
			v %= int(math.Pow10(width))
			if got, want := string(AppendPadded([]byte("x"), v, width)), fmt.Sprintf("x%0*d", width, v); got != want {
				t.Fatalf("AppendPadded(%d, %d) = %s; want %s", v, width, got, want)
			}
		}
	}
}

// TestAppendIntEdges holds AppendInt to strconv at each width's edges,
// below 10^8 and past it (session's cases, from when it wrote its own).
func TestAppendIntEdges(t *testing.T) {
	for _, v := range []int{0, 9, 10, 99, 100, 101, 999, 1000, 1009, 9999, 10000, 10001, 99999, 100000, 1000000, 1234567, 9999999, 10000000, 99999999, 100000000, 1 << 40, -1, -100} {
		if got, want := string(AppendInt([]byte("x"), int64(v))), "x"+strconv.Itoa(v); got != want {
			t.Errorf("AppendInt(x, %d) = %s; want %s", v, got, want)
		}
	}
}

// TestAppendUintEdges holds AppendUint to strconv.AppendUint on both
// sides of 10^8, up to the largest uint64.
func TestAppendUintEdges(t *testing.T) {
	for _, v := range []uint64{0, 7, 99999999, 100000000, 1<<32 - 1, 1<<63 + 5, 1<<64 - 1} {
		if got, want := string(AppendUint(nil, v)), strconv.FormatUint(v, 10); got != want {
			t.Errorf("AppendUint(%d) = %s; want %s", v, got, want)
		}
	}
}

// TestAppendRoom: with room for a word after dst (appendWord, and the
// nine digits of AppendPadded in one), and with just too little, the
// digits are strconv's.
func TestAppendRoom(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 9))
	vs := []uint64{0, 9, 10, 99, 100, 101, 999, 1000, 9999, 10000, 99999, 100000, 999999, 1000000, 9999999, 10000000, 99999999, 100000000}
	for range 20000 {
		vs = append(vs, rng.Uint64N(1e9), rng.Uint64N(1000))
	}
	for _, v := range vs {
		for room := 6; room <= 10; room++ {
			dst := append(make([]byte, 0, 3+room), "abc"...)
			if got, want := string(AppendUint(dst, v)), "abc"+strconv.FormatUint(v, 10); got != want {
				t.Fatalf("AppendUint(%d) with room %d = %s; want %s", v, room, got, want)
			}
			if got, want := string(AppendInt(dst, -int64(v))), "abc"+strconv.FormatInt(-int64(v), 10); got != want {
				t.Fatalf("AppendInt(%d) with room %d = %s; want %s", -int64(v), room, got, want)
			}
			if v < 1e9 {
				if got, want := string(AppendPadded(dst, int(v), 9)), fmt.Sprintf("abc%09d", v); got != want {
					t.Fatalf("AppendPadded(%d, 9) with room %d = %s; want %s", v, room, got, want)
				}
			}
		}
	}
}
