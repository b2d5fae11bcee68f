package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/usmnscope/usmnscope/internal/profiling"
)

func main() {
	// A closed stdout (`usmnscope dump … | head`) must surface as EPIPE
	// from Write, which Execute turns into a quiet exit, rather than kill
	// the process with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	tuneGC()
	stop := profiling.Start()
	code := Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
