package views

// Config describes what is shown.
type Config struct {
	Name  string    // capture file or interface
	Parse ParseFunc // the CLI's filter language
	// Head, when not nil, gives a filter expression's test of a message's
	// index record (session.Head) when that is all the expression reads,
	// else nil: a scan of the list then decodes no message.
	Head HeadFunc
	Live bool // follow the tail until the user moves
	// Export writes the listed messages' packets, with what decoding them
	// needs, to a pcapng at path and returns how many it wrote: the CLI
	// re-reads the capture file, in a command (w). Nil when there is no
	// file to read.
	Export     ExportFunc
	ExportPath string  // the file name w offers (it asks, and never replaces a file without a yes)
	Columns    Columns // the message list's columns (columns.go)
	Theme      string  // "dark" or "light" (the config file), else the terminal's background decides
	// Filter is the display filter in force when the TUI opens (open
	// --filter); the CLI has checked that Parse accepts it.
	Filter string
	// Words are the filter bar's completions besides message names and
	// listener types: the filter language's field names.
	Words []string
	// Keys rebinds actions (rebind.go): an action's name and its keys,
	// none to turn it off. The CLI has checked them with CheckKeys.
	Keys map[string][]string
	// CopyCommand is the program and arguments the copy key (y) pipes the
	// text to (wl-copy, xclip -selection clipboard, pbcopy); empty: OSC 52
	// to the terminal.
	CopyCommand []string
}

// ExportFunc writes the messages numbered nums, with what their decoding
// needs, from the capture to a pcapng file at path, and returns how many
// packets it wrote.
type ExportFunc func(nums []int, path string) (int, error)
