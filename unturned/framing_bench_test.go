package unturned

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// benchStream is a 100 MB SystemSockets stream of game-sized messages
// (10–200 bytes), built once.
var benchStream = sync.OnceValues(func() ([]byte, int) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := make([]byte, 0, 100<<20+256)
	n := 0
	for len(b) < 100<<20 {
		l := 10 + rng.IntN(191)
		b = append(b, byte(l>>8), byte(l))
		for range l {
			b = append(b, byte(rng.Uint32()))
		}
		n++
	}
	return b, n
})

// BenchmarkFramer frames the stream in 1448-byte chunks (a TCP segment's
// payload on Ethernet), so most messages lie wholly in a chunk and some
// straddle two.
func BenchmarkFramer(b *testing.B) {
	data, msgs := benchStream()
	const chunk = 1448
	var count int
	yield := func(msg []byte, _ FrameInfo) { count += len(msg) }
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f := NewFramer(MaxFrameLen)
		for off := 0; off < len(data); off += chunk {
			f.Feed(data[off:min(off+chunk, len(data))], yield)
		}
		if f.Stats().Messages != int64(msgs) {
			b.Fatalf("framed %d messages; want %d", f.Stats().Messages, msgs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(msgs), "ns/msg")
}

// BenchmarkFramerResync feeds 1 MB of random bytes to a resynchronising
// framer: the worst case, a candidate tested at nearly every offset.
func BenchmarkFramerResync(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f := NewFramer(MaxFrameLen)
		f.StartUnsynced()
		for off := 0; off < len(data); off += 1448 {
			f.Feed(data[off:min(off+1448, len(data))], nil)
		}
		f.Flush()
	}
}
