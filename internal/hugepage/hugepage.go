// Package hugepage gives large, long-lived, pointer-free memory that the
// kernel backs with huge pages where it can (Linux's transparent huge
// pages under madvise): a million-message TUI load touched some 60 MB of
// fresh memory a 4 KiB page at a time, each first touch a page fault of
// several microseconds on this machine's virtual CPUs, a sixth of the
// load's CPU (issue 28). A 2 MiB page is one fault and one clear.
package hugepage

import "unsafe"

// Size is the huge page size the memory is laid out in: x86-64's and
// arm64's 2 MiB (a kernel with other sizes only backs less of it).
const Size = 2 << 20

// Bytes returns pages huge pages of zero bytes starting on a huge page
// boundary, advised for huge pages before anything touches them. The Go
// heap lays out large objects on 8 KiB pages, so the allocation is a huge
// page larger than what is returned; that rest is never touched, so it
// costs address space and the collector's count of the heap, not
// resident memory. Memory the heap had used before comes cleared by the
// runtime, in small pages and resident all through: it is given back
// first (advise), so that what is resident is what the caller touched.
// The bytes are scanned for no pointers: use them only for values that
// hold none.
func Bytes(pages int) []byte {
	n := pages * Size
	all := make([]byte, n+Size)
	start := unsafe.Pointer(unsafe.SliceData(all))
	off := int(-uintptr(start) & (Size - 1))
	b := all[off : off+n : off+n]
	advise(all, b)
	return b
}
