// Package gctune keeps the garbage collector's headroom near a fixed size
// instead of the runtime's default of as much again as is live: a decoded
// capture's index is large, long-lived and pointer-free, so a fixed
// headroom bounds the peak resident set at the index plus the headroom
// (issue 17). Start arms it once per process; Set chooses the tuning of
// the command running (dump's Stream, the TUI's TUI). A GOGC or
// GOMEMLIMIT in the environment wins.
package gctune
