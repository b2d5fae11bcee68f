package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes of outputs.md.
const (
	exitOK    = 0
	exitInput = 1 // the capture or input could not be read or decoded at all
	exitUsage = 2
)

// usageError marks an error as a usage error (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// streams are the command's IO, injected so tests can run commands with
// buffers (cli/cli iostreams).
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// newRoot builds the command tree over the given streams.
func newRoot(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "usmnscope",
		Short:         "Inspect Unturned SystemSockets traffic and USMN module messages bit by bit",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	for _, add := range subcommands {
		root.AddCommand(add(s))
	}
	return root
}

// subcommands lists the constructors of the commands, each in its own file.
var subcommands []func(*streams) *cobra.Command

// Execute runs the command line and returns the process exit code.
func Execute(args []string, in io.Reader, out, errw io.Writer) int {
	s := &streams{in: in, out: out, err: errw}
	root := newRoot(s)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(errw, "usmnscope: %v\n", err)
	var u usageError
	if errors.As(err, &u) || isCobraUsage(err) {
		return exitUsage
	}
	return exitInput
}

// isCobraUsage recognises cobra's own argument errors, which are not typed.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
