package scenario

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// Scale describes a load capture: Messages messages over Conns connections
// that all run USMN, in a realistic mix (wire.md 4): mostly pings and
// short-ID invokes both ways, some definitions and negotiation, a few
// vanilla messages. It is for benchmarks and for trying the TUI on a big
// capture.
type Scale struct {
	Messages int
	Conns    int // default 16
	Seed     uint64
	Link     string    // default "ethernet"
	Start    time.Time // default the scenario default
	P        *unturned.Profile
}

// scaleListeners is how many listeners each side of a load connection
// registers: 8 server IDs, so Serverside_ID_Bit_Count 3.
const scaleListeners = 8

// scaleStep is the mean time between two messages of the capture.
const scaleStep = 20 * time.Microsecond

// loadConn is one connection of a load capture.
type loadConn struct {
	pl   *player
	f    *flow
	done int // messages so far
}

func (sc Scale) defaults() (Scale, error) {
	if sc.Messages < 0 {
		return sc, fmt.Errorf("scenario: scale: %d messages", sc.Messages)
	}
	if sc.Conns <= 0 {
		sc.Conns = 16
	}
	if sc.Conns > 60000 {
		return sc, fmt.Errorf("scenario: scale: %d connections is more than 60000", sc.Conns)
	}
	if err := scaleCapture(&sc.Link, &sc.Start); err != nil {
		return sc, fmt.Errorf("scenario: scale: %w", err)
	}
	if sc.P == nil {
		sc.P = unturned.Default()
	}
	return sc, nil
}

// loadConnection is the USMN setup every load connection shares.
func loadConnection(i int, p *unturned.Profile) *Connection {
	c := &Connection{
		ClientAddr:  netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(1 + i>>16), byte(i >> 8), byte(i)}), uint16(40000+i%20000)),
		ServerAddr:  netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, 1}), p.TransportPort),
		ClientUSMN:  true,
		ServerUSMN:  true,
		USMNVersion: 1,
		Transport:   defaultTransport(),
	}
	for j := range scaleListeners {
		typ := fmt.Sprintf("Load.Listener%d, Load", j)
		id := uint32(1000 + j)
		c.ServerLs = append(c.ServerLs, ListenerSpec{Type: typ, Version: 1})
		c.ClientLs = append(c.ClientLs, ListenerSpec{Type: typ, Version: 1, ID: &id})
	}
	return c
}

// mix picks the next action of a load connection. Weights: 30% pings,
// 40% S→C invokes, 22% C→S invokes (definitions and TellClientListenerId
// come by themselves the first time a listener is used), 4%
// RequestServerListenerId, 4% vanilla messages.
func mix(r *rand.Rand, a *Action, payload []byte) {
	*a = Action{From: "server"}
	x := r.IntN(100)
	switch {
	case x < 30:
		a.Do = "ping"
		if x < 15 {
			a.From = "client"
		}
	case x < 92:
		a.Do = "invoke"
		if x >= 70 {
			a.From = "client"
		}
		a.Listener = loadTypes[r.IntN(scaleListeners)]
		a.Payload = string(payload[:2*(1+r.IntN(16))])
	case x < 96:
		a.Do = "request"
		a.Listener = loadTypes[r.IntN(scaleListeners)]
	default:
		a.Do = "accept"
	}
}

var loadTypes = func() []string {
	var ts []string
	for j := range scaleListeners {
		ts = append(ts, fmt.Sprintf("Load.Listener%d, Load", j))
	}
	return ts
}()

// Generate writes the load capture to w. It streams: memory does not grow
// with the number of messages.
func (sc Scale) Generate(w io.Writer, f Format) (Stats, error) {
	sc, err := sc.defaults()
	if err != nil {
		return Stats{}, err
	}
	l := linkTypes[sc.Link]
	pw, err := newPacketWriter(w, f, l)
	if err != nil {
		return Stats{}, err
	}
	var werr error
	st := Stats{Conns: sc.Conns}
	out := func(p Packet) {
		if werr == nil {
			werr = pw.write(p)
			st.Packets++
			st.Bytes += int64(len(p.Data))
		}
	}
	r := rand.New(rand.NewPCG(sc.Seed, 0x75736d6e))
	payload := []byte("0123456789abcdef0123456789abcdef")
	now := sc.Start
	conns := make([]*loadConn, sc.Conns)
	var a Action
	play := func(lc *loadConn) {
		lc.f.now = now
		for i := range lc.pl.writes {
			w := &lc.pl.writes[i]
			lc.f.write(w)
			// Acknowledge now and then, so that neither side runs into a
			// full window and packets stay close to one per message.
			if lc.f.unacked[w.Dir] > 8192 {
				lc.f.control(1-w.Dir, flagACK)
			}
		}
		lc.done += lc.pl.msgs
		st.Messages += lc.pl.msgs
		lc.pl.msgs = 0
		lc.pl.writes = lc.pl.writes[:0]
		now = lc.f.now.Add(time.Duration(r.Int64N(int64(2 * scaleStep))))
	}
	for st.Messages < sc.Messages && werr == nil {
		i := r.IntN(sc.Conns)
		lc := conns[i]
		if lc == nil {
			c := loadConnection(i, sc.P)
			lc = &loadConn{pl: newPlayer(sc.P, c)}
			lc.f = newFlow(sc.Seed, dissect.Conn{Client: c.ClientAddr, Server: c.ServerAddr}, l, c.Transport, now, out)
			lc.f.capture = true
			lc.f.handshake()
			conns[i] = lc
			a = Action{Do: "handshake"}
		} else {
			mix(r, &a, payload)
		}
		if err := actions[a.Do](lc.pl, &a); err != nil {
			return st, fmt.Errorf("scenario: scale: %w", err)
		}
		play(lc)
	}
	for _, lc := range conns {
		if lc != nil && werr == nil {
			lc.f.now = now
			lc.f.close()
			now = lc.f.now
		}
	}
	if werr != nil {
		return st, fmt.Errorf("scenario: scale: %w", werr)
	}
	if err := pw.flush(); err != nil {
		return st, fmt.Errorf("scenario: scale: %w", err)
	}
	return st, nil
}
