package merge

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"sort"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// Input is one capture of several.
type Input struct {
	Host, Capture string
	// Open opens the capture (again: Plan reads it twice, the decode once
	// more).
	Open func() (capture.Source, error)
	// Shift, when HasShift, is added to the capture's times instead of the
	// estimated offset (--time-shift).
	Shift    int64
	HasShift bool
}

// MaxSegments bounds the segments Plan keeps per capture (32 bytes each)
// of the connections that more than one capture has; past it the rest of
// the capture's segments are not matched (a note says so).
const MaxSegments = 4 << 20

// seg is one data event of a connection that more than one capture has:
// its stream position, length, time, frame and the hash of its bytes.
type seg struct {
	pos   int64
	t     int64
	h     uint64
	n     int32
	frame int32
}

// track is one capture's copy of a connection.
type track struct {
	segs [2][]seg // by dissect.Dir
	pos  [2]int64
	rule capture.ServerRule
}

// flow is a connection more than one capture has.
type flow struct {
	tr       map[int]*track // by input
	ins      []int          // the captures that have it, in input order
	merged   bool           // one connection (else a conflict or unrelated)
	conflict string         // why not merged (the scan's finding)
	// The segment the copies disagree on: its direction, position and
	// length, and the other capture; the merged read shows both copies'
	// bytes where they differ (Source.conflictNote).
	cDir     dissect.Dir
	cPos     int64
	cLen     int32
	cOther   int
	cFirst   []byte // the copy read first
	cFirstIn int
	cShown   bool
	sender   [2]int // by Dir: the input of the host that sent it, -1 unknown
	// dgram marks a datagram session (datagram.go): its segs are units,
	// pos a unit's sequence number, n 1.
	dgram bool
}

// Plan is what the scan of several captures found: each capture's clock
// and the connections to merge.
type Plan struct {
	Inputs []Input
	Clocks []Clock
	flows  map[capture.Flow]*flow
	notes  []string // warnings
	infos  []string // notes: a capture whose clock no chain reaches
	opts   Options
	// dflows maps each capture's flows of a datagram session several
	// captures have to the session's key in flows; dconvs lists them.
	dflows map[dkey]capture.Flow
	dconvs map[capture.Flow]*dconv
}

// NewPlan scans the inputs: first each capture's connections, then the
// segments of those more than one capture has, to match them and estimate
// the clocks. Inputs[0] is the reference clock.
func NewPlan(inputs []Input) (*Plan, error) { return NewPlanWith(inputs, Options{}) }

// NewPlanWith is NewPlan that also matches datagram sessions
// (Options.Units) whatever their 4-tuples.
func NewPlanWith(inputs []Input, o Options) (*Plan, error) {
	p := &Plan{Inputs: inputs, Clocks: make([]Clock, len(inputs)), flows: map[capture.Flow]*flow{}, opts: o,
		dflows: map[dkey]capture.Flow{}, dconvs: map[capture.Flow]*dconv{}}
	seen := map[capture.Flow][]int{}
	// Datagram sessions: by id, each capture's flows in the order seen.
	sessions := map[uint64][]inFlow{}
	var sessOrder []uint64
	sessFlow := map[dkey]bool{}
	var units []Unit
	for i, in := range inputs {
		err := scan(in, func(src capture.Source, ev *capture.Event) {
			if ev.Kind == capture.EventDatagram && o.Units != nil {
				if sessFlow[dkey{i, ev.Flow}] {
					return
				}
				id, _, ok := o.Units(units[:0], ev.Data)
				if !ok {
					return
				}
				sessFlow[dkey{i, ev.Flow}] = true
				if ev.Probe {
					// A probed flow yields its first datagrams only.
					if c, ok := src.(capture.DatagramClaimer); ok {
						c.ClaimDatagrams(ev.Flow)
					}
				}
				if _, ok := sessions[id]; !ok {
					sessOrder = append(sessOrder, id)
				}
				sessions[id] = append(sessions[id], inFlow{i, ev.Flow})
				return
			}
			if ev.Kind != capture.EventData && ev.Kind != capture.EventOpen {
				return
			}
			l := seen[ev.Flow]
			if len(l) == 0 || l[len(l)-1] != i {
				seen[ev.Flow] = append(l, i)
			}
		}, &p.Clocks[i].first)
		if err != nil {
			return nil, err
		}
	}
	for f, ins := range seen {
		if len(ins) > 1 {
			p.flows[f] = &flow{tr: map[int]*track{}, ins: ins, sender: [2]int{-1, -1}}
		}
	}
	for _, id := range sessOrder {
		fs := sessions[id]
		var ins []int
		for _, x := range fs {
			if len(ins) == 0 || ins[len(ins)-1] != x.in {
				ins = append(ins, x.in)
			}
		}
		key := fs[0].f
		if len(ins) < 2 || p.flows[key] != nil {
			continue
		}
		p.flows[key] = &flow{tr: map[int]*track{}, ins: ins, sender: [2]int{-1, -1}, dgram: true}
		p.dconvs[key] = &dconv{key: key, idx: int32(len(p.dconvs)), flows: fs}
		for _, x := range fs {
			p.dflows[dkey(x)] = key
		}
	}
	if len(p.flows) > 0 {
		for i, in := range inputs {
			kept := 0
			full := false
			err := scan(in, func(src capture.Source, ev *capture.Event) {
				if ev.Kind == capture.EventDatagram {
					key, ok := p.dflows[dkey{i, ev.Flow}]
					if !ok {
						return
					}
					if ev.Probe {
						if c, ok := src.(capture.DatagramClaimer); ok {
							c.ClaimDatagrams(ev.Flow)
						}
					}
					fl := p.flows[key]
					tr := fl.tr[i]
					if tr == nil {
						tr = &track{}
						fl.tr[i] = tr
					}
					_, units, _ = o.Units(units[:0], ev.Data)
					d := dirOf(ev.FromServer)
					for _, u := range units {
						if kept >= MaxSegments {
							full = true
							break
						}
						tr.segs[d] = append(tr.segs[d], seg{pos: int64(u.Seq), t: ev.Time.UnixNano(), h: u.Hash, n: 1, frame: int32(ev.Frame)})
						kept++
					}
					return
				}
				fl := p.flows[ev.Flow]
				if fl == nil {
					return
				}
				tr := fl.tr[i]
				if tr == nil {
					tr = &track{}
					fl.tr[i] = tr
				}
				d := dirOf(ev.FromServer)
				switch ev.Kind {
				case capture.EventOpen:
					tr.rule = ev.Rule
				case capture.EventGap:
					tr.pos[d] += int64(ev.Lost)
				case capture.EventData:
					if kept < MaxSegments {
						h := fnv.New64a()
						h.Write(ev.Data)
						tr.segs[d] = append(tr.segs[d], seg{pos: tr.pos[d], t: ev.Time.UnixNano(), h: h.Sum64(), n: int32(len(ev.Data)), frame: int32(ev.Frame)})
						kept++
					} else {
						full = true
					}
					tr.pos[d] += int64(len(ev.Data))
				}
			}, nil)
			if err != nil {
				return nil, err
			}
			for _, fl := range p.flows {
				if tr := fl.tr[i]; fl.dgram && tr != nil {
					sortUnits(tr)
				}
			}
			if full {
				p.notes = append(p.notes, fmt.Sprintf("%s: more than %d segments of connections other captures have: the rest are not matched", termsafe.Escape(in.Capture), MaxSegments))
			}
		}
	}
	p.match()
	return p, nil
}

// scan reads every event of in, first setting *first to the first event's
// time (ns) when first is not nil.
func scan(in Input, fn func(capture.Source, *capture.Event), first *int64) error {
	src, err := in.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	for {
		ev, err := src.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			// What was read is used; the decode reports the error.
			return nil
		}
		if first != nil && *first == 0 && !ev.Time.IsZero() {
			*first = ev.Time.UnixNano()
		}
		fn(src, ev)
	}
}

func dirOf(fromServer bool) dissect.Dir {
	if fromServer {
		return dissect.S2C
	}
	return dissect.C2S
}

// match decides which shared connections are one (the bytes at the
// positions both captures have agree), which captures' hosts sent each
// direction, and every capture's clock against the first's.
func (p *Plan) match() {
	samples := map[[2]int][]sample{} // by (reference, other) input
	keys := make([]capture.Flow, 0, len(p.flows))
	for f := range p.flows {
		keys = append(keys, f)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, f := range keys {
		fl := p.flows[f]
		ref := fl.ins[0]
		a := fl.tr[ref]
		if a == nil {
			continue
		}
		fl.merged = true
		type pair struct{ ta, tb int64 }
		var pairs [2]map[int][]pair // by Dir, by other input
		for _, j := range fl.ins[1:] {
			b := fl.tr[j]
			if b == nil {
				continue
			}
			for d := range 2 {
				bad := false
				common(a.segs[d], b.segs[d], func(x, y *seg) {
					if bad {
						return
					}
					if x.h != y.h {
						bad = true
						fl.merged = false
						what := "segment at stream position"
						if fl.dgram {
							what = "unit numbered"
						}
						fl.conflict = fmt.Sprintf("captures %s and %s both have connection %s but disagree on its %v %s %d (%d bytes; %s frame %d, %s frame %d): not merged, %s's copy is decoded",
							termsafe.Escape(p.Inputs[ref].Capture), termsafe.Escape(p.Inputs[j].Capture), f, dissect.Dir(d), what, x.pos, x.n,
							termsafe.Escape(p.Inputs[ref].Capture), x.frame, termsafe.Escape(p.Inputs[j].Capture), y.frame,
							termsafe.Escape(p.Inputs[ref].Capture))
						fl.cDir, fl.cPos, fl.cLen, fl.cOther = dissect.Dir(d), x.pos, x.n, j
						return
					}
					if pairs[d] == nil {
						pairs[d] = map[int][]pair{}
					}
					pairs[d][j] = append(pairs[d][j], pair{x.t, y.t})
				})
			}
		}
		if !fl.merged {
			continue
		}
		// The direction whose (other − reference) differences are larger
		// is the one the reference's host sent (the delay adds to them).
		for _, j := range fl.ins[1:] {
			c2s, s2c := pairs[dissect.C2S][j], pairs[dissect.S2C][j]
			med := func(ps []pair) float64 {
				ds := make([]float64, len(ps))
				for k, q := range ps {
					ds[k] = float64(q.tb - q.ta)
				}
				sort.Float64s(ds)
				return ds[len(ds)/2]
			}
			refSendsC2S := true
			switch {
			case len(c2s) > 0 && len(s2c) > 0:
				refSendsC2S = med(c2s) >= med(s2c)
			case len(c2s) == 0 && len(s2c) == 0:
				continue
			}
			if j == fl.ins[1] {
				if refSendsC2S {
					fl.sender = [2]int{ref, j}
				} else {
					fl.sender = [2]int{j, ref}
				}
			}
			// Every pair's samples on the first capture's origin t0, so
			// that the pairs' clocks compose (chain).
			t0 := p.Clocks[0].first
			k := [2]int{ref, j}
			for d, ps := range [2][]pair{c2s, s2c} {
				ab := (d == int(dissect.C2S)) == refSendsC2S
				for _, q := range ps {
					samples[k] = append(samples[k], sample{x: float64(q.ta - t0), d: float64(q.tb - q.ta), ab: ab})
				}
			}
		}
	}
	p.chain(samples)
}

// common calls fn for the segments of a and b (sorted by position) that
// start at the same position with the same length.
func common(a, b []seg, fn func(x, y *seg)) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].pos < b[j].pos:
			i++
		case a[i].pos > b[j].pos:
			j++
		default:
			if a[i].n == b[j].n {
				fn(&a[i], &b[j])
			}
			i++
			j++
		}
	}
}

// Notes are remarks of the scan (capture-wide findings): its warnings,
// then its notes.
func (p *Plan) Notes() []string { return append(append([]string(nil), p.notes...), p.infos...) }
