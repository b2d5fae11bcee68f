package views_test

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/views"
)

// snsOnly writes a pcapng of SteamNetworkingSockets UDP on the game port
// (27016) between one client and the server: no TCP at all.
func snsOnly(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sns-only.pcapng")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := pcapgo.NewNgWriter(f, layers.LinkTypeEthernet)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := 0; i < 4; i++ {
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: net.IP{10, 0, 0, 2}, DstIP: net.IP{10, 0, 0, 1}}
		udp := &layers.UDP{SrcPort: 50000, DstPort: 27016}
		if i%2 == 1 {
			ip.SrcIP, ip.DstIP = ip.DstIP, ip.SrcIP
			udp.SrcPort, udp.DstPort = udp.DstPort, udp.SrcPort
		}
		_ = udp.SetNetworkLayerForChecksum(ip)
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, udp, gopacket.Payload{1, 2, 3, 4, byte(i)}); err != nil {
			t.Fatal(err)
		}
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * time.Second), CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}
		if err := w.WritePacket(ci, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 16 defect 1, under teatest over a real decode: a UDP-only
// SteamNetworkingSockets capture puts the advice to run the server with
// -NetTransport SystemSockets on the screen (the expert pane opens by
// itself when nothing decoded; e opens it too).
func TestSNSAdviceOnScreen(t *testing.T) {
	path := snsOnly(t)
	d, err := pipeline.Open(pipeline.Options{Path: path, InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Source.Close()
	if err := d.Feed(nil); err != nil {
		t.Fatal(err)
	}
	dc := d.Index
	tm := teatest.NewTestModel(t, views.New(dc, views.Config{Name: "sns-only.pcapng"}), teatest.WithInitialTermSize(80, 24))
	tm.Send(views.ProgressMsg{Fraction: 1, Done: true})
	tm.Send(keyPress("e"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("SystemSockets"))
	}, teatest.WithDuration(5*time.Second))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(views.Model)
	screen := ansi.Strip(fm.View().Content)
	if flat := strings.Join(strings.Fields(screen), " "); !strings.Contains(flat, "run the server with -NetTransport SystemSockets") {
		t.Errorf("advice not on the final screen:\n%s", screen)
	}
}
