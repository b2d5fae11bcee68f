package decode

import "io"

// Tables is what a protocol adds up on one connection as of a message,
// when it keeps tables of its own (ULinkRPC's `rpc` object of tables
// --json): `tables` prints it and the TUI's tables pane lists it, neither
// knowing the protocol. The listener tables of Unturned are the host's
// and are not one.
type Tables interface {
	// WriteText writes the connection's `tables` text after the host's
	// "connection CONN: ": the rest of that line (the protocol, how it is
	// carried, the records counted), then the tables, indented by two
	// spaces. The host writes the connection findings after it.
	WriteText(w io.Writer)
	// Rows are the tables pane's lines, without the table-level warnings
	// the host lists after them.
	Rows() []Row
	// Goes is the help text of Enter on a row with a Go ("go to pending
	// request").
	Goes() string
}

// RowStyle is how the tables pane draws a Row.
type RowStyle uint8

const (
	RowPlain   RowStyle = iota
	RowHeading          // a section's title
	RowWarn             // errors, pending, warnings
)

// Row is one line of a Tables in the tables pane. Text is escaped for a
// terminal; Go, when not 0, is the message Enter on the row goes to.
type Row struct {
	Text  string
	Style RowStyle
	Go    int
}
