package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfile starts a CPU profile into $USMNSCOPE_CPUPROFILE when it is
// set (bench/README.md "Profiling": go tool pprof reads it) and returns
// what stops it; a profile that cannot start is said on stderr and the
// command runs without.
func cpuProfile() (stop func()) {
	path := os.Getenv("USMNSCOPE_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "usmnscope: USMNSCOPE_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
