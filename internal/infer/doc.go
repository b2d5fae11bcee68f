// Package infer searches the protocol constants of a profile (wire.md
// section 6) that best explain a capture: `usmnscope profile infer`
// (outputs.md "profile infer").
//
// # Method
//
// The capture is decoded again under candidate profiles (the caller's
// Decoder replays it from memory) and each decode is scored by what a
// wrong constant leaves behind: error and warning findings, Unknown
// messages, unknown trailers, unresolved references. Two constants are read
// straight from the wire: transport_port (the server port of a connection
// whose first client message is a GetWorkshopFiles, wire.md 2) and
// marker_magic (the first 32 bits of the client's marker, wire.md 6).
// The others are searched one group at a time (game; extra_bits with the
// internal message numbers seen; id_bit_count_bit_count;
// negotiate_mode_bit_count with the modes seen; type_name_bit_count), twice
// round, and a last round judges each group with the rest fixed.
//
// # What is claimed
//
// A key is claimed only when the capture decides it: some candidate scores
// worse, every best-scoring candidate agrees on the key's value, and (for
// the internal numbers and the modes) a message of that kind was seen. The
// rest is left out and keeps its default. client_methods and server_methods
// are never claimed: an InvokeMethod's index is followed by its
// method-specific parameters, which no profile describes, so no decode
// shows a wrong width (a limit of this package, said plainly).
package infer
