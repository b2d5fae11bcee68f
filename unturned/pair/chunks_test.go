package pair

import "testing"

// TestChunks: the values read back in order across block boundaries,
// and each stops after the first n.
func TestChunks(t *testing.T) {
	for _, n := range []int{0, 1, chunkLen, chunkLen + 1, 3*chunkLen + 7} {
		var c chunks[int32]
		for i := range n {
			c.add(int32(2*i + 1))
		}
		if c.len() != n {
			t.Errorf("%d added: len() = %d", n, c.len())
		}
		for i := range n {
			if got := c.at(i); got != int32(2*i+1) {
				t.Fatalf("%d added: at(%d) = %d; want %d", n, i, got, 2*i+1)
			}
		}
		for _, k := range []int{0, 1, chunkLen - 1, chunkLen, n / 2, n} {
			if k > n {
				continue
			}
			var got []int32
			c.each(k, func(v int32) { got = append(got, v) })
			if len(got) != k {
				t.Errorf("%d added: each(%d) gave %d values", n, k, len(got))
			}
			for i, v := range got {
				if v != int32(2*i+1) {
					t.Errorf("%d added: each(%d)'s value %d = %d; want %d", n, k, i, v, 2*i+1)
					break
				}
			}
		}
	}
}
