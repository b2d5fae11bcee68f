// Package profiling writes the process's CPU and allocation profiles
// where the environment asks (bench/README.md "Profiling"):
// $USMNSCOPE_CPUPROFILE and $USMNSCOPE_MEMPROFILE, which go tool pprof
// reads. A profile that cannot be written is said on stderr; the command
// runs without it.
package profiling
