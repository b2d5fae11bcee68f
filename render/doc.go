// Package render is the one render layer of the text outputs: a message's
// dump line and -V tree (Format), dump -x's hex and ASCII (HexASCII), the
// streamed text and NDJSON dumps (Text, JSONStream), the tables text
// (Tables), the ULinkRPC line and per-method tables, and the bit-level view
// of `bits` (Bits). It reads the session's records and writes bytes; every
// string from the wire goes through termsafe (style.md "one escaping
// rule"), and nothing here reads a capture.
//
// # Outputs
//
// The formats are outputs.md's; the NDJSON records themselves are made by
// the session (Index.AddJSON), which knows what each record holds.
package render
