// Package infer searches the protocol constants of a profile (wire.md
// section 6) that explain a capture: `usmnscope profile infer` and the
// capture-level profile hint (outputs.md "profile infer", issue 25).
//
// # Method
//
// The capture is decoded once under the starting profile (the caller's
// Decoder replays it from memory); that decode gives the scores the
// output compares and a sample of the messages (at most 512, 32 a
// connection, from the start, where the handshakes and the first
// definitions are). The framing (wire.md 2) does not depend on the
// profile, so the search reads the sample's message bytes again under each
// candidate with unturned.Decode and the connection state of wire.md 4
// (widened once both markers were seen, or, for a connection whose start
// was not captured, each direction widened or not as reads it better;
// Serverside_ID_Bit_Count in force from the server's marker and each S→C
// definition), and counts the messages a candidate leaves inexact: an
// error or a warning, an Unknown message, a fixed-layout message with bits
// after its body, a detection message with an unknown trailer, a negotiate
// message that does not read exactly (wire.md 4.6), a listener ID used
// before any message defined it in a connection captured from its start,
// one ID given two type names.
//
// Two constants are read straight from the wire: transport_port (the
// server port of a connection whose first client message is a
// GetWorkshopFiles, wire.md 2) and marker_magic (the first 32 bits of the
// client's marker, wire.md 6). The others are decided in the order the
// wire lets them be, each stage trying its keys jointly with every
// survivor of the stages before (keys that interact, such as extra_bits and
// the negotiate mode width, or the ID-count and type-name widths, are
// judged together):
//
//  1. the game with the marker's ID-count width, from the workshop
//     handshake (the holiday width of DownloadWorkshopFiles, wire.md 3);
//  2. extra_bits with the internal message numbers each width shows in
//     the widened enums (wire.md 4.2, 6);
//  3. id_bit_count_bit_count and type_name_bit_count, from the listener
//     headers (wire.md 4.3);
//  4. negotiate_mode_bit_count with the mode values the negotiate messages
//     show (wire.md 4.4).
//
// A stage keeps every candidate that leaves the fewest messages inexact.
// Candidate profiles are bounded (RunBounded); the search says how many it
// read and how long it took.
//
// # What is claimed
//
// A key is claimed only when every surviving candidate has the same value
// for it, none of them holds a filler there (a value no message showed,
// e.g. the number of an internal message never sent), and a candidate with
// another value was read and left more messages inexact (the margin, which
// must also exceed the messages no candidate reads exactly). Its evidence
// names the messages that decided it. Every other searched key is listed as
// undecided with the reason. client_methods and server_methods are never
// claimed: an InvokeMethod's index is followed by its method-specific
// parameters, which no profile describes, so no decode shows a wrong width.
package infer
