// Package decode is the protocol seam of the neutral core (issue 23):
// what a protocol is to the host, modelled on gopacket's LayerType and
// StreamFactory.
//
//   - A Protocol is a value: its name, the TCP ports and UDP datagram ports
//     it claims by default, its content detection on a connection's first
//     client bytes, and the constructor of its per-connection state.
//   - A Conn is that state: it takes the bytes and gaps of each direction
//     with their stamps, datagrams and the end, says whether it holds
//     bytes it cannot hand out yet (resynchronisation), and hands each
//     decoded record to the host (Config.Yield).
//   - A Record is what the host numbers, stores, streams, cuts and pairs
//     without knowing the protocol: Meta (number, frame, time, connection,
//     direction, protocol, typed name, length, bytes, findings, pair and
//     latency), its summary line, its layer tree of Nodes with bit spans,
//     its JSON object and its filter fields.
//   - Facts are what a Record may state beyond Meta, each an interface a
//     host asks for by type assertion (facts.go): Caller (a call's service,
//     method and IDs), ValueWriter (its values as its JSON spells them),
//     Framed (its framing on the wire).
//   - Tables are what a protocol adds up on a connection, when it keeps
//     tables of its own (tables.go): their `tables` text and the rows of
//     the TUI's tables pane.
//   - What a Conn offers its host beyond Conn is an interface too, asked
//     for once when the host opens the connection (host.go): Labeled (its
//     label in a list of connections), Budgeted (the bytes a stream may
//     hold of its records), Tallied (its Tables now, empty and as of a
//     message, and its `tables --json` entry), Reuser (records taken back
//     once printed) and Keeper (records a full host keeps compact or slim:
//     their bytes and a Place, restored when read).
//   - Export is a protocol's part in writing a selection back to a capture
//     file (export.go): the Framing of its connections (a stream's Place,
//     a UDP flow's Datagrams, over Placed messages, Ranges and Datagrams
//     of its own vocabulary), the detection marks without which a
//     connection is written whole, and the messages written as context.
//
// The protocols register in one place (internal/pipeline's register.go,
// Register here); a test may register a protocol of its own.
//
// decode sits over dissect and under every codec: it knows no protocol.
package decode
