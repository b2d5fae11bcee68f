// Package frame lays text out in fixed-size blocks for the panes: every
// line cut or padded to the pane's width, every block exactly its height, so
// that the root model can join panes without one pane's content pushing
// another's out of place.
//
// # Lists
//
// List, ListKeyMap and ListStyles are the list behaviour the panes share,
// written once: the cursor and scroll window, the size and focus, the
// up/down/first/last keys and the title-and-rows rendering. A pane embeds
// them and keeps what is its own.
package frame
