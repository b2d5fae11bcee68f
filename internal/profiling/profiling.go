package profiling

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// Start starts a CPU profile into $USMNSCOPE_CPUPROFILE when it is set
// (bench/README.md "Profiling": go tool pprof reads it) and returns what
// stops it, writing the allocation profile too; a profile that cannot
// start is said on stderr and the command runs without.
func Start() (stop func()) {
	heap := allocs()
	path := os.Getenv("USMNSCOPE_CPUPROFILE")
	if path == "" {
		return heap
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		fmt.Fprintf(os.Stderr, "usmnscope: USMNSCOPE_CPUPROFILE: %v\n", err)
		return heap
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		heap()
	}
}

// allocs returns what writes the allocation profile into
// $USMNSCOPE_MEMPROFILE when it is set (`go tool pprof -sample_index=
// alloc_space` reads it: where the bytes were allocated), or a no-op.
func allocs() (stop func()) {
	path := os.Getenv("USMNSCOPE_MEMPROFILE")
	if path == "" {
		return func() {}
	}
	return func() {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "usmnscope: USMNSCOPE_MEMPROFILE: %v\n", err)
		}
	}
}
