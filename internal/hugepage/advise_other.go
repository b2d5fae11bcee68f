//go:build !linux

package hugepage

// advise does nothing where there is no MADV_HUGEPAGE.
func advise(_, _ []byte) {}
