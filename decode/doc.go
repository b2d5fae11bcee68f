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
//
// The protocols register in one place (internal/pipeline's register.go,
// Register here); a test may register a protocol of its own.
//
// decode sits over dissect and under every codec: it knows no protocol.
package decode
