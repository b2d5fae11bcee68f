package hugepage

import "golang.org/x/sys/unix"

// advise asks for huge pages (MADV_HUGEPAGE) on b, which starts and ends
// on huge page boundaries. A kernel without them (or with them off) says
// no, and b stays in small pages.
func advise(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
