package scenario

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// Chain is three hosts' captures of two sessions (issue 27's chained
// clocks): an Unturned session between A (the client, on the true clock)
// and B (the server), and a ULinkRPC session over TCP between B (the
// client) and C (the server), each over a path of 3 ms (+0–40 µs) each
// way. A and C share no connection: C's clock reaches A's through B's.
// B's and C's clocks are offset and drift from the true one.
type Chain struct {
	OffsetB, OffsetC time.Duration
	DriftB, DriftC   float64 // parts per million
	Messages         int     // per session; 0: 400
}

// ChainCaptures are what Chain.Generate made: the three captures' packets
// (each in its own time order), the truth of the B–C session by the index
// (from 1) of its packets in BC, and the true offsets: what puts the
// first time of B's and C's captures on the true clock.
type ChainCaptures struct {
	A, B, C        []Packet
	BC             []Packet // the B–C session's packets, as generated
	BCTruth        *BothEndsTruth
	TruthB, TruthC int64
	Link           layers.LinkType
}

// Generate plays both sessions and the three hosts' captures of them.
func (ch Chain) Generate() (*ChainCaptures, error) {
	n := ch.Messages
	if n == 0 {
		n = 400
	}
	read := func(gen func(*bytes.Buffer) error) ([]Packet, layers.LinkType, error) {
		var buf bytes.Buffer
		if err := gen(&buf); err != nil {
			return nil, 0, err
		}
		r, err := pcapgo.NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			return nil, 0, err
		}
		var ps []Packet
		for {
			d, ci, err := r.ReadPacketData()
			if err != nil {
				break
			}
			ps = append(ps, Packet{Time: ci.Timestamp, Data: append([]byte(nil), d...)})
		}
		return ps, r.LinkType(), nil
	}
	ps1, lt, err := read(func(b *bytes.Buffer) error {
		_, err := (Scale{Messages: n, Conns: 1, Seed: 7}).Generate(b, PCAP)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("scenario: chain: %w", err)
	}
	ps2, _, err := read(func(b *bytes.Buffer) error {
		_, err := (RPCScale{Frames: n, Conns: 1, Seed: 9, Transport: "tcp"}).Generate(b, PCAP)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("scenario: chain: %w", err)
	}
	// Both sessions on the true clock; each host's clock applied after.
	path := BothEnds{Delay: 3 * time.Millisecond, Jitter: 40 * time.Microsecond, Stretch: 1000, Seed: 1}
	a, b1, _ := path.Split(ps1, lt, 27016)
	path.Seed, path.Stretch = 2, 1500
	b2, c, tr2 := path.Split(ps2, lt, 20000)
	t0 := a[0].Time.UnixNano()
	on := func(ps []Packet, off time.Duration, ppm float64) (out []Packet, truth int64) {
		var first int64
		for _, p := range ps {
			t := p.Time.UnixNano()
			if first == 0 || t < first {
				first = t
			}
			out = append(out, Packet{Time: time.Unix(0, t+int64(off)+int64(ppm*1e-6*float64(t-t0))).UTC(), Data: p.Data})
		}
		slices.SortStableFunc(out, func(x, y Packet) int { return x.Time.Compare(y.Time) })
		return out, -int64(off) - int64(ppm*1e-6*float64(first-t0))
	}
	cc := &ChainCaptures{A: a, BC: ps2, BCTruth: tr2, Link: lt}
	cc.B, cc.TruthB = on(append(slices.Clone(b1), b2...), ch.OffsetB, ch.DriftB)
	cc.C, cc.TruthC = on(c, ch.OffsetC, ch.DriftC)
	return cc, nil
}
