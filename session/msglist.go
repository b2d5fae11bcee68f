package session

import (
	"slices"
	"sort"
)

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
	slab   *slab // where blocks of indices come from (a large full index's); nil: the heap
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
		if l.slab != nil {
			b.ids = l.slab.ids()[:b.n]
		} else {
			b.ids = make([]int32, b.n, msgBlock)
		}
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

// Numbers is a connection's message numbers up to some message, in
// ascending order (ConnNumbers): a snapshot that later messages do not
// change, read without the index's lock (a list of the TUI's rows:
// messages.Rows).
type Numbers struct {
	runs []msgRun // the list's blocks as they were: all full but the last
	n    int
}

// Len is how many numbers there are.
func (l Numbers) Len() int { return l.n }

// At is the i-th number, 0 ≤ i < Len.
func (l Numbers) At(i int) int {
	b := &l.runs[i/msgBlock]
	if b.ids == nil {
		return int(b.first) + i%msgBlock + 1
	}
	return int(b.ids[i%msgBlock]) + 1
}

// ConnNumbers returns the numbers of the messages up to upTo of the
// connection at position pos of Connections (ConnAt; the zero Numbers
// for none): the message lists the index keeps for its tables, so that
// the TUI, which lists each connection's messages, keeps no second copy
// of them (issue 28: 4 bytes a message). Each block of a list holds its
// indices from where they are written to, never moving: the snapshot
// copies the blocks' heads alone, and reads only indices written before
// it.
func (c *Index) ConnNumbers(pos uint32, upTo int) Numbers {
	c.rlock()
	defer c.runlock()
	if int(pos) >= len(c.conns) {
		return Numbers{}
	}
	l := &c.conns[pos].msgs
	k := sort.Search(l.len(), func(p int) bool { return int(l.at(p)) >= upTo })
	return Numbers{runs: slices.Clone(l.blocks[:(k+msgBlock-1)/msgBlock]), n: k}
}
