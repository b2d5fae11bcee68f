package realnet

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// link is one side's end of a ULinkRPC connection over some transport.
type link interface {
	// write sends one [length][frame] as the transport's one message.
	write(b []byte) error
	// next returns the next frame the peer sent (without its length), or
	// io.EOF once the peer has ended.
	next() ([]byte, error)
	// closeWrite ends the side's sending once the peer has all of it.
	closeWrite() error
	close()
}

// accum is the receiver's length-prefix accumulator (ulinkrpc.md 2): the
// transport's messages or stream bytes in, frames out, whatever the
// message boundaries.
type accum struct {
	buf  []byte
	more func() ([]byte, error)
}

func (a *accum) next() ([]byte, error) {
	for {
		if len(a.buf) >= 4 {
			n := int(binary.BigEndian.Uint32(a.buf))
			if len(a.buf) >= 4+n {
				f := append([]byte(nil), a.buf[4:4+n]...)
				a.buf = a.buf[4+n:]
				return f, nil
			}
		}
		b, err := a.more()
		a.buf = append(a.buf, b...)
		if err != nil {
			if len(b) > 0 {
				continue
			}
			if errors.Is(err, io.EOF) && len(a.buf) > 0 {
				return nil, fmt.Errorf("%d bytes of a cut frame at the end", len(a.buf))
			}
			return nil, err
		}
	}
}

// dotnetEpoch turns Unix 100 ns ticks into .NET UTC ticks (ulinkrpc.md 4).
const dotnetEpoch = 621355968000000000

// conv is one ULinkRPC conversation's send log.
type conv struct {
	c     *connRecord
	links [2]link
	mu    [2]sync.Mutex // one writer per side, the log in send order
	pmu   sync.Mutex
	req   map[uint32]int   // request_id → index in Sent[c2s]
	ping  [2]map[int64]int // ticks → index in Sent[dir]
	ticks [2]int64
}

// send logs and writes one envelope from side d; answer, when it is one,
// pairs it with its asker.
func (v *conv) send(d dissect.Dir, env []byte, kind string) error {
	v.mu[d].Lock()
	defer v.mu[d].Unlock()
	i := len(v.c.Sent[d])
	v.pmu.Lock()
	v.c.Sent[d] = append(v.c.Sent[d], sentMsg{Hex: hex.EncodeToString(env), Kind: kind})
	switch ulinkrpc.FrameType(env[0]) {
	case ulinkrpc.Request:
		v.req[binary.BigEndian.Uint32(env[1:])] = i
	case ulinkrpc.Response:
		if a, ok := v.req[binary.BigEndian.Uint32(env[1:])]; ok {
			v.c.Pairs = append(v.c.Pairs, [2]msgRef{{0, a}, {int(d), i}})
		}
	case ulinkrpc.KeepAlivePing:
		v.ping[d][int64(binary.BigEndian.Uint64(env[1:]))] = i
	case ulinkrpc.KeepAlivePong:
		if a, ok := v.ping[1-d][int64(binary.BigEndian.Uint64(env[1:]))]; ok {
			v.c.Pairs = append(v.c.Pairs, [2]msgRef{{int(1 - d), a}, {int(d), i}})
		}
	}
	v.pmu.Unlock()
	return v.links[d].write(ulinkrpc.AppendFrame(nil, env))
}

// newTicks is a ping's ticks: the time now in .NET ticks, never the same
// twice on a side.
func (v *conv) newTicks(d dissect.Dir) int64 {
	v.pmu.Lock()
	defer v.pmu.Unlock()
	t := max(time.Now().UnixNano()/100+dotnetEpoch, v.ticks[d]+1)
	v.ticks[d] = t
	return t
}

func jsonPayload(rng *rand.Rand, key string, seq int, big bool) []byte {
	n := rng.IntN(64)
	switch {
	case big:
		n = 8000 + rng.IntN(52000)
	case rng.IntN(8) == 0:
		n = 300 + rng.IntN(3000)
	}
	return fmt.Appendf(nil, `{"%s":%d,"Pad":"%s"}`, key, seq, strings.Repeat("x", n))
}

// converse plays one random ULinkRPC conversation over links (by
// dissect.Dir: the client's end first). The client sends requests, at
// most a few outstanding, and keep-alive pings; the server answers each
// request after a delay of its own, so that responses overtake each
// other, sometimes with an error, sometimes after a push or a ping of its
// own, and answers pings. The client ends once it has every answer.
func converse(ctx context.Context, c *connRecord, links [2]link, rng *rand.Rand) error {
	v := &conv{c: c, links: links, req: map[uint32]int{}, ping: [2]map[int64]int{{}, {}}}
	crng := rand.New(rand.NewPCG(rng.Uint64(), 1))
	srng := rand.New(rand.NewPCG(rng.Uint64(), 2))
	stop := context.AfterFunc(ctx, func() { links[0].close(); links[1].close() })
	defer stop()

	var serr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		serr = serve(v, srng)
	}()
	cerr := client(v, crng, c.Seed)
	<-done
	if cerr != nil {
		return fmt.Errorf("client: %w", cerr)
	}
	if serr != nil {
		return fmt.Errorf("server: %w", serr)
	}
	return nil
}

func client(v *conv, rng *rand.Rand, seed int) error {
	l := v.links[dissect.C2S]
	// Every other seed is a burst: more requests, more of them
	// outstanding, no pauses, so that many segments are in flight when
	// one is lost.
	burst := seed%2 == 1
	n, outstanding := 8+rng.IntN(16), 1+rng.IntN(6)
	if burst {
		n, outstanding = 24+rng.IntN(24), 8+rng.IntN(9)
	}
	window := make(chan struct{}, outstanding)
	var answers sync.WaitGroup
	rerr := make(chan error, 1)
	go func() {
		for {
			env, err := l.next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				rerr <- err
				return
			}
			switch ulinkrpc.FrameType(env[0]) {
			case ulinkrpc.Response:
				<-window
				answers.Done()
			case ulinkrpc.KeepAlivePong:
				answers.Done()
			case ulinkrpc.KeepAlivePing:
				if err := v.send(dissect.C2S, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, int64(binary.BigEndian.Uint64(env[1:]))), "KeepAlivePong"); err != nil {
					rerr <- err
					return
				}
			}
		}
	}()
	// Every fourth seed's request ids wrap past 2^32, skipping 0
	// (ulinkrpc.md 5).
	id := uint32(1)
	if seed%4 == 0 {
		id = 1<<32 - 3
	}
	for i := range n {
		if rng.IntN(8) == 0 {
			answers.Add(1)
			if err := v.send(dissect.C2S, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, v.newTicks(dissect.C2S)), "KeepAlivePing"); err != nil {
				return err
			}
		} else {
			window <- struct{}{}
			answers.Add(1)
			if err := v.send(dissect.C2S, ulinkrpc.EncodeRequest(id, int32(1+rng.IntN(3)), int32(1+rng.IntN(4)), jsonPayload(rng, "Seq", i, false)), "Request"); err != nil {
				return err
			}
			if id++; id == 0 {
				id = 1
			}
		}
		if !burst && rng.IntN(3) == 0 {
			time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
		}
	}
	answered := make(chan struct{})
	go func() { answers.Wait(); close(answered) }()
	select {
	case <-answered:
	case err := <-rerr:
		if err == nil {
			err = errors.New("the server ended before every answer")
		}
		return err
	}
	if err := l.closeWrite(); err != nil {
		return err
	}
	return <-rerr
}

func serve(v *conv, rng *rand.Rand) error {
	l := v.links[dissect.S2C]
	var wg sync.WaitGroup
	var werr error
	var emu sync.Mutex
	fail := func(err error) {
		emu.Lock()
		if werr == nil && err != nil {
			werr = err
		}
		emu.Unlock()
	}
	seq := 0
	for {
		env, err := l.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			wg.Wait()
			return err
		}
		switch ulinkrpc.FrameType(env[0]) {
		case ulinkrpc.Request:
			seq++
			id := binary.BigEndian.Uint32(env[1:])
			sid, mid := int32(binary.BigEndian.Uint32(env[5:])), int32(binary.BigEndian.Uint32(env[9:]))
			delay := time.Duration(rng.IntN(3000)) * time.Microsecond
			push, ping := rng.IntN(5) == 0, rng.IntN(10) == 0
			st, errText := ulinkrpc.StatusOk, ""
			if rng.IntN(10) == 0 {
				st, errText = ulinkrpc.Status(2), "RPC handler failed."
			}
			reply := jsonPayload(rng, "Ack", seq, rng.IntN(20) == 0)
			pushArg := jsonPayload(rng, "Note", seq, false)
			wg.Go(func() {
				if push {
					fail(v.send(dissect.S2C, ulinkrpc.EncodePush(sid, 100+mid, pushArg), "Push"))
				}
				if ping {
					fail(v.send(dissect.S2C, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, v.newTicks(dissect.S2C)), "KeepAlivePing"))
				}
				time.Sleep(delay)
				fail(v.send(dissect.S2C, ulinkrpc.EncodeResponse(id, st, reply, errText), "Response"))
			})
		case ulinkrpc.KeepAlivePing:
			t := int64(binary.BigEndian.Uint64(env[1:]))
			fail(v.send(dissect.S2C, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, t), "KeepAlivePong"))
		}
	}
	wg.Wait()
	if werr != nil {
		return werr
	}
	return l.closeWrite()
}
