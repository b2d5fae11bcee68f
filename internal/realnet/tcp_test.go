package realnet

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/scenario"
)

// tcpServer accepts the connections of one group at one loss rate and
// hands each to the seed that dialled it, by the client's address.
type tcpServer struct {
	ln   net.Listener
	mu   sync.Mutex
	wait map[string]chan net.Conn
}

func serveTCP(ctx context.Context, l *labGroup) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", l.server.String())
	if err != nil {
		return err
	}
	s := &tcpServer{ln: ln, wait: map[string]chan net.Conn{}}
	l.state = s
	context.AfterFunc(ctx, func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.ch(c.RemoteAddr().String()) <- c
		}
	}()
	return nil
}

func (s *tcpServer) ch(client string) chan net.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.wait[client]
	if ch == nil {
		ch = make(chan net.Conn, 1)
		s.wait[client] = ch
	}
	return ch
}

// dialTCP connects seed c's client to its group's server and returns both
// ends (by dissect.Dir: the client first). Nagle's algorithm stays on for
// every third seed, so that small writes are merged as a real client's.
//
// Under loss a handshake can end with the client connected and the server
// not (the client's last ACK lost, the server's SYN-ACKs given up: the
// server answers the client's next segment with a reset). Real clients
// learn it from their first write; here the server end never comes, so
// after acceptWait the client tries again from the next port up
// (redial).
func dialTCP(ctx context.Context, l *labGroup, c *connRecord) ([2]*net.TCPConn, error) {
	s := l.state.(*tcpServer)
	var ends [2]*net.TCPConn
	err := redial(ctx, c, func(local netip.AddrPort) (func(), error) {
		d := net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(local)}
		cc, err := d.DialContext(ctx, "tcp", c.Server)
		if err != nil {
			return nil, err
		}
		select {
		case sc := <-s.ch(local.String()):
			ends = [2]*net.TCPConn{cc.(*net.TCPConn), sc.(*net.TCPConn)}
			return nil, nil
		case <-time.After(acceptWait):
			return func() { cc.Close() }, errNoAccept
		case <-ctx.Done():
			cc.Close()
			return nil, ctx.Err()
		}
	})
	if err != nil {
		return ends, err
	}
	for _, e := range ends {
		e.SetNoDelay(c.Seed%3 != 0)
	}
	context.AfterFunc(ctx, func() { ends[0].Close(); ends[1].Close() })
	return ends, nil
}

// acceptWait is how long a client waits for its server end.
const acceptWait = 3 * time.Second

var errNoAccept = errors.New("the server did not accept the connection the client has")

// redial runs try from the connection's client address and, while it
// fails with errNoAccept, from the next ports up (seed + 1000·k), at most
// five times; c.Client is the address that worked, whose packets the
// lab's capture keeps for the connection.
func redial(ctx context.Context, c *connRecord, try func(local netip.AddrPort) (undo func(), err error)) error {
	base := netip.MustParseAddrPort(c.Client)
	var err error
	for k := range 5 {
		local := netip.AddrPortFrom(base.Addr(), base.Port()+uint16(1000*k))
		var undo func()
		if undo, err = try(local); err == nil {
			c.Client = local.String()
			return nil
		}
		if undo != nil {
			undo()
		}
		if !errors.Is(err, errNoAccept) || ctx.Err() != nil {
			return err
		}
		c.Redials++
	}
	return err
}

// unturnedScenario writes a scenario with a random script: the handshake
// (both sides run USMN), then pings both ways, invokes of listeners both
// sides know, of one only the client has (the server says it lacks it),
// listener-ID requests, with payloads from a byte to a few KB.
func unturnedScenario(c *connRecord, rng *rand.Rand) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name = %q\nseed = %d\n\n[[connection]]\nclient = %q\nserver = %q\n", c.name(), c.Seed, c.Client, c.Server)
	b.WriteString(`client_usmn = true
server_usmn = true
server_listeners = [
  {type = "Realnet.Chat, Realnet", version = 1},
  {type = "Realnet.Trade, Realnet", version = 2},
  {type = "Realnet.Map, Realnet", version = 1},
]
client_listeners = [
  {type = "Realnet.Chat, Realnet", version = 1},
  {type = "Realnet.Trade, Realnet", version = 2},
  {type = "Realnet.Radio, Realnet", version = 1},
  {type = "Realnet.Map, Realnet", version = 1},
]
[[connection.action]]
do = "handshake"
[[connection.action]]
do = "accept"
`)
	listeners := []string{"Realnet.Chat, Realnet", "Realnet.Trade, Realnet", "Realnet.Map, Realnet"}
	n := 12 + rng.IntN(12)
	for range n {
		switch r := rng.IntN(10); {
		case r < 3:
			from := []string{"client", "server"}[rng.IntN(2)]
			fmt.Fprintf(&b, "[[connection.action]]\ndo = \"ping\"\nfrom = %q\ncount = %d\n", from, 1+rng.IntN(3))
		case r < 8:
			from := []string{"client", "server"}[rng.IntN(2)]
			size := 1 + rng.IntN(48)
			if rng.IntN(6) == 0 {
				size = 500 + rng.IntN(4000)
			}
			p := make([]byte, size)
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			fmt.Fprintf(&b, "[[connection.action]]\ndo = \"invoke\"\nfrom = %q\nlistener = %q\npayload = %q\n", from, listeners[rng.IntN(len(listeners))], hex.EncodeToString(p))
		case r < 9:
			fmt.Fprintf(&b, "[[connection.action]]\ndo = \"invoke\"\nfrom = \"client\"\nlistener = \"Realnet.Radio, Realnet\"\npayload = \"01\"\n")
		default:
			fmt.Fprintf(&b, "[[connection.action]]\ndo = \"request\"\nlistener = %q\n", listeners[rng.IntN(len(listeners))])
		}
	}
	return b.String()
}

// runUnturned plays a random scenario's writes over Linux TCP in lockstep:
// a side writes once it has read every byte the script has its peer write
// before, so that an answer follows its question on the wire as with the
// game; consecutive writes of one side go out back to back, some cut in
// two.
func runUnturned(ctx context.Context, l *labGroup, c *connRecord, rng *rand.Rand) error {
	c.Scenario = unturnedScenario(c, rng)
	sc, err := scenario.Parse(c.name(), []byte(c.Scenario))
	if err != nil {
		return err
	}
	scripts, err := sc.Scripts()
	if err != nil {
		return err
	}
	writes := scripts[0].Writes
	for _, w := range writes {
		for i, off := range w.Frames {
			end := len(w.Data)
			if i+1 < len(w.Frames) {
				end = w.Frames[i+1]
			}
			c.Sent[w.Dir] = append(c.Sent[w.Dir], sentMsg{Hex: hex.EncodeToString(w.Data[off+2 : end])})
		}
	}
	ends, err := dialTCP(ctx, l, c)
	if err != nil {
		return err
	}
	// cuts[i] is where write i is cut in two (0: sent whole).
	cuts := make([]int, len(writes))
	for i, w := range writes {
		if len(w.Data) > 1 && rng.IntN(4) == 0 {
			cuts[i] = 1 + rng.IntN(len(w.Data)-1)
		}
	}
	var errs [2]error
	var wg sync.WaitGroup
	for d := range ends {
		wg.Go(func() { errs[d] = playSide(dissect.Dir(d), ends[d], writes, cuts) })
	}
	wg.Wait()
	ends[0].Close()
	ends[1].Close()
	if errs[0] != nil {
		return fmt.Errorf("client: %w", errs[0])
	}
	if errs[1] != nil {
		return fmt.Errorf("server: %w", errs[1])
	}
	return nil
}

// playSide is side d of runUnturned: the peer's bytes are read (and
// checked) as far as the script needs them before each own write, the
// rest after the side has half-closed.
func playSide(d dissect.Dir, conn *net.TCPConn, writes []scenario.Write, cuts []int) error {
	var want []byte // the peer's bytes not read yet
	read := func() error {
		if len(want) == 0 {
			return nil
		}
		got := make([]byte, len(want))
		if _, err := io.ReadFull(conn, got); err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("received bytes that differ from those sent")
		}
		want = want[:0]
		return nil
	}
	for i, w := range writes {
		if w.Dir != d {
			want = append(want, w.Data...)
			continue
		}
		if err := read(); err != nil {
			return err
		}
		parts := [][]byte{w.Data}
		if k := cuts[i]; k > 0 {
			parts = [][]byte{w.Data[:k], w.Data[k:]}
		}
		for _, p := range parts {
			if _, err := conn.Write(p); err != nil {
				return fmt.Errorf("write: %w", err)
			}
		}
	}
	if err := conn.CloseWrite(); err != nil {
		return err
	}
	if err := read(); err != nil {
		return err
	}
	if n, err := io.Copy(io.Discard, conn); err != nil || n > 0 {
		return fmt.Errorf("after the script: %d more bytes, %v", n, err)
	}
	return nil
}

// tcpLink carries ULinkRPC's length-prefixed frames over a TCP connection
// (ulinkrpc.md 2.1); a write is sometimes cut in two.
type tcpLink struct {
	c   *net.TCPConn
	cut func(n int) int
	acc accum
}

func (t *tcpLink) write(b []byte) error {
	if k := t.cut(len(b)); k > 0 {
		if _, err := t.c.Write(b[:k]); err != nil {
			return err
		}
		b = b[k:]
	}
	_, err := t.c.Write(b)
	return err
}

func (t *tcpLink) next() ([]byte, error) { return t.acc.next() }
func (t *tcpLink) closeWrite() error     { return t.c.CloseWrite() }
func (t *tcpLink) close()                { t.c.Close() }

func runRPCTCP(ctx context.Context, l *labGroup, c *connRecord, rng *rand.Rand) error {
	ends, err := dialTCP(ctx, l, c)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	cut := func(n int) int {
		mu.Lock()
		defer mu.Unlock()
		if n > 1 && rng.IntN(5) == 0 {
			return 1 + rng.IntN(n-1)
		}
		return 0
	}
	var links [2]link
	for d, e := range ends {
		buf := make([]byte, 4096)
		links[d] = &tcpLink{c: e, cut: cut, acc: accum{more: func() ([]byte, error) {
			n, err := e.Read(buf)
			return buf[:n], err
		}}}
	}
	return converse(ctx, c, links, rng)
}
