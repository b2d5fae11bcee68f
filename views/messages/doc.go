// Package messages is the message-list pane: one line per decoded message
// of the selected connection (or of all), virtualised so that only the
// visible rows are ever fetched, with a display filter applied lazily in
// bounded steps so a million-row capture stays responsive.
//
// # Rows
//
// A row shows the worst finding's severity letter (E, W, N: readable without
// colour), the message number, the time relative to the first message, the
// direction (→ c2s, ← s2c), the name with ⁺ when the enum was read widened
// (wire.md 4.2), and the decoder's one-line summary.
//
// # Filtering
//
// A display filter either hides the rows that do not match (the default) or
// marks the matches for n/N. Matches are found by Scan in bounded steps, so
// the list stays responsive while a million rows are tested.
package messages
