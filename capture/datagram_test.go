package capture

import (
	"errors"
	"io"
	"testing"
)

// TestDatagramPorts: UDP on a DatagramPorts port is yielded one datagram
// each, the side on that port as the server; without the option none is.
func TestDatagramPorts(t *testing.T) {
	const fixture = "../fixtures/ulinkrpc/kcp-memorypack.pcapng"
	count := func(opt Options) (c2s, s2c int, bytes int) {
		src, err := Open(fixture, opt)
		if err != nil {
			t.Skipf("%v", err)
		}
		defer src.Close()
		for {
			ev, err := src.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != EventDatagram {
				continue
			}
			if ev.Flow.Server.Port() != 20000 || ev.Flow.Client.Port() == 20000 {
				t.Errorf("datagram flow %v: want the server on 20000", ev.Flow)
			}
			if ev.FromServer {
				s2c++
			} else {
				c2s++
			}
			bytes += len(ev.Data)
		}
	}
	if c, s, _ := count(Options{}); c+s != 0 {
		t.Errorf("no DatagramPorts: %d datagrams; want none", c+s)
	}
	c, s, n := count(Options{DatagramPorts: [4]uint16{20000}})
	if c == 0 || s == 0 || n == 0 {
		t.Errorf("DatagramPorts 20000: %d c2s and %d s2c datagrams, %d bytes; want both directions", c, s, n)
	}
}
