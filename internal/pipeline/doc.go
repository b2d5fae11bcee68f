// Package pipeline is the one wiring of capture to the protocol decoders:
// it turns each capture.Event (a flow opened, bytes of one direction, a gap,
// a close, a note) into the matching call on a session.Index. The CLI, the
// TUI and the tests all feed captures through it, so there is one mapping of
// capture rules, directions and note levels to the decoder's vocabulary.
//
// # Which connections are decoded
//
// Feed routes each TCP connection by wire.md section 2 (route.go): the
// ports named by --decode-as (Profile.DecodeAs), then transport_port, then,
// for a connection whose start was captured, its first client bytes (the
// registry of detectors in proto.go: a GetWorkshopFiles for SystemSockets;
// a second protocol adds a Proto and a detector). A connection held for
// its first client message is replayed with its own frames and times once
// decided; one that is not decoded gets one connection note and no
// messages.
//
// # ULinkRPC
//
// FeedRPC also decodes ULinkRPC (ulinkrpc.md 1) into an RPC's
// rpc.Sessions, one per connection: the RPC is rpc/feed's, which
// register.go wires into the router as a side (side.go), so that the
// router names no ULinkRPC type. A port --decode-as names ulinkrpc or
// one of RPC.Ports (the profile's [ulinkrpc] ports, default 20000)
// is ULinkRPC, held only until four client bytes tell a WebSocket upgrade
// (an HTTP GET) from the length-prefixed TCP stream, or, joined
// mid-stream, until the first bytes of either direction show WebSocket
// frames (masked from the client, each binary message one ULinkRPC frame)
// or chained length prefixes (rpc/feed's mid.go); on other ports a
// connection whose start was captured is ULinkRPC when its first client
// bytes are a frame that parses exactly, or a WebSocket upgrade whose first
// client message is one. UDP datagrams on those ports (capture's
// EventDatagram, asked for with RPC.DatagramPorts) feed one KCP session per
// UDP flow; so does a UDP flow on any other port that opens with the KCP
// handshake (capture probes each flow's first datagrams,
// capture.Options.ProbeDatagrams, and the router claims the flow), and a
// UACK naming another session port adds that flow to the session. The
// session.Index hosts each ULinkRPC connection (Index.OpenConn) and numbers
// its records with the Unturned messages, by arrival across the whole
// capture (outputs.md "Ordering"). Every command feeds with FeedRPC but
// profile infer, whose Feed decodes no ULinkRPC.
//
// # Writing a selection
//
// Export (export.go) writes selected messages back to a pcapng with what
// their decoding needs: their partners, and what each connection's
// protocol asks (its registration's decode.Export: the detection marks
// without which a connection is written whole, its context messages, the
// re-framing of its transport). It names no protocol: the rules of a
// connection are its protocol's, those of the host's own messages
// Unturned's.
//
// capture knows no protocol and the decoders do no IO; this package is the
// only place, with cmd/usmnscope, that imports both (the import-graph test
// in this package holds every package to that).
package pipeline
