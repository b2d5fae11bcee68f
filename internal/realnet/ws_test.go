package realnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// wsServer is gorilla/websocket's server side behind a net/http server,
// handing each upgraded connection to the seed that dialled it.
type wsServer struct {
	mu   sync.Mutex
	wait map[string]chan *websocket.Conn
}

func (s *wsServer) ch(client string) chan *websocket.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.wait[client]
	if ch == nil {
		ch = make(chan *websocket.Conn, 1)
		s.wait[client] = ch
	}
	return ch
}

// wsBuffers are the write buffer sizes the ends draw from: a message
// longer than its end's buffer leaves in several frames (opcode 2, then 0).
var wsBuffers = []int{128, 300, 1024, 4096}

// serverBuf is the server end's write buffer for a client.
func serverBuf(client netip.AddrPort) int { return wsBuffers[int(client.Port())%len(wsBuffers)] }

func serveWS(ctx context.Context, l *labGroup) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", l.server.String())
	if err != nil {
		return err
	}
	s := &wsServer{wait: map[string]chan *websocket.Conn{}}
	l.state = s
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		ap, _ := netip.ParseAddrPort(r.RemoteAddr)
		u := websocket.Upgrader{WriteBufferSize: serverBuf(ap)}
		c, err := u.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		s.ch(r.RemoteAddr) <- c
	})
	srv := &http.Server{Handler: mux}
	context.AfterFunc(ctx, func() { srv.Close() })
	go srv.Serve(ln)
	return nil
}

// wsLink carries ULinkRPC over a WebSocket (ulinkrpc.md 2.2): each write
// one binary message, given to the library in pieces, sometimes with a
// ping sent from another goroutine meanwhile (it may fall between the
// message's frames); the reader feeds every message's bytes to one
// accumulator.
type wsLink struct {
	c    *websocket.Conn
	buf  int // the library's write buffer: longer messages leave in several frames
	n    *wsCounts
	acc  accum
	mu   sync.Mutex
	rng  *rand.Rand
	pngs sync.WaitGroup
}

// wsCounts are what the lab's WebSocket ends did, for the note.
type wsCounts struct {
	mu                sync.Mutex
	fragmented, pings int
}

func newWSLink(c *websocket.Conn, buf int, n *wsCounts, rng *rand.Rand) *wsLink {
	l := &wsLink{c: c, buf: buf, n: n, rng: rng}
	// The close is answered by closeWrite, once the side has sent all.
	c.SetCloseHandler(func(int, string) error { return nil })
	l.acc.more = func() ([]byte, error) {
		_, r, err := c.NextReader()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return nil, io.EOF
			}
			return nil, err
		}
		return io.ReadAll(r)
	}
	return l
}

func (l *wsLink) write(b []byte) error {
	l.mu.Lock()
	ping := l.rng.IntN(6) == 0
	var cuts []int
	for k := len(b); k > 0; {
		n := 1 + l.rng.IntN(min(k, 2000))
		cuts = append(cuts, n)
		k -= n
	}
	l.mu.Unlock()
	l.n.mu.Lock()
	if len(b) > l.buf {
		l.n.fragmented++
	}
	if ping {
		l.n.pings++
	}
	l.n.mu.Unlock()
	if ping {
		l.pngs.Go(func() {
			l.c.WriteControl(websocket.PingMessage, []byte("realnet"), time.Now().Add(5*time.Second))
		})
	}
	w, err := l.c.NextWriter(websocket.BinaryMessage)
	if err != nil {
		return err
	}
	for _, n := range cuts {
		if _, err := w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return w.Close()
}

func (l *wsLink) next() ([]byte, error) { return l.acc.next() }

func (l *wsLink) closeWrite() error {
	l.pngs.Wait()
	return l.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "done"), time.Now().Add(5*time.Second))
}

func (l *wsLink) close() { l.c.Close() }

func runRPCWS(ctx context.Context, lg *labGroup, c *connRecord, rng *rand.Rand) error {
	s := lg.state.(*wsServer)
	bufSize := wsBuffers[rng.IntN(len(wsBuffers))]
	var n wsCounts
	var cc, sc *websocket.Conn
	// A handshake the server never completed (dialTCP) shows here as a
	// reset upgrade: redial.
	err := redial(ctx, c, func(local netip.AddrPort) (func(), error) {
		d := websocket.Dialer{
			NetDialContext:  (&net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(local)}).DialContext,
			WriteBufferSize: bufSize,
		}
		tctx, cancel := context.WithTimeout(ctx, 2*acceptWait)
		defer cancel()
		var err error
		if cc, _, err = d.DialContext(tctx, "ws://"+c.Server+"/ws", nil); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errNoAccept, err)
		}
		select {
		case sc = <-s.ch(local.String()):
			return nil, nil
		case <-ctx.Done():
			cc.Close()
			return nil, ctx.Err()
		}
	})
	if err != nil {
		return err
	}
	links := [2]link{
		newWSLink(cc, bufSize, &n, rand.New(rand.NewPCG(rng.Uint64(), 3))),
		newWSLink(sc, serverBuf(netip.MustParseAddrPort(c.Client)), &n, rand.New(rand.NewPCG(rng.Uint64(), 4))),
	}
	defer links[0].close()
	defer links[1].close()
	err = converse(ctx, c, links, rng)
	c.Fragmented, c.WSPings = n.fragmented, n.pings
	return err
}
