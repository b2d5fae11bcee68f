package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A closed stdout (`usmnscope dump … | head`) must surface as EPIPE
	// from Write, which Execute turns into a quiet exit, rather than kill
	// the process with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	tuneGC()
	stop := cpuProfile()
	code := Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
