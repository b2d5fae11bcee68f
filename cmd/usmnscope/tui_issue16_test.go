package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	"github.com/usmnscope/usmnscope/views"
)

// loadPath decodes the capture at path as `usmnscope open` does.
func loadPath(t *testing.T, path string) *session.Index {
	t.Helper()
	p := unturned.Default()
	src, err := openSource(&streams{}, path, p)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dc := session.NewIndex(p)
	if err := pipeline.Feed(src, dc, nil); err != nil {
		t.Fatalf("feed %s: %v", path, err)
	}
	return dc
}

// drive delivers msgs to m and then, as the program loop would, the
// messages of the commands it returns (reads of the capture file
// included), up to a bound. It returns every command result seen, so a
// test can look for the clipboard's.
func drive(m views.Model, msgs ...tea.Msg) (views.Model, []tea.Msg) {
	var seen []tea.Msg
	queue := append([]tea.Msg(nil), msgs...)
	for i := 0; len(queue) > 0 && i < 5000; i++ {
		next, cmd := m.Update(queue[0])
		m = next.(views.Model)
		queue = queue[1:]
		out := runCmd(cmd)
		seen = append(seen, out...)
		queue = append(queue, out...)
	}
	return m, seen
}

func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(c)...)
		}
		return out
	case nil, tea.QuitMsg:
		return nil
	default:
		return []tea.Msg{msg}
	}
}

// writeSNSCapture writes a pcapng holding only SteamNetworkingSockets UDP
// on the game port: no TCP at all.
func writeSNSCapture(t *testing.T) string {
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
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, udp, gopacket.Payload([]byte{0x01, 0x02, 0x03, 0x04, byte(i)})); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		ci := gopacket.CaptureInfo{Timestamp: t0.Add(time.Duration(i) * time.Second), CaptureLength: len(data), Length: len(data)}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 16 defect 1 and the expert pane: on a capture of SteamNetworking-
// Sockets UDP only, e shows the capture-level advice to run the server
// with -NetTransport SystemSockets, on screen, at 80×24 (wrapped, not cut).
func TestExpertShowsSNSAdvice(t *testing.T) {
	path := writeSNSCapture(t)
	dc := loadPath(t, path)
	m := views.New(dc, tuiConfig(path, dc))
	m, _ = drive(m, tea.WindowSizeMsg{Width: 80, Height: 24}, views.ProgressMsg{Fraction: 1, Done: true}, keyPress("e"))
	if m.Overlay() != views.ExpertOverlay {
		t.Fatalf("e: overlay %v; want the expert pane", m.Overlay())
	}
	screen := ansi.Strip(m.View().Content)
	flat := strings.Join(strings.Fields(screen), " ")
	if !strings.Contains(flat, "-NetTransport SystemSockets") || !strings.Contains(screen, "WARN") {
		t.Errorf("expert pane lacks the SNS advice:\n%s", screen)
	}
	lines := strings.Split(screen, "\n")
	for _, l := range lines[:len(lines)-3] { // the pane, not the bars below
		if strings.Contains(l, "…") {
			t.Errorf("cut line: %q", l)
		}
	}
}

// Issue 16 and 30: w writes the messages of the current filter to a pcapng
// that tshark opens and that decodes to those messages again (with the
// context their decoding needs: issue 30 found it decoded to none).
func TestExportFilteredOpensInTshark(t *testing.T) {
	src := filepath.Join(capturesDir, "usmn-basic.pcapng")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("fixture missing: %v", err)
	}
	dc := loadPath(t, src)
	cfg := tuiConfig(src, dc)
	cfg.ExportPath = filepath.Join(t.TempDir(), "out.pcapng")
	// The whole program, as teatest drives it: keys through Program.Send,
	// the export's command run by the program loop.
	m := runUntil(t, views.New(dc, cfg), 120, 40, strings.Fields("/ m s g = = I n v o k e M e s s a g e L i s t e n e r enter w enter"), func() bool {
		st, err := os.Stat(cfg.ExportPath)
		return err == nil && st.Size() > 0
	})
	if !strings.Contains(m.Note(), "wrote") {
		t.Fatalf("w: note %q", m.Note())
	}
	flt := []string{"--filter", "msg==InvokeMessageListener"}
	want := dumpRecords(t, append(flt, src)...)
	got := dumpRecords(t, append(flt, cfg.ExportPath)...)
	if len(want) == 0 || len(got) != len(want) {
		t.Fatalf("the written file holds %d InvokeMessageListener; want %d", len(got), len(want))
	}
	for i := range got {
		if !sameRecord(got[i], want[i]) {
			t.Errorf("written InvokeMessageListener %d differs from the capture's", i+1)
		}
	}
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed: the pcapng was written but not opened in tshark")
	}
	if out, err := exec.Command(tshark, "-r", cfg.ExportPath).CombinedOutput(); err != nil {
		t.Errorf("tshark -r export: %v\n%s", err, out)
	}
}

// Issue 16 defect 10: a capture read from standard input is named stdin.
func TestStdinNamed(t *testing.T) {
	if cfg := tuiConfig("-", nil); cfg.Name != "stdin" || cfg.Export != nil {
		t.Errorf("tuiConfig(-) = name %q, export %v; want stdin and no export", cfg.Name, cfg.Export != nil)
	}
}

// runUntil runs m as a program at w×h, sends the end of loading and the
// keys, waits until done holds (or 10 s), then quits and returns the final
// model.
func runUntil(t *testing.T, m views.Model, w, h int, keys []string, done func() bool) views.Model {
	t.Helper()
	p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(w, h), tea.WithoutSignals())
	res := make(chan tea.Model, 1)
	go func() {
		fm, err := p.Run()
		if err != nil {
			t.Error(err)
		}
		res <- fm
	}()
	p.Send(tea.WindowSizeMsg{Width: w, Height: h})
	p.Send(views.ProgressMsg{Fraction: 1, Done: true})
	for _, k := range keys {
		p.Send(keyPress(k))
	}
	for end := time.Now().Add(10 * time.Second); !done() && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	// The file is closed before its message reaches the model: let it land.
	time.Sleep(200 * time.Millisecond)
	p.Quit()
	select {
	case fm := <-res:
		return fm.(views.Model)
	case <-time.After(10 * time.Second):
		p.Kill()
		t.Fatal("program did not quit")
	}
	return m
}

// readFrames returns the packets of a pcapng file in order.
func readFrames(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			return out
		}
		out = append(out, append([]byte(nil), data...))
	}
}
