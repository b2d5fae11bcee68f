// Package realnet holds no production code: its tests run real network
// stacks over real sockets and check that usmnscope decodes what they sent
// (issue 24, "Exact on real networks").
//
// # The lab
//
// TestRealNet runs the test binary again in a network namespace of its
// own (CLONE_NEWNET, as `unshare -n` does), where it brings up lo with a
// 1500-byte MTU, drops packets at random with nftables (`numgen random`,
// half of the loss rate on the output hook, before the capture point, half
// on the input hook, after it, so that the capture holds both lost
// originals and retransmissions that never had one) and captures lo with
// tcpdump. In it, for each loss rate (0, 2, 5 and 10 %) and seed:
//
//   - Unturned SystemSockets/USMN messages as package scenario's player
//     writes them (Scenario.Scripts), written by a real client and server
//     over Linux TCP in lockstep: a side writes once it has read what the
//     script has the peer send before;
//   - ULinkRPC frames (ulinkrpc.md 4: requests, responses with and without
//     errors, pushes, keep-alive pings and pongs both ways) from package
//     ulinkrpc's encoders, between a client that keeps several requests
//     outstanding and a server that answers each after its own delay, so
//     that responses overtake each other, over Linux TCP, over a real
//     WebSocket library (gorilla/websocket: masked client frames, messages
//     fragmented by small write buffers, pings between fragments), and over
//     a real KCP stack (kcp-go's ARQ, FEC and encryption off, message mode,
//     after the UKCP/UACK handshake of ulinkrpc.md 2.3) whose datagrams are
//     also reordered and duplicated on the way.
//
// Each side logs what it sent, in its send order. The capture is split by
// connection and each part decoded as `dump --json` decodes a file (a
// streaming session.Index with spans, the file as its Store,
// pipeline.FeedRPC), and the records are checked: every message once, with
// its bytes, in each direction's send order, paired as sent, no
// `usmnscope bug` finding and no error finding; then the part is decoded
// again through a full Index (the TUI's) and must give the same JSON
// lines. The test logs a table of what was sent, captured, decoded and
// paired, and of the transports' repairs the captures show
// (retransmissions, re-cut retransmissions, KCP reordering, WebSocket
// fragments and pings), per group and loss rate.
//
// A symptom of a defect that branch exact fixes (issue 24's points 1 and
// 2) skips its sub-test with "needs fix from branch exact: …"; anything
// else fails. testdata keeps lab captures with their send logs
// (TestRegressionCaptures, no root needed): one that showed a defect, and
// real-stack shapes for the other checks.
//
// It needs root, CLONE_NEWNET, nft and tcpdump; without them the test
// skips with the reason, unless USMNSCOPE_REALNET_REQUIRED is set (.ci/run
// sets it), when it fails.
package realnet
