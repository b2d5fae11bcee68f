package capture

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"
)

// ipv6DstOpts is IPV6_DSTOPTS (linux/in6.h): a destination options header
// the kernel puts in every packet the socket sends.
const ipv6DstOpts = 59

// setDstOpts makes c send a destination options header (PadN of 4: eight
// bytes, RFC 8200 4.6) in each of its packets.
func setDstOpts(c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptString(int(fd), syscall.IPPROTO_IPV6, ipv6DstOpts, string([]byte{0, 0, 1, 4, 0, 0, 0, 0}))
	})
	if err != nil {
		return err
	}
	return serr
}

// TestLiveIPv6Extensions runs a TCP connection over ::1 whose packets, both
// ways, carry a destination options header, and checks that the kernel
// filter lets them through and the live source reads both streams: the
// --write file proves the header was on the wire.
func TestLiveIPv6Extensions(t *testing.T) {
	// The listener's option covers its SYN-ACK, the accepted socket's the
	// rest of the server's packets.
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error { return setDstOpts(c) }}
	ln, err := lc.Listen(context.Background(), "tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 on lo, or IPV6_DSTOPTS refused: %v", err)
	}
	defer ln.Close()
	src, out := openWriting(t, "lo", ln)

	toServer, toClient := framed("hello", "over ipv6"), framed("with options")
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if rc, err := c.(*net.TCPConn).SyscallConn(); err == nil {
			setDstOpts(rc)
		}
		buf := make([]byte, len(toServer))
		if _, err := io.ReadFull(c, buf); err == nil {
			c.Write(toClient)
		}
		c.Read(buf[:1])
	}()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error { return setDstOpts(c) }}
	c, err := d.Dial("tcp6", ln.Addr().String())
	if err != nil {
		t.Skipf("IPV6_DSTOPTS refused: %v", err)
	}
	if _, err := c.Write(toServer); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, len(toClient))); err != nil {
		t.Fatal(err)
	}
	c.Close()

	var cs, ss bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			ev, err := src.Next()
			if err != nil || ev.Kind == EventClose {
				return
			}
			switch {
			case ev.Kind != EventData:
			case ev.FromServer:
				ss.Write(ev.Data)
			default:
				cs.Write(ev.Data)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		src.Close()
		<-done
		t.Errorf("no close of the connection within 5 s")
	}
	if !bytes.Equal(cs.Bytes(), toServer) || !bytes.Equal(ss.Bytes(), toClient) {
		t.Errorf("live streams = %q / %q; want %q / %q", cs.Bytes(), ss.Bytes(), toServer, toClient)
	}
	if err := src.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	packets, withOpts := 0, 0
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		packets++
		if len(data) > 48 && data[0]>>4 == 6 && data[6] == 60 && data[40] == 6 {
			withOpts++
		}
	}
	if packets == 0 || withOpts != packets {
		t.Errorf("--write file: %d of %d packets are IPv6 with a destination options header before TCP; want all", withOpts, packets)
	}
}
