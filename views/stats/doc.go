// Package stats is the TUI's statistics pane (issue 26, `s`): the
// groups of `usmnscope stats` (stats/report) as a table sortable by any
// column, one grouping at a time, with a latency histogram of the selected
// group's pairs. Enter on a row asks the root model to filter the message
// list to that group (FilterMsg, a display filter of package filter).
//
// It is a bubbles-style component (bubbles `table`): Model, New,
// Update returning the concrete type, View, SetSize, a KeyMap with short
// and full help, DefaultKeyMap and DefaultStyles. It draws what it is
// given (SetResult); computing the Result reads the capture and so runs
// in a command of the root model, never in Update or View.
package stats
