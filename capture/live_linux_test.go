//go:build linux

package capture

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

// TestLiveLoopback runs a TCP server and client on 127.0.0.1 inside the
// test and checks that their SystemSockets-framed bytes come out of a live
// source on lo, and into its --write file.
func TestLiveLoopback(t *testing.T) {
	for _, iface := range []string{"lo", "any"} {
		t.Run(iface, func(t *testing.T) { liveLoopback(t, iface) })
	}
}

func liveLoopback(t *testing.T, iface string) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	src, out := openWriting(t, iface, ln)

	toServer := framed("hello", "from client")
	toClient := framed("welcome")
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, len(toServer))
		if _, err := io.ReadFull(c, buf); err == nil {
			c.Write(toClient)
		}
	}()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(toServer); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, len(toClient))); err != nil {
		t.Fatal(err)
	}
	clientAddr := netip.MustParseAddrPort(c.LocalAddr().String())
	c.Close()

	type got struct {
		c, s  bytes.Buffer
		flow  Flow
		rule  ServerRule
		close bool
	}
	done := make(chan *got, 1)
	go func() {
		g := &got{}
		for {
			ev, err := src.Next()
			if err != nil {
				done <- g
				return
			}
			switch ev.Kind {
			case EventOpen:
				g.flow, g.rule = ev.Flow, ev.Rule
			case EventData:
				if ev.FromServer {
					g.s.Write(ev.Data)
				} else {
					g.c.Write(ev.Data)
				}
			case EventClose:
				g.close = true
			}
			if g.close && g.c.Len() >= len(toServer) && g.s.Len() >= len(toClient) {
				done <- g
				return
			}
		}
	}()
	var g *got
	select {
	case g = <-done:
	case <-time.After(5 * time.Second):
		src.Close()
		g = <-done
	}
	want := Flow{Client: clientAddr, Server: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)}
	if g.flow != want || g.rule != RuleSYN {
		t.Errorf("live flow = %v by %v; want %v by syn", g.flow, g.rule, want)
	}
	if !bytes.Equal(g.c.Bytes(), toServer) || !bytes.Equal(g.s.Bytes(), toClient) {
		t.Errorf("live streams = %q / %q; want %q / %q (each packet once: loopback copies dropped)", g.c.Bytes(), g.s.Bytes(), toServer, toClient)
	}
	st := src.Stats()
	if !st.Live || st.KernelPackets == 0 {
		t.Errorf("stats = %+v; want Live and kernel packet counts", st)
	}
	if err := src.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// Everything shown is in the --write file.
	saved, err := Open(out, Options{TransportPort: port})
	if err != nil {
		t.Fatalf("Open(--write file): %v", err)
	}
	r := drain(t, saved)
	if s := r.stream(want, false); s != string(toServer) {
		t.Errorf("--write file client stream = %q; want %q", s, toServer)
	}
}

func TestLiveErrors(t *testing.T) {
	_, err := OpenLive(LiveOptions{Interface: "no-such-if0"})
	if err == nil || !strings.Contains(err.Error(), `interface "no-such-if0"`) {
		t.Errorf("OpenLive(no-such-if0) error = %v; want it to name the interface", err)
	}
	if os.Geteuid() == 0 {
		return
	}
	if _, err := OpenLive(DefaultLiveOptions("lo")); !errors.Is(err, ErrPermission) {
		t.Logf("OpenLive as non-root = %v (CAP_NET_RAW may be granted)", err)
	}
}
