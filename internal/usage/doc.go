// Package usage is the friendly side of a cobra command line's usage
// errors (issue 16 defect 10; cli/cli's FlagErrorf and its "Run … --help"
// hints): a command line that cobra or pflag refuses gets a sentence that
// names the argument or flag and what it wants (Args, FlagError), then the
// command's usage line (Hint); an unknown command gets the commands it may
// have meant (Suggest). IsArgs tells these errors, cobra's untyped ones
// included, from the rest. It knows no command of usmnscope's.
package usage
