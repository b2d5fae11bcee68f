// Package fake provides synthetic sources for the views' tests and
// benchmarks: a small capture with a vanilla and a USMN connection built
// bit by bit after wire.md 4.3, hostile strings, and a generator of
// arbitrarily many messages that stores none of them.
package fake
