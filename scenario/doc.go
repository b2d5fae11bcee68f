// Package scenario generates Unturned SystemSockets traffic: fixture
// captures from scenario files, load captures of many messages, and a
// simulator that plays a scenario over real TCP sockets.
//
// # Scenarios
//
// A scenario file (TOML, documented in fixtures/README.md) names
// connections, which sides run USMN, the listeners each side registers and
// a script of actions. Scripts plays the actions under USMN's rules
// (../shared/spec/wire.md 4.2–4.4): the detection messages carry the
// markers and keep vanilla widths, later enums are widened when both sides
// run USMN, servers number listeners 0, 1, 2 … with
// Serverside_ID_Bit_Count = CountBits(highest ID), the first invoke toward
// a peer carries the definition, the client uses its own 32-bit ID until
// TellClientListenerId gives it the server's, and a side that lacks a
// listener says so with TellClientMissingListener or
// TellServerMissingListener. Messages are written by unturned.Encoder.
//
// # Packets
//
// Each write becomes TCP segments with correct sequence and
// acknowledgement numbers and IPv4 header and TCP checksums, over IPv4 or
// IPv6 and one of several link layers, framed as wire.md 2 describes (a
// 2-byte big-endian length before each message). Transport options cut
// segments small, split frame headers across segments (the old receiver bug
// of wire.md 2), retransmit, reorder or lose segments and start the capture
// mid-connection. Output is pcapng or pcap; everything, initial sequence
// numbers and timestamps included, follows from the scenario and its seed.
//
// # Load
//
// Scale writes a capture of many messages over many connections with a
// realistic mix (pings, short-ID invokes, some definitions and
// negotiation), straight into a reused buffer, for benchmarks and for
// trying the TUI on big captures.
//
// # Simulation
//
// Sim plays a scenario between a real server and client over TCP
// (127.0.0.1:27016 by default) in real time, scaled, or as fast as
// possible, so that live capture can be tried without the game.
// Sim.RunRPC does the same for a ULinkRPC scenario over its transport
// (ulinkrpc.md 2): TCP, a WebSocket after a real HTTP/1.1 upgrade, or KCP
// over UDP after the UKCP/UACK handshake, on the scenario's server port
// (20000 by default). Both ends follow the script in lockstep, sending the
// generator's bytes and checking the peer's as they arrive, so that a live
// capture decodes to the scenario's records.
package scenario
