package usage

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ArgsError is a usage error in the command line's shape: a missing or
// extra argument, a bad flag value, an unknown command. The command's
// usage line (Hint) follows it.
type ArgsError struct{ Err error }

func (e ArgsError) Error() string { return e.Err.Error() }
func (e ArgsError) Unwrap() error { return e.Err }

// Hint prints, after an argument or flag error, the usage line of
// the command that refused it and where to read more; for the root (an
// unknown command) only the latter.
func Hint(w io.Writer, cmd *cobra.Command) {
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

// Args returns an Args check for a command taking exactly the named
// arguments (more with a trailing "..." name, as HEX... of bits), whose
// errors name what is missing or extra instead of counting.
func Args(names ...string) cobra.PositionalArgs {
	variadic := len(names) > 0 && strings.HasSuffix(names[len(names)-1], "...")
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			missing := strings.TrimSuffix(strings.Join(names[len(args):], " "), "...")
			return ArgsError{fmt.Errorf("%s: missing %s", cmd.Name(), missing)}
		case len(args) > len(names) && !variadic:
			return ArgsError{fmt.Errorf("%s: unexpected argument %q: it takes %s", cmd.Name(), args[len(names)], strings.Join(names, " "))}
		}
		return nil
	}
}

// FlagError is a root's flag error func (cobra's SetFlagErrorFunc): pflag's refusals, with a bad
// value said in words rather than as strconv's error ("--at \"abc\": want a
// whole number" for `strconv.ParseInt: parsing "abc": invalid syntax`).
func FlagError(c *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) && iv.GetFlag() != nil {
		f := iv.GetFlag()
		return ArgsError{fmt.Errorf("%s--%s %q: %s", flagPrefix(c), f.Name, iv.GetValue(), wantValue(f, iv.Unwrap()))}
	}
	return ArgsError{fmt.Errorf("%s%w", flagPrefix(c), err)}
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

// IsArgs says whether err is a usage error in the command line's shape:
// an ArgsError, or one of cobra's own (isCobra).
func IsArgs(err error) bool {
	var a ArgsError
	return errors.As(err, &a) || isCobra(err)
}

// isCobra recognises cobra's own argument and flag errors, which are
// not typed: unknown commands and flags, argument counts, and the flag-group
// checks (MarkFlagsMutuallyExclusive, MarkFlagsRequiredTogether,
// MarkFlagsOneRequired, MarkFlagRequired), whose errors bypass the flag
// error func.
func isCobra(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument",
		"if any flags in the group", "at least one of the flags in the group", "required flag(s)"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// Suggest makes unknown commands answer with suggestions at every level:
// a distance of 2 and aliases (words a user may try for a command, which
// cobra then suggests it for; near misses of the names themselves it
// finds by edit distance) under the root, and the same
// for the subcommands of a command that has them (cobra suggests only
// under the root; `profile shwo` said nothing).
func Suggest(root *cobra.Command, aliases map[string][]string) {
	root.SuggestionsMinimumDistance = 2
	for _, c := range root.Commands() {
		c.SuggestFor = append(c.SuggestFor, aliases[c.Name()]...)
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
			return ArgsError{errors.New(b.String())}
		}
	}
}
