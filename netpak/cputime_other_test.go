//go:build !unix

package netpak

// cpuNanos is not measured off unix; the benchmarks then report 0.
func cpuNanos() int64 { return 0 }
