package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestCaptureOptions: the capture options come from the protocols once:
// the profile's ports and bounds for SystemSockets; with ULinkRPC, the KCP
// datagram ports (its ports and those --decode-as names ulinkrpc, less
// those it turns off) and the probe of UDP flows on other ports; without
// it, neither.
func TestCaptureOptions(t *testing.T) {
	p := unturned.Default()
	p.DecodeAs = "20000=none,31000=ulinkrpc"
	rp := pipeline.NewRPC(rpc.Config{})
	rp.Ports = []uint16{20000, 20001}
	got := pipeline.CaptureOptions(p, rp)
	if got.TransportPort != p.TransportPort || got.QueryPort != p.QueryPort || got.DatagramPorts != [4]uint16{20001, 31000} || got.ProbeDatagrams != pipeline.KCPProbeDatagrams {
		t.Errorf("CaptureOptions(decode-as %s, ports %v) = transport %d query %d UDP %v probe %d; want %d %d [20001 31000 0 0] %d",
			p.DecodeAs, rp.Ports, got.TransportPort, got.QueryPort, got.DatagramPorts, got.ProbeDatagrams, p.TransportPort, p.QueryPort, pipeline.KCPProbeDatagrams)
	}
	if got := pipeline.CaptureOptions(p, nil); got.DatagramPorts != [4]uint16{} || got.ProbeDatagrams != 0 {
		t.Errorf("CaptureOptions without ULinkRPC = UDP %v probe %d; want none", got.DatagramPorts, got.ProbeDatagrams)
	}
	lo := pipeline.LiveOptions(p, rp, pipeline.Live{Interface: "lo", SnapLen: 100, Write: "w.pcapng"})
	if !slices.Equal(lo.TCPPorts, []uint16{20001, 31000}) || lo.DatagramPorts != [4]uint16{20001, 31000} || lo.AllTCP || lo.ProbeDatagrams != 0 || lo.SnapLen != 100 || lo.Write != "w.pcapng" || !lo.BPF {
		t.Errorf("LiveOptions = TCP %v UDP %v all %v probe %d snaplen %d write %q BPF %v; want TCP [20001 31000], the same UDP, no probe, 100, w.pcapng, the filter on",
			lo.TCPPorts, lo.DatagramPorts, lo.AllTCP, lo.ProbeDatagrams, lo.SnapLen, lo.Write, lo.BPF)
	}
	if lo := pipeline.LiveOptions(p, rp, pipeline.Live{Interface: "lo", AnyPort: true}); !lo.AllTCP || lo.ProbeDatagrams != pipeline.KCPProbeDatagrams {
		t.Errorf("LiveOptions(--any-port) = all TCP %v probe %d; want all TCP and the probe", lo.AllTCP, lo.ProbeDatagrams)
	}
}

// TestOpen: Open decodes a capture file and standard input alike (the
// same messages), the file with itself as the index's store (messages
// recorded by offset), standard input with its bytes in memory.
func TestOpen(t *testing.T) {
	path := filepath.Join("..", "..", "fixtures", "captures", "usmn-basic.pcapng")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lens [2]int
	for i, o := range []pipeline.Options{{Path: path}, {Path: "-", Stdin: bytes.NewReader(raw)}} {
		d, err := pipeline.Open(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Feed(nil); err != nil {
			t.Fatal(err)
		}
		d.Source.Close()
		file, memory := d.Index.Placement()
		lens[i] = d.Index.Len()
		if o.Path == "-" && file != 0 || o.Path != "-" && file == 0 {
			t.Errorf("Open(%q): %d messages by offset in the file, %d in memory; want the file's in it, stdin's in memory", o.Path, file, memory)
		}
	}
	if lens[0] == 0 || lens[0] != lens[1] {
		t.Errorf("Open: %d messages from the file, %d from stdin; want the same, some", lens[0], lens[1])
	}
}
