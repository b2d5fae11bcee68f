package session

import "testing"

// ReadFixture decodes a capture file into an Index. Reading a capture needs
// internal/pipeline, which imports this package, so the external test
// package (fixture_test.go) sets it; the internal tests call it.
var ReadFixture func(t testing.TB, path string, store bool) *Index

// FixtureSchemas and SchemaFixture are the payload tests' schemas and
// capture, for the external tests.
var FixtureSchemas = fixtureSchemas

const SchemaFixture = schemaFixture

// Prepared reports whether message n, in a Stream's Settled, comes with
// the decoding its commit made (not decoded again).
func (c *Index) Prepared(n int) bool { return c.prepared(int32(n-1)) != nil }

// NoSlim makes c keep every ULinkRPC record as a record (hostedslim.go):
// the reference slim records are compared with.
func (c *Index) NoSlim() { c.noSlim = true }

// Slim counts c's ULinkRPC records kept slim.
func (c *Index) Slim() int {
	k := 0
	for i := range c.nrec {
		if r := c.rec(int32(i)); r.flags&recHosted != 0 && r.idBits&hostedSlim != 0 {
			k++
		}
	}
	return k
}
