// Package pager is the scrolling overlay the root model opens over the
// panes: the help, the expert info (package expert), a followed connection
// (package follow), the I/O graph (package iograph) and the full text of a
// field or finding, wrapped. It scrolls the rows (frame.Row) those packages build; when
// the line under the cursor names a message or a connection, Enter asks the
// root to go there (JumpMsg).
package pager
