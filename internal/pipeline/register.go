package pipeline

import (
	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/rpc"
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
//     natively (New nil) this round.
//   - ULinkRPC (ulinkrpc.md): its ports the default profile's [ulinkrpc]
//     ports (a decode's RPC options may replace them), its detector a
//     length-prefixed frame or a WebSocket upgrade carrying one; its
//     connections are rpc sessions made with the decode's RPC options
//     (RPC.start: rpc.Protocol), so a feed without them does not decode it.
func init() {
	decode.Register(&decode.Protocol{Name: ProtoUnturned.String(), Need: 2 + gwfLen, Detect: detectGetWorkshopFiles})
	decode.Register(&decode.Protocol{Name: rpc.Name, Ports: DefaultRPCPorts, DatagramPorts: DefaultRPCPorts,
		Need: rpcNeed, Detect: detectULinkRPC})
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
