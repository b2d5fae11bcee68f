package scenario

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
)

// A ULinkRPC simulation plays each connection of an RPC scenario between a
// real server and a real client on loopback, over the scenario's transport
// (ulinkrpc.md 2): TCP (ulinkrpc_simtcp.go), a WebSocket after a real
// HTTP/1.1 upgrade (ulinkrpc_simtcp.go) or KCP over UDP after the
// UKCP/UACK handshake (ulinkrpc_simkcp.go). The bytes each side sends are
// the generator's (RPC.play: frames through the transform layer,
// length-prefixed), so that a live capture of the simulation decodes to
// the records of the scenario's capture.
//
// Both sides follow the script in lockstep: a side sends its own actions
// after their gap and, where the script has the peer send, waits for that
// frame and checks that it arrived intact. So the server answers a Request
// once it has read it, a Pong follows its Ping, and a push or a close is
// seen before the client goes on.

// RPCDefaultPort is ULinkRPC's port (ulinkrpc.md 1), where a connection
// whose scenario names no server is simulated.
const RPCDefaultPort = 20000

// rpcLink is one side's end of a simulated connection.
type rpcLink interface {
	// send writes one of this side's sends.
	send(sd *rpcSend) error
	// recv waits for the peer's next send and checks it equals sd.
	recv(ctx context.Context, sd *rpcSend) error
	// finish ends the side's sending and checks that nothing more than
	// the script arrives; it returns once the peer has ended too.
	finish(ctx context.Context) error
	// sent is the transport payload bytes the side wrote (TCP stream
	// bytes, or UDP datagrams).
	sent() int64
	close()
}

// rpcAddr is where connection i's server listens: s.Addr, else loopback
// on the scenario's server port.
func (s *Sim) rpcAddr(c *RPCConn) string {
	if s.Addr != "" {
		return s.Addr
	}
	port := c.ServerAddr.Port()
	if port == 0 {
		port = RPCDefaultPort
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port)))
}

// RPCAddr is where simulating sc listens when no address is given: the
// first connection's server port on loopback.
func RPCAddr(sc *RPC) string {
	c := RPCConn{}
	if len(sc.Conns) > 0 {
		c = sc.Conns[0]
	}
	return (&Sim{}).rpcAddr(&c)
}

// RunRPC plays every connection of sc one after the other, each on its
// own listener at s.Addr (empty: loopback on the connection's server
// port), in real time scaled by Speed, and checks that every frame arrived
// intact and nothing else did. Count (the Unturned load mix) does not
// apply and is refused.
func (s *Sim) RunRPC(ctx context.Context, sc *RPC) (SimResult, error) {
	var res SimResult
	if s.Count > 0 {
		return res, errors.New("simulate: the load mix (Count) is Unturned's; a ULinkRPC scenario plays only its own connections")
	}
	start := time.Now()
	for i := range sc.Conns {
		sends, frames, err := sc.play(i)
		if err != nil {
			return res, err
		}
		bytes, err := s.playRPC(ctx, sc, i, sends)
		res.Conns++
		res.Messages += frames
		res.Bytes[0] += bytes[0]
		res.Bytes[1] += bytes[1]
		if err != nil {
			return res, fmt.Errorf("simulate: connection %d: %w", i+1, err)
		}
		s.logf("connection %d: %d frames over %s, c2s %d bytes, s2c %d bytes, all received", i+1, frames, sc.U.Transport, bytes[0], bytes[1])
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// playRPC opens connection i over its transport and plays sends on both
// ends at once.
func (s *Sim) playRPC(parent context.Context, sc *RPC, i int, sends []rpcSend) ([2]int64, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var ends [2]rpcLink
	var err error
	addr := s.rpcAddr(&sc.Conns[i])
	if sc.U.Transport == "kcp" {
		ends, err = s.openKCP(ctx, sc, i, addr, sends)
	} else {
		ends, err = s.openStream(ctx, sc, i, addr)
	}
	if err != nil {
		return [2]int64{}, err
	}
	// A side that fails cancels the other, which may be waiting for a
	// frame that will not come.
	stop := context.AfterFunc(ctx, func() {
		ends[0].close()
		ends[1].close()
	})
	defer stop()
	var errs [2]error
	var first atomic.Int32 // 1 + the side that failed first
	var wg sync.WaitGroup
	for d := range ends {
		wg.Go(func() {
			if errs[d] = s.playSide(ctx, dissect.Dir(d), ends[d], sends); errs[d] != nil {
				first.CompareAndSwap(0, int32(d)+1)
				cancel()
			}
		})
	}
	wg.Wait()
	ends[0].close()
	ends[1].close()
	bytes := [2]int64{ends[0].sent(), ends[1].sent()}
	if err := parent.Err(); err != nil {
		return bytes, err
	}
	// The side that failed first says why; the other only saw its
	// connection closed.
	if d := first.Load() - 1; d >= 0 {
		return bytes, fmt.Errorf("%s: %w", [2]string{"client", "server"}[d], errs[d])
	}
	return bytes, nil
}

// playSide plays the script from side d: its own sends after their gaps,
// the peer's awaited and checked, then finish.
func (s *Sim) playSide(ctx context.Context, d dissect.Dir, l rpcLink, sends []rpcSend) error {
	var last time.Duration
	for i := range sends {
		sd := &sends[i]
		gap := sd.at - last
		last = sd.at
		if sd.dir != d {
			if err := l.recv(ctx, sd); err != nil {
				return fmt.Errorf("%s %d of the script (%s from the peer): %w", sendName(sd), i+1, sd.dir, err)
			}
			continue
		}
		if err := s.waitFine(ctx, gap); err != nil {
			return err
		}
		if err := l.send(sd); err != nil {
			return fmt.Errorf("%s %d of the script: %w", sendName(sd), i+1, err)
		}
	}
	return l.finish(ctx)
}

// fineWait is the longest gap waitFine yields through rather than sleeps.
const fineWait = 2 * time.Millisecond

// waitFine is wait, but a gap under fineWait (after scaling) is waited by
// yielding until it has passed: Go's timers wake through the Linux
// netpoller with millisecond resolution, and would turn a scenario's
// 200µs answer into a millisecond one on the wire.
func (s *Sim) waitFine(ctx context.Context, d time.Duration) error {
	scaled := d
	if s.Speed > 0 {
		scaled = time.Duration(float64(d) / s.Speed)
	}
	if s.FullSpeed || scaled <= 0 || scaled >= fineWait {
		return s.wait(ctx, d)
	}
	for start := time.Now(); time.Since(start) < scaled; runtime.Gosched() {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// sendName says what a send is, for errors.
func sendName(sd *rpcSend) string {
	if sd.op != websocket.OpBinary {
		return "WebSocket " + sd.op.String()
	}
	return "write"
}

// checkGot compares what arrived with what the peer's script sent.
func checkGot(got, want []byte) error {
	if !bytes.Equal(got, want) {
		n := 0
		for n < min(len(got), len(want)) && got[n] == want[n] {
			n++
		}
		return fmt.Errorf("received %d bytes that differ from the %d sent at byte %d", len(got), len(want), n)
	}
	return nil
}
