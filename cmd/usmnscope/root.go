package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/internal/usage"
)

// Exit codes (docs/cli.md "Exit status").
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
		Use:   "usmnscope",
		Short: "Inspect Unturned SystemSockets traffic, USMN module messages and ULinkRPC calls bit by bit",
		Long: `Inspect Unturned SystemSockets traffic, USMN module messages and ULinkRPC
calls bit by bit: from a capture file, standard input or a live interface,
in a terminal UI (open, live) or as text and JSON (dump, tables).

The reference for every command, display filter, JSON key, schema and
profile key is the docs/ folder of the usmnscope repository.`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(usage.FlagError)
	root.Example = `  usmnscope dump capture.pcapng
  usmnscope dump -V --filter 'msg==InvokeMessageListener && listener~Chat' capture.pcapng
  usmnscope tables --at 40 capture.pcapng
  usmnscope bits --dir s2c 8c 00 00 62 79 65
  usmnscope dump --contracts ./Contracts --filter 'proto==ulinkrpc && latency>1ms' rpc.pcapng
  tcpdump -U -w - port 27016 | usmnscope dump -`
	addRootFlags(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return applyConfig(cmd) }
	// Every command, wired here and nowhere else (cli/cli's root): each
	// constructor takes the streams and an optional run function, which
	// tests pass to see the options a command line parses to.
	root.AddCommand(
		newCmdBits(s, nil),
		newCmdConfig(s),
		newCmdDump(s, nil),
		newCmdExport(s, nil),
		newCmdGen(s, nil),
		newCmdLive(s, nil),
		newCmdOpen(s, nil),
		newCmdProfile(s, nil),
		newCmdSchema(s, nil),
		newCmdSimulate(s, nil),
		newCmdStats(s, nil),
		newCmdTables(s, nil),
	)
	usage.Suggest(root, commandAliases)
	// Shell completion is cobra's own command; it gets an example like
	// every other command.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Example = "  source <(usmnscope completion bash)\n  usmnscope completion zsh > \"${fpath[1]}/_usmnscope\"\n  usmnscope completion fish | source"
		for _, sh := range c.Commands() {
			sh.Example = "  usmnscope completion " + sh.Name() + " > usmnscope-completion." + sh.Name()
		}
	}
	return root
}

// addRootFlags registers the flags every command takes: --profile and the
// --max-* bounds (limits.go).
func addRootFlags(root *cobra.Command) {
	root.PersistentFlags().String(profileFlag, "", "TOML `FILE` overriding the protocol constants (docs/profile.md; see `usmnscope profile show`)")
	addLimitFlags(root)
	root.PersistentFlags().StringArray(decodeAsFlag, nil, "decode TCP `PORT=PROTO` as unturned, ulinkrpc or none (repeatable; docs/protocol.md, docs/ulinkrpc.md)")
	addRPCFlags(root)
	root.PersistentFlags().StringArray(schemaFlag, nil, "payload schema `FILE` (docs/schema.md; repeatable), besides $XDG_CONFIG_HOME/usmnscope/schemas/*.toml")
}

// Execute runs the command line and returns the process exit code.
func Execute(args []string, in io.Reader, out, errw io.Writer) int {
	s := &streams{in: in, out: out, err: errw}
	root := newRoot(s)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil || errors.Is(err, syscall.EPIPE) {
		// `usmnscope dump … | head`: the reader went away, which is
		// not an error worth a line on stderr.
		return exitOK
	}
	fmt.Fprintf(errw, "usmnscope: %v\n", err)
	var u usageError
	if isArgs := usage.IsArgs(err); isArgs || errors.As(err, &u) {
		if isArgs {
			usage.Hint(errw, cmd)
		}
		return exitUsage
	}
	return exitInput
}

// newOutput buffers a command's standard output. bufio.Writer's error is
// sticky, so a command checks the error of each line it writes and stops at
// the first failure (a closed pipe), then flushes once at the end.
func newOutput(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 64<<10) }
