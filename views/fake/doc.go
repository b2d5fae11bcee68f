// Package fake provides a synthetic source for the views' tests and
// benchmarks (Source: messages held or generated, connections, tables and
// findings as a test sets them). It names no protocol: the synthetic
// Unturned captures the tests load into it are unturned/fake's, a
// protocol's records a test's own.
package fake
