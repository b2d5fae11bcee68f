package pair

// chunks is a list kept in blocks of chunkLen that never move: appending
// copies nothing held. A State with history keeps its pings' numbers and
// round trips so; grown by append (a quarter more a time past 256
// values) the lists of a million-message load allocated some 10 MB,
// each growth a copy into fresh memory, for 3 MB kept (issue 28).
type chunks[T any] struct {
	blocks [][]T
	n      int
}

// chunkLen is the values a block holds: a connection's pings of one
// direction fill a few.
const chunkLen = 512

func (c *chunks[T]) add(v T) {
	k := len(c.blocks) - 1
	if k < 0 || len(c.blocks[k]) == chunkLen {
		c.blocks = append(c.blocks, make([]T, 0, chunkLen))
		k++
	}
	c.blocks[k] = append(c.blocks[k], v)
	c.n++
}

func (c *chunks[T]) len() int { return c.n }

// at is the i-th value, 0 ≤ i < len.
func (c *chunks[T]) at(i int) T { return c.blocks[i/chunkLen][i%chunkLen] }

// each calls f with the first n values in order, n ≤ len.
func (c *chunks[T]) each(n int, f func(T)) {
	for _, b := range c.blocks {
		if n <= 0 {
			return
		}
		for _, v := range b[:min(n, len(b))] {
			f(v)
		}
		n -= len(b)
	}
}
