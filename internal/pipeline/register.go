package pipeline

import (
	"slices"
	"strings"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/rpc"
	rpcfeed "github.com/usmnscope/usmnscope/rpc/feed"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// The one registration of the protocols (issue 23): every decode reads the
// registry (decode.Protocols) for the ports it claims, the content
// detectors it runs on connections on no named port and the constructor
// of a connection's state. A test may register a protocol of its own
// (decode.Register) and a decode then finds, routes, hosts and shows it
// with no other change.
//
//   - Unturned (SystemSockets, wire.md): its port is the profile's
//     transport_port, its detector a GetWorkshopFiles; the host decodes it
//     natively (New nil) this round. Its "msg" names are unturned.Kind's.
//   - ULinkRPC (ulinkrpc.md): its ports the default profile's [ulinkrpc]
//     ports (a decode's RPC options may replace them), its detector a
//     length-prefixed frame or a WebSocket upgrade carrying one; its
//     connections are rpc sessions made with the decode's RPC options
//     (rpc/feed's RPC.Start: rpc.Protocol), so a feed without them does
//     not decode it.
//     Its "msg" names are the frame types', and Encrypted (outputs.md
//     "ULinkRPC records").
func init() {
	decode.Register(&decode.Protocol{Name: ProtoUnturned.String(), Need: 2 + gwfLen, Detect: detectGetWorkshopFiles,
		Names: unturnedNames()})
	decode.Register(&decode.Protocol{Name: rpc.Name, Ports: DefaultRPCPorts, DatagramPorts: DefaultRPCPorts,
		Need: rpcfeed.Need, Detect: rpcfeed.Detect, Names: rpcNames()})
}

// The ULinkRPC side of a feed lives with its protocol (rpc/feed); these
// names keep the pipeline's callers (the commands, the TUI, the tests) as
// they were.
type RPC = rpcfeed.RPC

const (
	// ContractsFlag is the flag naming the folder of C# contracts
	// (rpcfeed.ContractsFlag).
	ContractsFlag = rpcfeed.ContractsFlag
	// KCPProbeDatagrams is rpcfeed.ProbeDatagrams.
	KCPProbeDatagrams = rpcfeed.ProbeDatagrams
)

// DefaultRPCPorts are rpcfeed.DefaultPorts.
var DefaultRPCPorts = rpcfeed.DefaultPorts

// NewRPC is rpcfeed.New.
func NewRPC(cfg rpc.Config) *RPC { return rpcfeed.New(cfg) }

// RPCOf is rpcfeed.Of.
func RPCOf(r unturned.RPCProfile, c *ulinkrpc.Contracts) (*RPC, error) { return rpcfeed.Of(r, c) }

// RPCWith is rpcfeed.With.
func RPCWith(r unturned.RPCProfile, dir string) (*RPC, error) { return rpcfeed.With(r, dir) }

// RPCBounds is rpcfeed.Bounds.
func RPCBounds(cfg *rpc.Config, b unturned.Bounds) { rpcfeed.Bounds(cfg, b) }

// ReadContracts is rpcfeed.ReadContracts.
func ReadContracts(dir string) (*ulinkrpc.Contracts, error) { return rpcfeed.ReadContracts(dir) }

// The profile's [limits] (SECURITY.md "Bounds") joined to capture's:
// unturned states the decoder's share and leaves the capture layer's zero,
// "capture's default", since it does not import capture; here the two
// meet.

// DefaultBounds returns the default [limits] of a profile with every bound
// stated: the decoder's share as unturned states it, the capture layer's
// share as capture states it (CaptureBounds).
func DefaultBounds() unturned.Bounds { return CaptureBounds(unturned.DefaultBounds()) }

// CaptureBounds returns b with each capture bound that is zero set to
// capture's default (capture.DefaultOptions, unturned.Bounds.Fill), so
// that what the CLI shows (profile show, the --max-* defaults) is what the
// capture runs with.
func CaptureBounds(b unturned.Bounds) unturned.Bounds {
	d := capture.DefaultOptions()
	return b.Fill(unturned.Bounds{
		MaxFlowBuffer: unturned.Size(d.MaxBufferedPerFlow), MaxTotalBuffer: unturned.Size(d.MaxBufferedTotal),
		MaxFlows: d.MaxFlows, MaxFragments: d.MaxFragments, MaxFragmentBytes: unturned.Size(d.MaxFragmentBytes),
		MaxFragmentDatagrams: d.MaxFragmentDatagrams, MaxInterfaces: d.MaxInterfaces, MaxNotes: d.MaxNotes,
		MaxDecompressed: unturned.Size(d.MaxDecompressed),
	})
}

// DefaultBound is the built-in default of the [limits] key (DefaultBounds),
// 0 for a key there is none of.
func DefaultBound(key string) int {
	n, _ := DefaultBounds().Get(key)
	return n
}

// ParseBound is unturned.ParseBound.
func ParseBound(key string, size bool, s string) (int, error) {
	return unturned.ParseBound(key, size, s)
}

// FormatBound is unturned.FormatBound.
func FormatBound(size bool, v int) string { return unturned.FormatBound(size, v) }

// datagramUnits name the datagram sessions several captures share
// (merge.Units) when rp decodes ULinkRPC: its KCP conversations
// (rpcfeed.Units); nil when ULinkRPC is not decoded.
func datagramUnits(rp *RPC) merge.Units {
	if rp == nil {
		return nil
	}
	return rpcfeed.Units
}

// sideDecoded reports whether d's ULinkRPC side opened a session: a read
// that breaks off keeps what was decoded (Read).
func (d *Decode) sideDecoded() bool { return d.RPC != nil && len(d.RPC.Sessions()) > 0 }

// newRouter is the router of a feed into ix with the registered protocols
// and, when rp is not nil, ULinkRPC's side: the router holds it as a side
// (side.go), which names no ULinkRPC type.
func newRouter(ix *session.Index, rp *RPC, as map[uint16]Proto) *router {
	var sd side
	if rp != nil {
		sd = rp
	}
	return routerOf(ix, sd, as)
}

// unturnedNames are the names of unturned.Kind, each once, without the
// Unknown(…) of a kind past the last.
func unturnedNames() []string {
	var out []string
	for k := unturned.Kind(0); !strings.HasPrefix(k.String(), "Unknown("); k++ {
		if !slices.Contains(out, k.String()) {
			out = append(out, k.String())
		}
	}
	return out
}

// rpcNames are the names of the ULinkRPC frame types, then Encrypted (a
// frame the transform layer could not open; Unknown is Unturned's too).
func rpcNames() []string {
	var out []string
	for t := ulinkrpc.Request; t.Known(); t++ {
		out = append(out, t.String())
	}
	return append(out, "Encrypted")
}

// protoOf is the router's Proto of a registered protocol: Unturned and
// ULinkRPC have their own, every other one is ProtoHosted.
func protoOf(p *decode.Protocol) Proto {
	switch p.Name {
	case ProtoUnturned.String():
		return ProtoUnturned
	case rpc.Name:
		return ProtoULinkRPC
	}
	return ProtoHosted
}

// registered are the detectors of the registered protocols in the order
// they registered, ULinkRPC's only when the feed decodes it (rpc), and the
// hosted protocols (those with a constructor other than ULinkRPC).
func registered(rpc bool) (dets []detector, hosted []*decode.Protocol) {
	for _, p := range decode.Protocols() {
		pr := protoOf(p)
		if pr == ProtoULinkRPC && !rpc {
			continue
		}
		if pr == ProtoHosted {
			if p.New == nil {
				continue
			}
			hosted = append(hosted, p)
		}
		if p.Detect != nil {
			dets = append(dets, detector{proto: pr, need: p.Need, check: p.Detect, hp: p})
		}
	}
	return dets, hosted
}

// Export's protocol parts (export.go): what of a selection written back
// is ULinkRPC's or Unturned's, and the re-framing of each transport.

// framingOf is how Export writes back the connection of h: ULinkRPC's by
// its transport (rpcfeed's Place*), any other as SystemSockets.
func framingOf(idx *session.Index, h *session.Head) framing {
	if h.RPC == nil {
		return systemSockets(idx)
	}
	switch h.RPC.Transport {
	case rpc.TCP:
		return framing{place: rpcfeed.PlaceFrames, across: true}
	case rpc.WebSocket:
		return framing{place: func(s []byte, _ func(from, to int64) bool, hs []session.Head, kept map[int]bool, _ map[int]capture.Range) ([]capture.Range, error) {
			return rpcfeed.PlaceWebSocket(s, hs, kept)
		}}
	case rpc.KCP:
		return framing{datagrams: rpcfeed.PlaceKCP}
	}
	return framing{}
}

// exportHosted reports whether h is a ULinkRPC message, and its partner
// (a Request's Response): Export writes it with its partner and the first
// frame of each direction of its connection.
func exportHosted(h *session.Head) (pair int, ok bool) {
	if h.RPC == nil {
		return 0, false
	}
	return h.RPC.Pair, true
}

// handshakeMark is h's USMN detection mark (1: GetWorkshopFiles, 2:
// DownloadWorkshopFiles, else 0): an Unturned connection without both is
// written whole (exportSet).
func handshakeMark(h *session.Head) int {
	switch h.Kind {
	case unturned.KindGetWorkshopFiles:
		return 1
	case unturned.KindDownloadWorkshopFiles:
		return 2
	}
	return 0
}

// unturnedContext reports whether the Unturned message h, not asked for
// and before the last message written on its connection, is written for
// their decoding: the handshake messages that carry the USMN markers,
// every NegotiateListenerDetails and every InvokeMessageListener that
// carries a listener definition.
func unturnedContext(idx *session.Index, h *session.Head) bool {
	switch h.Kind {
	case unturned.KindGetWorkshopFiles, unturned.KindDownloadWorkshopFiles, unturned.KindNegotiateListenerDetails:
		return true
	case unturned.KindInvokeMessageListener:
		if m := idx.Detail(h.N); m != nil && hasDefinition(m) {
			return true
		}
	}
	return false
}

func hasDefinition(m *session.Message) bool {
	for _, f := range m.Fields {
		if f.Name == "Has_Listener_Definition" {
			if b, ok := f.Value.(bool); ok && b {
				return true
			}
		}
	}
	return false
}
