package realnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/usmnscope/usmnscope/ulinkrpc"
	kcp "github.com/xtaci/kcp-go/v5"
)

// kcpEnd is one side of a KCP session: kcp-go's ARQ (its KCP type, the
// stack under kcp-go's UDPSession, FEC and encryption off) driven over a
// UDP socket, in message mode, each write one KCP message (fragments
// counting down in frg, as ULinkRPC's KCP sends them: ulinkrpc.md 2.3).
// Its datagrams go through a sender that holds some back until after the
// next (reordering) and sends some twice (duplicates); nftables loses
// some.
type kcpEnd struct {
	mu   sync.Mutex
	k    *kcp.KCP
	conv uint32
	conn *net.UDPConn
	to   *net.UDPAddr
	rng  *rand.Rand
	held []byte // a datagram sent after the next one
	age  int    // update ticks it has been held

	msgs     chan []byte
	peerDone chan struct{} // closed once the peer has sent all and it is acknowledged
	peer     *kcpEnd
	stop     chan struct{}
	stopOnce sync.Once
	acc      accum
}

func newKCPEnd(conv uint32, conn *net.UDPConn, to *net.UDPAddr, rng *rand.Rand) *kcpEnd {
	e := &kcpEnd{conv: conv, conn: conn, to: to, rng: rng, msgs: make(chan []byte, 4096), peerDone: make(chan struct{}), stop: make(chan struct{})}
	e.k = kcp.NewKCP(conv, func(buf []byte, size int) { e.output(append([]byte(nil), buf[:size]...)) })
	e.k.NoDelay(1, 10, 2, 1)
	e.k.WndSize(128, 128)
	e.acc.more = func() ([]byte, error) {
		select {
		case m := <-e.msgs:
			return m, nil
		case <-e.stop:
			return nil, net.ErrClosed
		case <-e.peerDone:
			select {
			case m := <-e.msgs:
				return m, nil
			default:
				return nil, io.EOF
			}
		}
	}
	go func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
			case <-e.stop:
				return
			}
			e.mu.Lock()
			e.k.Update()
			if e.held != nil {
				if e.age++; e.age > 1 {
					e.conn.WriteToUDP(e.held, e.to)
					e.held = nil
				}
			}
			e.mu.Unlock()
		}
	}()
	return e
}

// output sends a datagram kcp-go made (under e.mu): one in ten is held
// back until after the next, one in thirty sent twice.
func (e *kcpEnd) output(b []byte) {
	if e.held == nil && e.rng.IntN(10) == 0 {
		e.held, e.age = b, 0
		return
	}
	e.conn.WriteToUDP(b, e.to)
	if e.rng.IntN(30) == 0 {
		e.conn.WriteToUDP(b, e.to)
	}
	if e.held != nil {
		e.conn.WriteToUDP(e.held, e.to)
		e.held = nil
	}
}

// input hands a datagram to the ARQ and queues every message it
// completes.
func (e *kcpEnd) input(b []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.k.Input(b, true, false)
	for {
		n := e.k.PeekSize()
		if n < 0 {
			return
		}
		m := make([]byte, n)
		e.k.Recv(m)
		e.msgs <- m
	}
}

func (e *kcpEnd) write(b []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.k.Send(b); r < 0 {
		return fmt.Errorf("kcp send of %d bytes: %d", len(b), r)
	}
	return nil
}

func (e *kcpEnd) next() ([]byte, error) { return e.acc.next() }

// closeWrite waits until the peer has acknowledged everything sent, then
// tells the peer's reader that nothing more comes.
func (e *kcpEnd) closeWrite() error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		e.mu.Lock()
		n := e.k.WaitSnd()
		e.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kcp: %d segments still unacknowledged after 30 s", n)
		}
		select {
		case <-time.After(5 * time.Millisecond):
		case <-e.stop:
			return net.ErrClosed
		}
	}
	close(e.peer.peerDone)
	return nil
}

func (e *kcpEnd) close() { e.stopOnce.Do(func() { close(e.stop) }) }

// kcpServer is the server of one loss rate: one UDP socket, the UKCP/UACK
// handshake (ulinkrpc.md 2.3; a repeated UKCP from a client with a
// session is answered with that session's conv), then a kcpEnd per
// client.
type kcpServer struct {
	conn     *net.UDPConn
	mu       sync.Mutex
	sessions map[netip.AddrPort]*kcpEnd
	wait     map[netip.AddrPort]chan *kcpEnd
}

func (s *kcpServer) ch(client netip.AddrPort) chan *kcpEnd {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.wait[client]
	if ch == nil {
		ch = make(chan *kcpEnd, 1)
		s.wait[client] = ch
	}
	return ch
}

func serveKCP(ctx context.Context, l *labGroup) error {
	conn, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(l.server))
	if err != nil {
		return err
	}
	s := &kcpServer{conn: conn, sessions: map[netip.AddrPort]*kcpEnd{}, wait: map[netip.AddrPort]chan *kcpEnd{}}
	l.state = s
	context.AfterFunc(ctx, func() { conn.Close() })
	go func() {
		buf := make([]byte, 65536)
		for {
			n, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			b := buf[:n]
			s.mu.Lock()
			e := s.sessions[from]
			if h, ok := ulinkrpc.ParseHandshake(b); ok && !h.Ack {
				if e == nil {
					rng := rand.New(rand.NewPCG(uint64(from.Port()), 5))
					e = newKCPEnd(h.Conv, conn, net.UDPAddrFromAddrPort(from), rng)
					s.sessions[from] = e
					ch := s.wait[from]
					if ch == nil {
						ch = make(chan *kcpEnd, 1)
						s.wait[from] = ch
					}
					ch <- e
				}
				ack := ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Ack: true, Conv: e.conv, SessionPort: int32(l.server.Port())})
				s.mu.Unlock()
				conn.WriteToUDPAddrPort(ack, from)
				continue
			}
			s.mu.Unlock()
			if e != nil {
				e.input(append([]byte(nil), b...))
			}
		}
	}()
	return nil
}

func runRPCKCP(ctx context.Context, lg *labGroup, c *connRecord, rng *rand.Rand) error {
	s := lg.state.(*kcpServer)
	client := netip.MustParseAddrPort(c.Client)
	conn, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(client))
	if err != nil {
		return err
	}
	defer conn.Close()
	srv := net.UDPAddrFromAddrPort(lg.server)
	conv := uint32(c.Seed)*2654435761 | 1
	// The handshake, again every 50 ms until the UACK arrives: nftables
	// loses UDP too.
	buf := make([]byte, 65536)
	var ack ulinkrpc.Handshake
	for try := 0; ; try++ {
		if try == 100 {
			return errors.New("kcp: no UACK after 100 UKCPs")
		}
		// A datagram nftables drops on the output hook fails with EPERM:
		// lost, as on the wire.
		conn.WriteToUDP(ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: conv}), srv)
		conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		n, _, err := conn.ReadFromUDP(buf)
		if err != nil {
			continue
		}
		if h, ok := ulinkrpc.ParseHandshake(buf[:n]); ok && h.Ack {
			ack = h
			break
		}
	}
	conn.SetReadDeadline(time.Time{})
	var se *kcpEnd
	select {
	case se = <-s.ch(client):
	case <-ctx.Done():
		return ctx.Err()
	}
	ce := newKCPEnd(ack.Conv, conn, srv, rand.New(rand.NewPCG(rng.Uint64(), 6)))
	ce.peer, se.peer = se, ce
	defer ce.close()
	defer se.close()
	go func() {
		buf := make([]byte, 65536)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			if _, ok := ulinkrpc.ParseHandshake(buf[:n]); ok {
				continue // a UACK answering a repeated UKCP
			}
			ce.input(append([]byte(nil), buf[:n]...))
		}
	}()
	return converse(ctx, c, [2]link{ce, se}, rng)
}
