package lp

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSearch searches 1 MB of random bytes in windows of a framer's
// resynchronisation buffer with SystemSockets' rule: the worst case, a
// candidate tested at nearly every offset (unturned BenchmarkFramerResync
// measures it inside the framer).
func BenchmarkSearch(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	r := Rule{Width: 2, Limit: 4096, Whole: 2, Header: true, EndWhole: 2}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for off := 0; off < len(data); {
			skip, _ := r.Search(data[off:min(off+r.Bound(), len(data))], false)
			off += skip + 1
		}
	}
}
