package feed

import (
	"hash/fnv"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// Units names a KCP datagram's session (ulinkrpc.md 2.3) for the merge
// of several captures (merge.Units): its conversation id `conv` (of a
// UKCP/UACK handshake or of every segment, which must agree), and a unit
// for each PUSH segment: its `sn` and the hash of its data. So a KCP
// conversation captured at both ends is matched through a NAT that gave
// it different UDP 4-tuples.
func Units(dst []merge.Unit, data []byte) (uint64, []merge.Unit, bool) {
	if h, ok := ulinkrpc.ParseHandshake(data); ok {
		return uint64(h.Conv), dst, h.Conv != 0
	}
	var conv uint32
	for off := 0; off < len(data); {
		sg, n, err := kcp.ParseSegment(data[off:])
		if err != nil || off > 0 && sg.Conv != conv {
			return 0, dst, false
		}
		conv = sg.Conv
		if sg.Cmd == kcp.CmdPush {
			h := fnv.New64a()
			h.Write(sg.Data)
			dst = append(dst, merge.Unit{Seq: sg.Sn, Hash: h.Sum64() ^ uint64(sg.Frg)})
		}
		off += n
	}
	return uint64(conv), dst, len(data) > 0 && conv != 0
}
