// Package status renders the status bar: capture name or interface,
// profile (wire.md 6), message and connection counts, the worst finding in
// the capture, loading progress, and for live captures packets/s, kernel
// drops and whether the list is paused or following the tail.
package status
