// Package feed is the ULinkRPC side of a capture's feed (ulinkrpc.md 1,
// issue 15): the RPC a decode is given decodes the connections and UDP
// flows the host's router (internal/pipeline) finds to be ULinkRPC, each
// into its own rpc.Session, hosted by the session.Index that numbers its
// records with every other protocol's.
//
// The router knows no ULinkRPC: it asks this side, through the values
// internal/pipeline/register.go wires in, whether a port is ULinkRPC's
// (OnPort), whether a connection joined mid-stream shows its transport yet
// (Mid), and hands it the connections it decided (Start, Event), the
// datagrams no hosted protocol takes (Datagram: KCP, ulinkrpc.md 2.3) and
// the end of the feed (Finish). What the router needs to decide a
// connection by content is here too: the detector the registry runs
// (Detect, Need), the transport of a connection by its first bytes
// (detect.go, mid.go), the probe of a UDP flow's KCP handshake
// (ProbeDatagrams), and the naming of the KCP conversations several
// captures share (Units, for merge). contracts.go builds an RPC from a
// profile's [ulinkrpc] table and a folder of C# contracts; export.go is
// ULinkRPC's part in writing a selection back (Export, decode.Export: each
// transport's re-framing).
//
// It sits over session, which hosts its sessions, and capture, whose
// events it takes, and under internal/pipeline, which routes to it (the
// import-graph test in internal/pipeline places it).
package feed
