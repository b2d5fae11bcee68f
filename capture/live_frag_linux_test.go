//go:build linux

package capture

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"golang.org/x/sys/unix"
)

// htons puts a 16-bit value in network byte order for AF_PACKET.
func htons(v uint16) uint16 { return v<<8 | v>>8 }

// TestLiveFragments sends an A2S_INFO reply of 1,900 bytes, cut into four
// IPv4 fragments sent last first, onto lo through a packet socket (so that
// no local netfilter defragmentation joins them first): the kernel filter
// keeps the later fragments, which carry no ports, and the engine joins
// them with the first into the reply.
func TestLiveFragments(t *testing.T) {
	ln, udp := gamePorts(t)
	defer ln.Close()
	defer udp.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	opt := DefaultLiveOptions("lo")
	opt.TransportPort, opt.QueryPort = port+1, port // A2S replies come from the query port
	src := openLive(t, opt)

	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM, int(htons(unix.ETH_P_IP)))
	if err != nil {
		t.Skipf("no packet socket to send with: %v", err)
	}
	defer unix.Close(fd)
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("fragmented name ", 100)
	// From the query port to the UDP socket on the same port, which
	// takes the reply once the kernel has joined it.
	lo4 := []byte{127, 0, 0, 1}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: lo4, DstIP: lo4}
	u := &layers.UDP{SrcPort: layers.UDPPort(port), DstPort: layers.UDPPort(port)}
	u.SetNetworkLayerForChecksum(ip)
	pkt := serialize(t, frameOpts{link: layers.LinkTypeRaw}, layers.EthernetTypeIPv4, 0, ip, u, gopacket.Payload(a2sReply(name, "<net>sys</net>")))
	frags := fragment(pkt, 4242, 512)
	slices.Reverse(frags)
	sa := &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_IP), Ifindex: lo.Index, Halen: 6}
	for _, f := range frags {
		if err := unix.Sendto(fd, f, 0, sa); err != nil {
			t.Fatalf("sendto: %v", err)
		}
	}

	done := make(chan string, 1)
	go func() {
		for {
			ev, err := src.Next()
			if err != nil {
				done <- ""
				return
			}
			if ev.Kind == EventNote && strings.Contains(ev.Text, "A2S_INFO from") {
				done <- ev.Text
				return
			}
		}
	}()
	var note string
	select {
	case note = <-done:
	case <-time.After(5 * time.Second):
		src.Close()
		note = <-done
	}
	if want := `name "` + name + `"`; !strings.Contains(note, want) {
		t.Errorf("A2S note = %.80q; want the whole name of the reassembled reply", note)
	}
	if st := src.Stats(); st.Fragments != int64(len(frags)) || st.Reassembled != 1 {
		t.Errorf("stats: %d fragments, %d reassembled; want %d and 1", st.Fragments, st.Reassembled, len(frags))
	}
}
