package hugepage

import "golang.org/x/sys/unix"

// advise gives the pages of all back (MADV_DONTNEED: they read as zero,
// as they are, and take no memory until touched), then asks for huge
// pages (MADV_HUGEPAGE) on b, the part of all that starts and ends on
// huge page boundaries. A kernel without huge pages (or with them off)
// says no to the second, and b stays in small pages. all starts on a
// page of the Go heap, as madvise needs.
func advise(all, b []byte) {
	_ = unix.Madvise(all, unix.MADV_DONTNEED)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}
