package pipeline

import (
	"slices"
	"strings"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/rpc"
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
//     (RPC.start: rpc.Protocol), so a feed without them does not decode it.
//     Its "msg" names are the frame types', and Encrypted (outputs.md
//     "ULinkRPC records").
func init() {
	decode.Register(&decode.Protocol{Name: ProtoUnturned.String(), Need: 2 + gwfLen, Detect: detectGetWorkshopFiles,
		Names: unturnedNames()})
	decode.Register(&decode.Protocol{Name: rpc.Name, Ports: DefaultRPCPorts, DatagramPorts: DefaultRPCPorts,
		Need: rpcNeed, Detect: detectULinkRPC, Names: rpcNames()})
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
