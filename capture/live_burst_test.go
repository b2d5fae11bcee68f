//go:build linux

package capture

import (
	"errors"
	"net"
	"testing"
	"time"
)

// burstPackets is the burst TestLiveBurst sends: at 2-5 µs a send it takes
// well under a second, and it is about a quarter of what the ring holds
// (64 MiB, ~130 bytes of ring per 16-byte datagram).
const burstPackets = 50000

// TestLiveBurst sends a burst of small UDP datagrams to the game port on
// lo, as fast as one goroutine can, and checks that the live source reads
// every one with zero kernel drops: the ring (TPACKET_V3, ringBlocks
// blocks of ringBlockSize) absorbs the burst while the reader catches up.
// UDP makes the count exact: one send is one packet, where TCP on lo would
// merge small writes into fewer segments. A TCP connection opened and
// closed after the burst marks its end: once the reader has its close,
// it has read every packet before it.
func TestLiveBurst(t *testing.T) {
	ln, udp := gamePorts(t)
	defer ln.Close()
	defer udp.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	opt := DefaultLiveOptions("lo")
	opt.TransportPort = port
	opt.QueryPort = port // nothing else in the burst: every datagram is game traffic
	src, err := OpenLive(opt)
	if errors.Is(err, ErrPermission) {
		t.Skipf("no CAP_NET_RAW, skipping the live burst test: %v", err)
	}
	if err != nil {
		t.Fatalf("OpenLive: %v", err)
	}
	defer src.Close()

	go func() { // the receiving end, so that no port-unreachable is sent back
		buf := make([]byte, 64)
		for {
			if _, err := udp.Read(buf); err != nil {
				return
			}
		}
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 1))
			c.Close()
		}
	}()

	done := statsAtClose(src)

	out, err := net.DialUDP("udp4", nil, udp.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	start := time.Now()
	msg := []byte("0123456789abcdef")
	for i := range burstPackets {
		if _, err := out.Write(msg); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	sent := time.Since(start)
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()

	var st Stats
	select {
	case st = <-done:
	case <-time.After(10 * time.Second):
		src.Close()
		st = <-done
		t.Errorf("no close of the marker connection within 10 s of the burst")
	}
	// Close reads the kernel's counters a last time: Stats before it may
	// be up to statsFresh old.
	if err := src.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	st = src.Stats()
	t.Logf("burst of %d datagrams sent in %v (%.0f pkt/s); read %d packets, %d UDP game datagrams; kernel %d packets, %d drops",
		burstPackets, sent.Round(time.Millisecond), burstPackets/sent.Seconds(), st.Packets, st.UDPGame, st.KernelPackets, st.KernelDrops)
	if st.UDPGame != burstPackets || st.KernelDrops != 0 {
		t.Errorf("live burst: read %d of %d datagrams with %d kernel drops; want all with none", st.UDPGame, burstPackets, st.KernelDrops)
	}
}

// gamePorts listens on a TCP and a UDP port of the same number on
// 127.0.0.1 (the game port is both, wire.md §2).
func gamePorts(t *testing.T) (*net.TCPListener, *net.UDPConn) {
	t.Helper()
	for range 20 {
		ln, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		udp, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: ln.Addr().(*net.TCPAddr).Port})
		if err == nil {
			return ln, udp
		}
		ln.Close()
	}
	t.Fatal("no port free for both TCP and UDP on 127.0.0.1")
	return nil, nil
}

// BenchmarkLiveRead reads b.N UDP datagrams sent to the game port on lo
// through the live source (ring, filter, engine), the sender running in
// another goroutine: ns/op is per packet, sender included, so on a
// loaded machine compare allocs/op and the reader's share in a profile.
func BenchmarkLiveRead(b *testing.B) {
	b.ReportAllocs()
	ln, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	udp, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		b.Skipf("UDP port %d taken: %v", port, err)
	}
	defer udp.Close()
	opt := DefaultLiveOptions("lo")
	opt.TransportPort, opt.QueryPort = uint16(port), uint16(port)
	src, err := OpenLive(opt)
	if errors.Is(err, ErrPermission) {
		b.Skipf("no CAP_NET_RAW, skipping the live benchmark: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := udp.Read(buf); err != nil {
				return
			}
		}
	}()
	out, err := net.DialUDP("udp4", nil, udp.LocalAddr().(*net.UDPAddr))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	done := make(chan Stats, 1)
	b.ResetTimer()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	go func() {
		for {
			ev, err := src.Next()
			if err != nil || ev.Kind == EventClose {
				done <- src.Stats()
				return
			}
		}
	}()
	msg := []byte("0123456789abcdef")
	for range b.N {
		out.Write(msg)
	}
	// A TCP connection after the datagrams marks their end (see
	// TestLiveBurst).
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	c.Close()
	var st Stats
	select {
	case st = <-done:
	case <-time.After(10 * time.Second):
		src.Close()
		st = <-done
	}
	b.StopTimer()
	if st.UDPGame != int64(b.N) {
		b.Errorf("read %d of %d datagrams (%d kernel drops)", st.UDPGame, b.N, st.KernelDrops)
	}
	b.ReportMetric(float64(st.KernelDrops), "drops")
}

// TestLiveFilterFromStart checks that no packet captured before the kernel
// filter was attached leaks through: the socket sees every packet of the
// interface from its creation until SetBPF, and the ring keeps them.
// Unrelated UDP traffic flows on lo while the capture opens; only the game
// port's marker connection may come out.
func TestLiveFilterFromStart(t *testing.T) {
	ln, udp := gamePorts(t)
	defer ln.Close()
	defer udp.Close()
	other, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := other.Read(buf); err != nil {
				return
			}
		}
	}()
	go func() {
		out, err := net.DialUDP("udp4", nil, other.LocalAddr().(*net.UDPAddr))
		if err != nil {
			return
		}
		defer out.Close()
		for {
			select {
			case <-stop:
				return
			default:
				out.Write([]byte("not game traffic"))
			}
		}
	}()
	time.Sleep(20 * time.Millisecond) // the noise is flowing
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	opt := DefaultLiveOptions("lo")
	opt.TransportPort, opt.QueryPort = port, port
	src, err := OpenLive(opt)
	if errors.Is(err, ErrPermission) {
		t.Skipf("no CAP_NET_RAW, skipping the live filter test: %v", err)
	}
	if err != nil {
		t.Fatalf("OpenLive: %v", err)
	}
	defer src.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Read(make([]byte, 1))
			c.Close()
		}
	}()
	done := statsAtClose(src)
	time.Sleep(50 * time.Millisecond)
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	var st Stats
	select {
	case st = <-done:
	case <-time.After(10 * time.Second):
		src.Close()
		st = <-done
	}
	if st.UDPNonGame != 0 || st.Other != 0 || st.Flows != 1 {
		t.Errorf("live with the port filter: %d non-game UDP datagrams, %d other frames, %d flows; want 0, 0, 1 (only the marker connection)", st.UDPNonGame, st.Other, st.Flows)
	}
}

// statsAtClose reads src until its first Close event or error and then
// sends its Stats.
func statsAtClose(src Source) <-chan Stats {
	done := make(chan Stats, 1)
	go func() {
		for {
			ev, err := src.Next()
			if err != nil || ev.Kind == EventClose {
				done <- src.Stats()
				return
			}
		}
	}()
	return done
}
