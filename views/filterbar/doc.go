// Package filterbar is the one-line prompt at the bottom: "/" edits a
// display filter in the CLI's filter language, validated as you type (an
// error turns the line red and points at its position); ":" reads a
// message number to go to.
//
// # Positions
//
// Errors point at a 1-based column, as the CLI's filter errors do.
package filterbar
