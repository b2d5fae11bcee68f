//go:build linux

package capture

import (
	"errors"
	"net"
	"path/filepath"
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
	// Both ports are the game's: nothing else is in the burst, so every
	// datagram is game traffic.
	src := openGameLive(t, ln)
	go discard(udp)
	go serveMarker(ln, false)
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
	markEnd(t, ln)
	if _, ok := awaitStats(src, done); !ok {
		t.Errorf("no close of the marker connection within 10 s of the burst")
	}
	// Close reads the kernel's counters a last time: Stats before it may
	// be up to statsFresh old.
	if err := src.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	st := src.Stats()
	t.Logf("burst of %d datagrams sent in %v (%.0f pkt/s); read %d packets, %d UDP game datagrams; kernel %d packets, %d drops",
		burstPackets, sent.Round(time.Millisecond), burstPackets/sent.Seconds(), st.Packets, st.UDPGame, st.KernelPackets, st.KernelDrops)
	if st.UDPGame != burstPackets || st.KernelDrops != 0 {
		t.Errorf("live burst: read %d of %d datagrams with %d kernel drops; want all with none", st.UDPGame, burstPackets, st.KernelDrops)
	}
}

// gamePorts listens on a TCP and a UDP port of the same number on
// 127.0.0.1 (the game port is both, wire.md §2).
func gamePorts(t testing.TB) (*net.TCPListener, *net.UDPConn) {
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

// openGameLive opens a live source on lo whose transport and query ports
// are ln's (see openLive).
func openGameLive(t testing.TB, ln net.Listener) Source {
	t.Helper()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	opt := DefaultLiveOptions("lo")
	opt.TransportPort, opt.QueryPort = port, port
	return openLive(t, opt)
}

// openWriting opens a live source on iface for ln's port that also writes
// a pcapng file in a temporary directory, and returns the file's path.
func openWriting(t testing.TB, iface string, ln net.Listener) (Source, string) {
	t.Helper()
	opt := DefaultLiveOptions(iface)
	opt.TransportPort = uint16(ln.Addr().(*net.TCPAddr).Port)
	opt.Write = filepath.Join(t.TempDir(), "live.pcapng")
	return openLive(t, opt), opt.Write
}

// openLive opens a live source, skipping t without CAP_NET_RAW. The source
// closes when t ends.
func openLive(t testing.TB, opt LiveOptions) Source {
	t.Helper()
	src, err := OpenLive(opt)
	if errors.Is(err, ErrPermission) {
		t.Skipf("no CAP_NET_RAW, skipping %s: %v", t.Name(), err)
	}
	if err != nil {
		t.Fatalf("OpenLive: %v", err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// discard reads c until it fails: a receiving end for datagrams sent to
// it, so that no port-unreachable goes back.
func discard(c net.Conn) {
	buf := make([]byte, 64)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}

// serveMarker accepts connections on ln (only the first if once) and
// closes each after the client's close, so that both ends' FINs are
// captured.
func serveMarker(ln net.Listener, once bool) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Read(make([]byte, 1))
		c.Close()
		if once {
			return
		}
	}
}

// markEnd opens and closes a connection to ln: once a live source has
// read its close, it has read every packet sent before it.
func markEnd(t testing.TB, ln net.Listener) {
	t.Helper()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// awaitStats waits at most 10 s for done (from statsAtClose); on time out
// it closes src to end the reader and reports false.
func awaitStats(src Source, done <-chan Stats) (Stats, bool) {
	select {
	case st := <-done:
		return st, true
	case <-time.After(10 * time.Second):
		src.Close()
		return <-done, false
	}
}

// BenchmarkLiveRead reads b.N UDP datagrams sent to the game port on lo
// through the live source (ring, filter, engine), the sender running in
// another goroutine: ns/op is per packet, sender included, so on a
// loaded machine compare allocs/op and the reader's share in a profile.
func BenchmarkLiveRead(b *testing.B) {
	b.ReportAllocs()
	ln, udp := gamePorts(b)
	defer ln.Close()
	defer udp.Close()
	src := openGameLive(b, ln)
	go discard(udp)
	out, err := net.DialUDP("udp4", nil, udp.LocalAddr().(*net.UDPAddr))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	b.ResetTimer()
	go serveMarker(ln, false)
	done := statsAtClose(src)
	msg := []byte("0123456789abcdef")
	for range b.N {
		out.Write(msg)
	}
	markEnd(b, ln) // the datagrams' end (see TestLiveBurst)
	st, _ := awaitStats(src, done)
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
	go discard(other)
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
	src := openGameLive(t, ln)
	go serveMarker(ln, true)
	done := statsAtClose(src)
	time.Sleep(50 * time.Millisecond)
	markEnd(t, ln)
	st, _ := awaitStats(src, done)
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
