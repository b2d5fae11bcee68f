package capture_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
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

// ExampleOpen writes that message into a pcap file and reads it back with
// Open: the Data event's Offset says where its bytes lie in the file (24
// bytes of file header, 16 of record header, 20 of IPv4 and 20 of TCP), so
// that a consumer can drop them and read them again later.
func ExampleOpen() {
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: []byte{10, 0, 0, 2}, DstIP: []byte{10, 0, 0, 1}}
	tcp := &layers.TCP{SrcPort: 50000, DstPort: 27016, Seq: 1, ACK: true, PSH: true, Window: 512}
	tcp.SetNetworkLayerForChecksum(ip)
	buf := gopacket.NewSerializeBuffer()
	gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, tcp, gopacket.Payload("\x00\x02hi"))

	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "one.pcap")
	f, _ := os.Create(path)
	w := pcapgo.NewWriter(f)
	w.WriteFileHeader(65535, layers.LinkTypeRaw)
	w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(0, 0), CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}, buf.Bytes())
	f.Close()

	src, err := capture.Open(path, capture.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	file, _ := os.ReadFile(path)
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		if ev.Kind == capture.EventData {
			fmt.Printf("%q at offset %d; the file there: %q\n", ev.Data, ev.Offset, file[ev.Offset:ev.Offset+int64(len(ev.Data))])
		}
	}
	// Output:
	// "\x00\x02hi" at offset 80; the file there: "\x00\x02hi"
}
