// Package frame lays text out in fixed-size blocks for the panes: every
// line cut or padded to the pane's width, every block exactly its height, so
// that the root model can join panes without one pane's content pushing
// another's out of place.
package frame
