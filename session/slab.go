package session

import (
	"unsafe"

	"github.com/usmnscope/usmnscope/internal/hugepage"
)

// slab hands a large full index its pointer-free blocks, the records'
// (recChunk records) and its connections' message lists' (msgBlock
// indices), from huge pages (hugepage.Bytes), carved in the order they
// are asked for: a million-message TUI load first touched its 36 MB of
// records and 4 MB of lists a 4 KiB page fault at a time, some 10,000
// faults on the decoder's goroutine (issue 28). A small index (below
// slabFrom messages) takes its blocks from the heap as before, so that a
// small capture stays small; a stream keeps few records and reuses them.
type slab struct {
	free []byte // the rest of the current slab
}

const (
	// slabFrom is the message count from which a full index takes its
	// blocks from a slab: 16 blocks of records, 2.4 MB.
	slabFrom = 16 * recChunk
	// slabPages is a slab's size in huge pages: 8 MiB, some 56 blocks
	// of records; what the last huge page touched holds beyond the
	// blocks in use is resident too, at most one huge page.
	slabPages = 4
	recBytes  = recChunk * int(unsafe.Sizeof(record{}))
	idsBytes  = msgBlock * int(unsafe.Sizeof(int32(0)))
)

// take returns n bytes of the slab, a new slab's when the rest is short
// (the rest is left untouched). n is a multiple of 4, so what is carved
// stays aligned for records and indices.
func (s *slab) take(n int) unsafe.Pointer {
	if len(s.free) < n {
		s.free = hugepage.Bytes(max(slabPages, (n+hugepage.Size-1)/hugepage.Size))
	}
	p := unsafe.Pointer(unsafe.SliceData(s.free))
	s.free = s.free[n:]
	return p
}

// records returns an empty block of recChunk records.
func (s *slab) records() []record {
	return unsafe.Slice((*record)(s.take(recBytes)), recChunk)[:0]
}

// ids returns an empty block of msgBlock indices.
func (s *slab) ids() []int32 {
	return unsafe.Slice((*int32)(s.take(idsBytes)), msgBlock)[:0]
}
