package scenario

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// DefaultAddr is where the simulated server listens: loopback, the
// SystemSockets port (wire.md 2).
const DefaultAddr = "127.0.0.1:27016"

// Sim plays scenarios between a real server and a real client over TCP
// sockets, so that live capture and the TUI can be tried without the game.
// The kernel does TCP: the packet-level transport options (loss,
// reordering) do not apply, but segment sizes and split headers shape the
// writes.
type Sim struct {
	Addr      string  // listen address; DefaultAddr when empty
	Speed     float64 // time factor for the scenario's gaps: 2 plays twice as fast; 0 means 1
	FullSpeed bool    // no waiting at all
	Rate      float64 // load messages per second at most (0: no limit)
	Count     int     // load mix messages played after the scenario
	Conns     int     // connections the load is spread over, played at once (default 1)
	Nagle     bool    // leave Nagle's algorithm on; by default every write is sent at once (TCP_NODELAY)
	// Congestion names the TCP congestion control of the simulated
	// connections (Linux TCP_CONGESTION, e.g. "cubic"); empty: the
	// system's. BBR, a common default, paces and keeps a small window of
	// packets, so that on lo small writes wait in the send queue and leave
	// merged into a few large segments; cubic sends nearer one per write.
	Congestion string
	Seed       uint64 // of the load mix
	Log        io.Writer
	// P is the profile of the load mix; nil: the scenario's, else the
	// default of wire.md 6.
	P *unturned.Profile

	// tap, when set (tests), is handed every chunk a side of ULinkRPC
	// connection conn reads from its socket: TCP stream bytes or a UDP
	// datagram, sent in direction d.
	tap func(conn int, d dissect.Dir, b []byte)
}

// SimResult says what a simulation sent and whether every byte arrived.
type SimResult struct {
	Conns    int
	Messages int
	Bytes    [2]int64 // by Dir
	Elapsed  time.Duration
}

// pair is the two ends of one simulated connection and what each side
// wrote, kept as a hash so that a long load needs no memory.
type pair struct {
	end     [2]*net.TCPConn // by Dir: the writing side (C2S: the client)
	sent    [2]hash.Hash64
	n       [2]int64
	got     [2]chan readResult
	noDelay bool
}

type readResult struct {
	sum uint64
	n   int64
	err error
}

// open dials the listener and accepts the server end.
func (s *Sim) open(ctx context.Context, ln *net.TCPListener) (*pair, error) {
	var d net.Dialer
	cc, err := d.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		return nil, err
	}
	sc, err := ln.AcceptTCP()
	if err != nil {
		cc.Close()
		return nil, err
	}
	p := &pair{end: [2]*net.TCPConn{dissect.C2S: cc.(*net.TCPConn), dissect.S2C: sc}}
	for d := range p.end {
		p.end[d].SetNoDelay(!s.Nagle)
		if s.Congestion != "" {
			if err := setCongestion(p.end[d], s.Congestion); err != nil {
				cc.Close()
				sc.Close()
				return nil, fmt.Errorf("congestion control %q: %w", s.Congestion, err)
			}
		}
		p.sent[d] = fnv.New64a()
		p.got[d] = make(chan readResult, 1)
		// What side d writes, its peer reads.
		go drain(p.end[1-d], p.got[d])
	}
	return p, nil
}

// drain reads a connection to EOF, hashing what arrives.
func drain(c *net.TCPConn, out chan<- readResult) {
	h := fnv.New64a()
	n, err := io.Copy(h, c)
	out <- readResult{h.Sum64(), n, err}
}

func (p *pair) write(d dissect.Dir, b []byte) error {
	if _, err := p.end[d].Write(b); err != nil {
		return fmt.Errorf("%s write: %w", d, err)
	}
	p.sent[d].Write(b)
	p.n[d] += int64(len(b))
	return nil
}

// finish half-closes both sides, waits for the readers and checks that
// each received exactly what its peer sent.
func (p *pair) finish(ctx context.Context) error {
	for d := range p.end {
		p.end[d].CloseWrite()
	}
	defer p.end[0].Close()
	defer p.end[1].Close()
	for d := range p.end {
		select {
		case r := <-p.got[d]:
			if r.err != nil {
				return fmt.Errorf("%s read: %w", dissect.Dir(d), r.err)
			}
			if r.n != p.n[d] || r.sum != p.sent[d].Sum64() {
				return fmt.Errorf("%s: received %d bytes that differ from the %d sent", dissect.Dir(d), r.n, p.n[d])
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// wait sleeps for d scaled by the speed, or not at all at full speed.
func (s *Sim) wait(ctx context.Context, d time.Duration) error {
	if s.FullSpeed || d <= 0 {
		return ctx.Err()
	}
	if s.Speed > 0 {
		d = time.Duration(float64(d) / s.Speed)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Sim) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format+"\n", args...)
	}
}

// Run listens on s.Addr, plays every connection of sc (nil: none) one
// after the other in real time (scaled by Speed), then Count messages of
// the load mix over Conns more connections, and checks that every byte
// arrived.
func (s *Sim) Run(ctx context.Context, sc *Scenario) (SimResult, error) {
	var res SimResult
	var scripts []Script
	if sc != nil {
		var err error
		if scripts, err = sc.Scripts(); err != nil {
			return res, err
		}
	}
	addr := s.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return res, fmt.Errorf("simulate: %w", err)
	}
	ln := l.(*net.TCPListener)
	defer ln.Close()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	start := time.Now()
	for i := range scripts {
		n, bytes, err := s.playScript(ctx, ln, &scripts[i])
		res.Conns++
		res.Messages += n
		res.Bytes[0] += bytes[0]
		res.Bytes[1] += bytes[1]
		if err != nil {
			return res, fmt.Errorf("simulate: connection %d: %w", i+1, err)
		}
		s.logf("connection %d: %d messages, c2s %d bytes, s2c %d bytes, all received", i+1, n, bytes[0], bytes[1])
	}
	if s.Count > 0 {
		loadStart := time.Now()
		n, bytes, conns, err := s.load(ctx, ln, sc)
		res.Conns += conns
		res.Messages += n
		res.Bytes[0] += bytes[0]
		res.Bytes[1] += bytes[1]
		if err != nil {
			return res, fmt.Errorf("simulate: load: %w", err)
		}
		el := time.Since(loadStart)
		s.logf("load: %d messages over %d connections, c2s %d bytes, s2c %d bytes, all received (%.0f messages/s)", n, conns, bytes[0], bytes[1], float64(n)/el.Seconds())
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// playScript plays one connection's writes with their gaps. A write is cut
// where the generator would cut its segments (segment size, split headers),
// each piece its own write.
func (s *Sim) playScript(ctx context.Context, ln *net.TCPListener, sc *Script) (int, [2]int64, error) {
	p, err := s.open(ctx, ln)
	if err != nil {
		return 0, [2]int64{}, err
	}
	f := flow{t: sc.Transport}
	for i := range sc.Writes {
		w := &sc.Writes[i]
		if err := s.wait(ctx, w.Gap); err != nil {
			p.end[0].Close()
			p.end[1].Close()
			return 0, p.n, err
		}
		from := 0
		for _, to := range f.cuts(w) {
			if err := p.write(w.Dir, w.Data[from:to]); err != nil {
				return 0, p.n, err
			}
			from = to
		}
	}
	return sc.Messages, p.n, p.finish(ctx)
}

// load opens Conns connections and plays Count messages of the load mix
// spread over them, all at once.
func (s *Sim) load(ctx context.Context, ln *net.TCPListener, sc *Scenario) (int, [2]int64, int, error) {
	prof := unturned.Default()
	switch {
	case s.P != nil:
		prof = s.P
	case sc != nil:
		prof = sc.P
	}
	k := max(s.Conns, 1)
	pairs := make([]*pair, 0, k)
	for range k {
		p, err := s.open(ctx, ln)
		if err != nil {
			for _, p := range pairs {
				p.end[0].Close()
				p.end[1].Close()
			}
			return 0, [2]int64{}, 0, err
		}
		pairs = append(pairs, p)
	}
	type result struct {
		n     int
		bytes [2]int64
		err   error
	}
	res := make([]result, k)
	var wg sync.WaitGroup
	for i, p := range pairs {
		count := s.Count / k
		if i < s.Count%k {
			count++
		}
		wg.Go(func() {
			n, b, err := s.playLoad(ctx, p, prof, i, count)
			res[i] = result{n, b, err}
		})
	}
	wg.Wait()
	var n int
	var bytes [2]int64
	var errs []error
	for _, r := range res {
		n += r.n
		bytes[0] += r.bytes[0]
		bytes[1] += r.bytes[1]
		errs = append(errs, r.err)
	}
	return n, bytes, k, errors.Join(errs...)
}

// playLoad plays count messages of the load mix of Scale on one
// connection, at most Rate/Conns per second. After the handshake each side
// writes from its own goroutine, as a real client and server do, so that
// both directions keep loopback busy at once.
func (s *Sim) playLoad(ctx context.Context, p *pair, prof *unturned.Profile, i, count int) (int, [2]int64, error) {
	pl := newPlayer(prof, loadConnection(i, prof))
	r := rand.New(rand.NewPCG(s.Seed, 0x73696d+uint64(i)))
	payload := []byte("0123456789abcdef0123456789abcdef")
	a := Action{Do: "handshake"}
	if err := actions[a.Do](pl, &a); err != nil {
		p.end[0].Close()
		p.end[1].Close()
		return 0, p.n, err
	}
	// The handshake in order: the client's GetWorkshopFiles, then the
	// server's answer, before either side writes widened enums.
	for _, w := range pl.writes {
		if err := p.write(w.Dir, w.Data); err != nil {
			p.end[0].Close()
			p.end[1].Close()
			return 0, p.n, err
		}
	}
	sent := pl.msgs
	pl.msgs, pl.writes = 0, pl.writes[:0]

	var ch [2]chan []byte
	// werr[d] is written only by direction d's writer and read after
	// wg.Wait; the loop learns of a failure through failed.
	var werr [2]error
	var failed atomic.Bool
	var wg sync.WaitGroup
	for d := range ch {
		ch[d] = make(chan []byte, 1024)
		wg.Go(func() {
			for b := range ch[d] {
				if werr[d] == nil {
					if werr[d] = p.write(dissect.Dir(d), b); werr[d] != nil {
						failed.Store(true)
					}
				}
			}
		})
	}
	var aerr error
	start := time.Now()
	base := sent
	rate := s.Rate / float64(max(s.Conns, 1))
	for sent < count && ctx.Err() == nil && !failed.Load() {
		mix(r, &a, payload)
		if aerr = actions[a.Do](pl, &a); aerr != nil {
			break
		}
		for _, w := range pl.writes {
			ch[w.Dir] <- w.Data
		}
		sent += pl.msgs
		pl.msgs, pl.writes = 0, pl.writes[:0]
		if rate > 0 {
			ahead := time.Duration(float64(sent-base)/rate*float64(time.Second)) - time.Since(start)
			if ahead > time.Millisecond {
				select {
				case <-time.After(ahead):
				case <-ctx.Done():
				}
			}
		}
	}
	close(ch[0])
	close(ch[1])
	wg.Wait()
	err := errors.Join(ctx.Err(), aerr, werr[0], werr[1])
	if err != nil {
		p.end[0].Close()
		p.end[1].Close()
		return sent, p.n, err
	}
	return sent, p.n, p.finish(ctx)
}
