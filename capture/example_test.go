package capture_test

import (
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/usmnscope/usmnscope/capture"
)

// ExampleNewPackets feeds one SystemSockets message (2-byte length, then
// bytes) sent from a client to port 27016, seen without its handshake.
func ExampleNewPackets() {
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: []byte{10, 0, 0, 2}, DstIP: []byte{10, 0, 0, 1}}
	tcp := &layers.TCP{SrcPort: 50000, DstPort: 27016, Seq: 1, ACK: true, PSH: true, Window: 512}
	tcp.SetNetworkLayerForChecksum(ip)
	buf := gopacket.NewSerializeBuffer()
	gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, tcp, gopacket.Payload("\x00\x02hi"))

	src := capture.NewPackets([]capture.Packet{{Data: buf.Bytes(), Link: layers.LinkTypeRaw, Time: time.Unix(0, 0)}}, capture.Options{})
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		switch ev.Kind {
		case capture.EventOpen:
			fmt.Printf("frame %d: open %v (rule %v)\n", ev.Frame, ev.Flow, ev.Rule)
		case capture.EventData:
			fmt.Printf("frame %d: %q from server: %v\n", ev.Frame, ev.Data, ev.FromServer)
		}
	}
	// Output:
	// frame 1: open 10.0.0.2:50000 → 10.0.0.1:27016 (rule port)
	// frame 1: "\x00\x02hi" from server: false
}
