package rpc

import (
	"bytes"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendInt: appendInt and appendUint write what strconv does, at
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
		if got, want := string(appendUint([]byte("x"), u)), "x"+strconv.FormatUint(u, 10); got != want {
			t.Fatalf("appendUint(%d) = %s; want %s", u, got, want)
		}
		for _, i := range []int64{int64(u), -int64(u), math.MinInt64} {
			if got, want := string(appendInt([]byte("x"), i)), "x"+strconv.FormatInt(i, 10); got != want {
				t.Fatalf("appendInt(%d) = %s; want %s", i, got, want)
			}
		}
	}
}

// TestAppendHex: appendHex writes what hex.AppendEncode does.
func TestAppendHex(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 28))
	for n := range 300 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		if got, want := appendHex([]byte("x"), b), hex.AppendEncode([]byte("x"), b); !bytes.Equal(got, want) {
			t.Fatalf("appendHex(%x) = %s; want %s", b, got, want)
		}
	}
}

// TestHasSpace: hasSpace, eight bytes at a time, finds JSON's space at
// every position, and nothing in bytes that only look like it.
func TestHasSpace(t *testing.T) {
	for n := range 20 {
		for pos := 0; pos <= n; pos++ {
			for _, c := range []byte{' ', '\t', '\n', '\r', '!', 0x00, 0x1f, 0x80, 0xa0, 0xff, 0x21, 0xa1} {
				b := append(bytes.Repeat([]byte{'a'}, pos), c)
				b = append(b, bytes.Repeat([]byte{0xc3}, n-pos)...)
				want := c == ' ' || c == '\t' || c == '\n' || c == '\r'
				if got := hasSpace(b); got != want {
					t.Fatalf("hasSpace(%q) = %v; want %v", b, got, want)
				}
			}
		}
	}
}
