package scenario

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// KCP as the simulator speaks it (ulinkrpc.md 2.3, KumoKyaku Kcp 2.7.0 in
// message mode): the UKCP/UACK handshake, then each send one KCP message
// cut into PUSH segments of at most the scenario's MSS, one segment a
// datagram, with the scenario's reorder and retransmit lists applied as
// the generator applies them (kcpPackets). The receiver orders PUSH
// segments by sn within its window, drops duplicates, joins fragments
// until frg 0 and answers every PUSH with an ACK (sn, the pushed ts, una
// = its next expected sn). The sender forgets a segment once an ACK names
// it or an una passes it, and sends again what stays unacknowledged for
// kcpRTO. There is no congestion control: loopback needs none.
const (
	kcpWnd = 256 // the window both sides advertise and the receiver keeps
	// kcpRTO is how long a segment waits for its ACK before it is sent
	// again. Loopback answers within microseconds: it fires only when the
	// machine stalls a side, and the receiver drops the duplicate.
	kcpRTO = 500 * time.Millisecond
	// kcpHandshakeWait is how long the client waits for UACK before it
	// asks again (a repeated UKCP is answered again).
	kcpHandshakeWait = 250 * time.Millisecond
)

// kcpEnd is one side of a simulated KCP connection.
type kcpEnd struct {
	d      dissect.Dir
	c      *net.UDPConn
	peer   netip.AddrPort // the client's address (server side) or the session port (client side)
	conv   uint32
	mss    int
	t      Transport
	start  time.Time
	tap    func([]byte)
	nums   []int // the script number of the first PUSH segment of each of the side's sends, in order
	fin    *sync.WaitGroup
	closed sync.Once

	n    atomic.Int64
	msgs chan []byte   // messages received, in order
	done chan struct{} // the reader stopped
	rerr error         // why it stopped, before done closes

	mu      sync.Mutex
	sndNext uint32
	unacked map[uint32]kcpPending
	rcvNext uint32
	rcvBuf  map[uint32]kcp.Segment
	part    []byte // data of the message being joined
	over    bool   // more messages arrived than the script has
}

// kcpPending is a PUSH segment waiting for its ACK.
type kcpPending struct {
	dg   []byte
	sent time.Time
}

// openKCP binds the server's UDP socket at addr and a client socket, runs
// the UKCP/UACK handshake with the scenario's conv and starts each side's
// reader.
func (s *Sim) openKCP(ctx context.Context, sc *RPC, i int, addr string, sends []rpcSend) ([2]rpcLink, error) {
	var ends [2]rpcLink
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return ends, fmt.Errorf("simulate: %w", err)
	}
	srv, err := net.ListenUDP("udp", ua)
	if err != nil {
		return ends, fmt.Errorf("simulate: %w", err)
	}
	to := srv.LocalAddr().(*net.UDPAddr).AddrPort()
	if !to.Addr().IsValid() || to.Addr().IsUnspecified() {
		// A server on every address is reached on loopback.
		to = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), to.Port())
	}
	cli, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(to.Addr(), 0)))
	if err != nil {
		srv.Close()
		return ends, fmt.Errorf("simulate: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { srv.Close(); cli.Close() })
	defer stop()
	c := &sc.Conns[i]
	var k [2]*kcpEnd
	fin := &sync.WaitGroup{}
	fin.Add(2)
	for d, u := range [2]*net.UDPConn{cli, srv} {
		k[d] = &kcpEnd{d: dissect.Dir(d), c: u, conv: c.Conv, mss: sc.U.MSS, t: sc.Transport, start: time.Now(), fin: fin,
			msgs: make(chan []byte, len(sends)+1), done: make(chan struct{}),
			unacked: map[uint32]kcpPending{}, rcvBuf: map[uint32]kcp.Segment{}}
		if s.tap != nil {
			from := dissect.Dir(1 - d)
			k[d].tap = func(b []byte) { s.tap(i, from, b) }
		}
		ends[d] = k[d]
	}
	// PUSH segments are numbered per connection from 1 across both sides
	// in script order, as the generator numbers them for reorder and
	// retransmit.
	num := 1
	for _, sd := range sends {
		k[sd.dir].nums = append(k[sd.dir].nums, num)
		num += max(1, (len(sd.data)+sc.U.MSS-1)/sc.U.MSS)
	}
	if err := kcpHandshake(ctx, k[dissect.C2S], k[dissect.S2C], to); err != nil {
		cli.Close()
		srv.Close()
		return ends, fmt.Errorf("kcp handshake: %w", err)
	}
	for _, e := range k {
		go e.read()
		go e.resend()
	}
	return ends, nil
}

// kcpHandshake: the client sends UKCP with its conv until the server's
// UACK comes back; the server answers with its own port as the session
// port, and the client talks to that port from then on.
func kcpHandshake(ctx context.Context, cli, srv *kcpEnd, to netip.AddrPort) error {
	buf := make([]byte, 64)
	for ctx.Err() == nil {
		if err := cli.write(ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: cli.conv}), to); err != nil {
			return err
		}
		srv.c.SetReadDeadline(time.Now().Add(kcpHandshakeWait))
		n, from, err := srv.c.ReadFromUDPAddrPort(buf)
		if timeout(err) {
			continue
		}
		if err != nil {
			return err
		}
		srv.tapped(buf[:n])
		h, ok := ulinkrpc.ParseHandshake(buf[:n])
		if !ok || h.Ack {
			return fmt.Errorf("server: the first datagram from %s is not UKCP", from)
		}
		srv.conv, srv.peer = h.Conv, unmap(from)
		port := int32(srv.c.LocalAddr().(*net.UDPAddr).Port)
		if err := srv.write(ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Ack: true, Conv: h.Conv, SessionPort: port}), srv.peer); err != nil {
			return err
		}
		cli.c.SetReadDeadline(time.Now().Add(kcpHandshakeWait))
		n, _, err = cli.c.ReadFromUDPAddrPort(buf)
		if timeout(err) {
			continue
		}
		if err != nil {
			return err
		}
		cli.tapped(buf[:n])
		a, ok := ulinkrpc.ParseHandshake(buf[:n])
		if !ok || !a.Ack || a.Conv != cli.conv || a.SessionPort <= 0 || a.SessionPort > 65535 {
			return fmt.Errorf("client: the answer to UKCP is not UACK for conv %d", cli.conv)
		}
		cli.peer = netip.AddrPortFrom(to.Addr(), uint16(a.SessionPort))
		srv.c.SetReadDeadline(time.Time{})
		cli.c.SetReadDeadline(time.Time{})
		return nil
	}
	return ctx.Err()
}

func timeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func unmap(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }

func (e *kcpEnd) tapped(b []byte) {
	if e.tap != nil {
		e.tap(b)
	}
}

func (e *kcpEnd) write(b []byte, to netip.AddrPort) error {
	n, err := e.c.WriteToUDPAddrPort(b, to)
	e.n.Add(int64(n))
	return err
}

// send cuts sd into PUSH segments and sends them one a datagram; a
// segment the scenario reorders goes after the next one, one it
// retransmits goes twice.
func (e *kcpEnd) send(sd *rpcSend) error {
	if len(e.nums) == 0 {
		return errors.New("kcp: more sends than the script has")
	}
	first := e.nums[0]
	e.nums = e.nums[1:]
	ts := uint32(time.Since(e.start) / time.Millisecond)
	e.mu.Lock()
	segs := kcp.SplitMessage(e.conv, e.sndNext, sd.data, e.mss)
	e.sndNext += uint32(len(segs))
	una := e.rcvNext
	dgs := make([][]byte, len(segs))
	for j := range segs {
		segs[j].Wnd, segs[j].Ts, segs[j].Una = kcpWnd, ts, una
		dgs[j] = kcp.EncodeSegment(nil, segs[j])
		e.unacked[segs[j].Sn] = kcpPending{dg: dgs[j], sent: time.Now()}
	}
	e.mu.Unlock()
	var held []byte
	for j, dg := range dgs {
		if slices.Contains(e.t.Reorder, first+j) && held == nil {
			held = dg
			continue
		}
		if err := e.write(dg, e.peer); err != nil {
			return err
		}
		if held != nil {
			if err := e.write(held, e.peer); err != nil {
				return err
			}
			held = nil
		}
		if slices.Contains(e.t.Retransmit, first+j) {
			if err := e.write(dg, e.peer); err != nil {
				return err
			}
		}
	}
	if held != nil {
		return e.write(held, e.peer)
	}
	return nil
}

// read receives datagrams until the socket closes: a repeated UKCP is
// answered again, ACKs and una release sent segments, PUSH segments are
// acknowledged and joined into messages.
func (e *kcpEnd) read() {
	defer close(e.done)
	buf := make([]byte, 1<<16)
	for {
		n, from, err := e.c.ReadFromUDPAddrPort(buf)
		if err != nil {
			e.rerr = err
			return
		}
		if unmap(from) != e.peer {
			continue
		}
		b := buf[:n]
		e.tapped(b)
		if h, ok := ulinkrpc.ParseHandshake(b); ok {
			if e.d == dissect.S2C && !h.Ack && h.Conv == e.conv {
				port := int32(e.c.LocalAddr().(*net.UDPAddr).Port)
				e.write(ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Ack: true, Conv: h.Conv, SessionPort: port}), e.peer)
			}
			continue
		}
		segs, err := kcp.ParseDatagram(b)
		if err != nil {
			e.rerr = fmt.Errorf("kcp datagram from %s: %w", from, err)
			return
		}
		if acks := e.segments(segs); len(acks) > 0 {
			e.write(acks, e.peer)
		}
	}
}

// segments handles one datagram's segments and returns the ACKs to send.
func (e *kcpEnd) segments(segs []kcp.Segment) []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	var acks []byte
	for _, s := range segs {
		if s.Conv != e.conv {
			continue
		}
		for sn := range e.unacked {
			if int32(sn-s.Una) < 0 {
				delete(e.unacked, sn)
			}
		}
		switch s.Cmd {
		case kcp.CmdAck:
			delete(e.unacked, s.Sn)
		case kcp.CmdPush:
			e.push(s)
			acks = kcp.EncodeSegment(acks, kcp.Segment{Conv: e.conv, Cmd: kcp.CmdAck, Wnd: kcpWnd, Ts: s.Ts, Sn: s.Sn, Una: e.rcvNext})
		}
	}
	return acks
}

// push keeps a PUSH segment within the window unless it is a duplicate,
// then joins the segments from rcvNext on into messages.
func (e *kcpEnd) push(s kcp.Segment) {
	ahead := int32(s.Sn - e.rcvNext)
	if _, dup := e.rcvBuf[s.Sn]; dup || ahead < 0 || ahead >= kcpWnd {
		return
	}
	s.Data = bytes.Clone(s.Data)
	e.rcvBuf[s.Sn] = s
	for {
		seg, ok := e.rcvBuf[e.rcvNext]
		if !ok {
			return
		}
		delete(e.rcvBuf, e.rcvNext)
		e.rcvNext++
		e.part = append(e.part, seg.Data...)
		if seg.Frg != 0 {
			continue
		}
		select {
		case e.msgs <- e.part:
		default:
			e.over = true
		}
		e.part = nil
	}
}

// resend sends again the segments unacknowledged for kcpRTO, until the
// reader stops.
func (e *kcpEnd) resend() {
	t := time.NewTicker(kcpRTO / 4)
	defer t.Stop()
	for {
		select {
		case <-e.done:
			return
		case now := <-t.C:
			var again [][]byte
			e.mu.Lock()
			for sn, p := range e.unacked {
				if now.Sub(p.sent) >= kcpRTO {
					again = append(again, p.dg)
					e.unacked[sn] = kcpPending{dg: p.dg, sent: now}
				}
			}
			e.mu.Unlock()
			for _, dg := range again {
				e.write(dg, e.peer)
			}
		}
	}
}

func (e *kcpEnd) recv(ctx context.Context, sd *rpcSend) error {
	select {
	case got := <-e.msgs:
		return checkGot(got, sd.data)
	case <-e.done:
		return fmt.Errorf("kcp: receiving stopped: %v", e.rerr)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finish waits until the peer has acknowledged every segment of the side
// and the peer's side is acknowledged too (so every message has arrived),
// then checks that no message or part of one arrived beyond the script.
func (e *kcpEnd) finish(ctx context.Context) error {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		e.mu.Lock()
		left := len(e.unacked)
		e.mu.Unlock()
		if left == 0 {
			break
		}
		select {
		case <-t.C:
		case <-e.done:
			return fmt.Errorf("kcp: %d segments not acknowledged: %v", left, e.rerr)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	e.fin.Done()
	both := make(chan struct{})
	go func() { e.fin.Wait(); close(both) }()
	select {
	case <-both:
	case <-ctx.Done():
		return ctx.Err()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.over || len(e.msgs) > 0 || len(e.part) > 0 || len(e.rcvBuf) > 0 {
		return fmt.Errorf("kcp: %d messages and %d bytes arrived beyond the script", len(e.msgs), len(e.part)+len(e.rcvBuf))
	}
	return nil
}

func (e *kcpEnd) sent() int64 { return e.n.Load() }
func (e *kcpEnd) close()      { e.closed.Do(func() { e.c.Close() }) }
