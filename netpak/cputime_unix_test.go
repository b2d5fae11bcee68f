//go:build unix

package netpak

import "syscall"

// cpuNanos returns the process's user CPU time. The benchmarks report it
// next to wall time because the shared 2-core build machine is often
// oversubscribed, which inflates wall time but not time spent on a CPU.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano()
}
