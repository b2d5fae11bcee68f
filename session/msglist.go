package session

// msgList is a connection's record indices in ascending order, kept in
// fixed blocks: appending never copies what is held, so a connection of
// millions of messages costs at most 4 bytes a message and no transient
// doubling (a plain slice grown by append holds the old and the new array
// at once, and leaves the old ones to the collector). A block whose
// indices are consecutive, as they all are on a capture of one busy
// connection, holds only its first (issue 17's gzip shape: 16.8 million
// messages on one connection).
type msgList struct {
	blocks []msgRun
	n      int
}

// msgRun is one block of up to msgBlock indices: first, first+1, …,
// first+n-1 while ids is nil, else ids.
type msgRun struct {
	first int32
	n     int32
	ids   []int32
}

// msgBlock is the number of indices per block.
const msgBlock = 4096

func (l *msgList) append(i int32) {
	if l.n%msgBlock == 0 {
		l.blocks = append(l.blocks, msgRun{first: i})
	}
	b := &l.blocks[len(l.blocks)-1]
	switch {
	case b.ids == nil && i == b.first+b.n:
	case b.ids == nil:
		// The run breaks: the block holds its indices from now on.
		b.ids = make([]int32, b.n, msgBlock)
		for k := range b.ids {
			b.ids[k] = b.first + int32(k)
		}
		fallthrough
	default:
		b.ids = append(b.ids, i)
	}
	b.n++
	l.n++
}

func (l *msgList) len() int { return l.n }

// at returns the p-th index, 0 ≤ p < len.
func (l *msgList) at(p int) int32 {
	b := &l.blocks[p/msgBlock]
	if b.ids == nil {
		return b.first + int32(p%msgBlock)
	}
	return b.ids[p%msgBlock]
}
