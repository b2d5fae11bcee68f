// Package dissect is the protocol-neutral core every protocol decoder of
// usmnscope produces and every tool reads: directions, findings, connection
// identity and fields with bit spans.
//
// # Fields
//
// A Field is one decoded value with the exact bits it came from (name, bit
// offset, bit length, value). The field tree, the bit-level hexdump
// highlight, `dump -V`, the JSON output and the display filter all read the
// same Field, so a field's position is recorded once. Byte-oriented
// protocols (ULinkRPC) record byte spans as bit offsets that are multiples
// of 8. Nested fields use dotted names ("marker.magic"); a protocol's tree
// is built from the dots.
//
// FormatValue writes a field's value for a terminal (the TUI's field tree
// and the text outputs, each in its own ValueFormat) and Owners maps each
// bit of a message to the field that covers it (the TUI's hexdump and
// `usmnscope bits`): both are written once, here.
//
// # Findings
//
// A Finding is expert information in outputs.md's vocabulary: a Severity
// (note, warn, error), a Group (malformed, sequence, undecoded, protocol,
// inference), a text and the bit it points at. A decode error is a finding
// on the message: what was decoded before it is kept.
//
// # Connections
//
// Conn names a connection by its client and server ends; it is comparable
// and serves as a map key (gopacket's Flow does the same).
package dissect
