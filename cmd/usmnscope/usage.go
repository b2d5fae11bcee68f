package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The friendly side of usage errors (issue 16 defect 10; cli/cli's
// FlagErrorf and its "Run … --help" hints): a command line that cobra or
// pflag refuses gets a sentence that names the argument or flag and what
// it wants, then the command's usage line; an unknown command gets the
// commands it may have meant.

// argsError is a usage error (exit 2) in the command line's shape: a
// missing or extra argument, a bad flag value. Execute prints the command's
// usage line after it.
type argsError struct{ err error }

func (e argsError) Error() string { return e.err.Error() }
func (e argsError) Unwrap() error { return e.err }

// writeUsageHint prints, after an argument or flag error, the usage line of
// the command that refused it and where to read more; for the root (an
// unknown command) only the latter.
func writeUsageHint(w io.Writer, cmd *cobra.Command) {
	if cmd == nil {
		return
	}
	if cmd.HasParent() && cmd.Runnable() && !cmd.HasSubCommands() {
		fmt.Fprintf(w, "Usage: %s\n", cmd.UseLine())
		fmt.Fprintf(w, "Run '%s --help' for more.\n", cmd.CommandPath())
		return
	}
	fmt.Fprintf(w, "Run '%s --help' for usage.\n", cmd.CommandPath())
}

// argNames returns an Args check for a command taking exactly the named
// arguments (more with a trailing "..." name, as HEX... of bits), whose
// errors name what is missing or extra instead of counting.
func argNames(names ...string) cobra.PositionalArgs {
	variadic := len(names) > 0 && strings.HasSuffix(names[len(names)-1], "...")
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			missing := strings.TrimSuffix(strings.Join(names[len(args):], " "), "...")
			return argsError{fmt.Errorf("%s: missing %s", cmd.Name(), missing)}
		case len(args) > len(names) && !variadic:
			return argsError{fmt.Errorf("%s: unexpected argument %q: it takes %s", cmd.Name(), args[len(names)], strings.Join(names, " "))}
		}
		return nil
	}
}

// flagError is the root's flag error func: pflag's refusals, with a bad
// value said in words rather than as strconv's error ("--at \"abc\": want a
// whole number" for `strconv.ParseInt: parsing "abc": invalid syntax`).
func flagError(c *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) && iv.GetFlag() != nil {
		f := iv.GetFlag()
		return argsError{fmt.Errorf("%s--%s %q: %s", flagPrefix(c), f.Name, iv.GetValue(), wantValue(f, iv.Unwrap()))}
	}
	return argsError{fmt.Errorf("%s%w", flagPrefix(c), err)}
}

// flagPrefix names the command whose flag was refused, "dump: ", or
// nothing for the root: Execute's "usmnscope: " names it already, and
// "usmnscope: usmnscope: unknown flag" said it twice (issue 30).
func flagPrefix(c *cobra.Command) string {
	if !c.HasParent() {
		return ""
	}
	return c.Name() + ": "
}

// wantValue says what a flag of f's type takes, from the error its value
// gave: strconv's errors (the numbers and booleans of pflag) and time's
// (durations) in words; a value type of our own (the --max-* bounds) says
// it well already.
func wantValue(f *pflag.Flag, cause error) string {
	var ne *strconv.NumError
	if errors.As(cause, &ne) {
		if errors.Is(ne.Err, strconv.ErrRange) {
			return "out of range"
		}
		switch t := f.Value.Type(); {
		case t == "bool":
			return "want true or false"
		case strings.HasPrefix(t, "uint"):
			return "want a whole number ≥ 0"
		case strings.HasPrefix(t, "float"):
			return "want a number"
		}
		return "want a whole number"
	}
	if f.Value.Type() == "duration" {
		return "want a duration such as 30s, 5m or 1h30m"
	}
	if cause == nil {
		return "not a valid value"
	}
	return cause.Error()
}

// commandAliases are words a user may try for a command, which cobra then
// suggests it for (SuggestFor); near misses of the names themselves it
// finds by edit distance.
var commandAliases = map[string][]string{
	"open":     {"view", "show", "tui", "inspect", "read", "load"},
	"dump":     {"print", "list", "ls", "cat", "messages", "decode"},
	"bits":     {"hex", "decode", "parse", "bit"},
	"tables":   {"table", "listeners", "ids"},
	"live":     {"capture", "sniff", "listen"},
	"gen":      {"generate", "scenario", "fixture"},
	"simulate": {"sim", "replay", "server"},
	"profile":  {"config", "profiles", "settings"},
}

// suggestCommands makes unknown commands answer with suggestions at every
// level: a distance of 2 and the aliases above under the root, and the same
// for the subcommands of a command that has them (cobra suggests only
// under the root; `profile shwo` said nothing).
func suggestCommands(root *cobra.Command) {
	root.SuggestionsMinimumDistance = 2
	for _, c := range root.Commands() {
		c.SuggestFor = append(c.SuggestFor, commandAliases[c.Name()]...)
		if !c.HasSubCommands() {
			continue
		}
		c.SuggestionsMinimumDistance = root.SuggestionsMinimumDistance
		// A command with subcommands takes no arguments of its own: a
		// word cobra did not find among them is an unknown subcommand.
		orig := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if orig != nil {
					return orig(cmd, args)
				}
				return nil
			}
			var b strings.Builder
			fmt.Fprintf(&b, "unknown command %q for %q", args[0], cmd.CommandPath())
			if sug := cmd.SuggestionsFor(args[0]); len(sug) > 0 {
				b.WriteString("\n\nDid you mean this?\n")
				for _, s := range sug {
					fmt.Fprintf(&b, "\t%s\n", s)
				}
			}
			return argsError{errors.New(b.String())}
		}
	}
}
