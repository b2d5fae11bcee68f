package merge

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// Source is the events of several captures as one capture.Source: in
// time order on the reference clock (a tie goes to the capture given
// first), each event's time aligned (Plan's clocks), flow IDs numbered
// once for all, and a merged connection's bytes handed on once each
// (from the capture that has them first, a hole none fills as a gap).
// Offsets are -1: the events come from several files. Input says which
// capture the last event came from.
type Source struct {
	p    *Plan
	srcs []capture.Source
	head []*capture.Event
	done []bool
	errs []error

	ids     map[[2]uint32]uint32
	flowIDs map[capture.Flow]uint32
	nextID  uint32
	pos     map[posKey]*[2]int64 // per capture and merged flow: its stream positions
	cursor  map[capture.Flow]*[2]int64
	opened  map[capture.Flow]bool
	closed  map[capture.Flow]int

	queue []capture.Event
	qi    int
	cur   int
	notes bool

	// Datagram sessions (datagram.go).
	units        []Unit
	copies       map[inHashKey]int
	handedCopies map[hashKey]int
	handedUnits  map[unitKey]bool
	lastUnit     map[capture.Flow][2]int64
}

type posKey struct {
	in int
	f  capture.Flow
}

// Open opens every capture of the plan for the merged read.
func (p *Plan) Open() (*Source, error) {
	s := &Source{p: p, ids: map[[2]uint32]uint32{}, flowIDs: map[capture.Flow]uint32{}, pos: map[posKey]*[2]int64{},
		cursor: map[capture.Flow]*[2]int64{}, opened: map[capture.Flow]bool{}, closed: map[capture.Flow]int{},
		copies: map[inHashKey]int{}, handedCopies: map[hashKey]int{}, handedUnits: map[unitKey]bool{}, lastUnit: map[capture.Flow][2]int64{}}
	for _, in := range p.Inputs {
		src, err := in.Open()
		if err != nil {
			s.Close()
			return nil, err
		}
		s.srcs = append(s.srcs, src)
	}
	s.head = make([]*capture.Event, len(s.srcs))
	s.done = make([]bool, len(s.srcs))
	s.errs = make([]error, len(s.srcs))
	return s, nil
}

// Input returns the index of the capture the last event came from.
func (s *Source) Input() int { return s.cur }

// Plan returns the plan s reads.
func (s *Source) Plan() *Plan { return s.p }

// Next returns the next event of all the captures.
func (s *Source) Next() (*capture.Event, error) {
	for {
		if s.qi < len(s.queue) {
			ev := &s.queue[s.qi]
			s.qi++
			return ev, nil
		}
		s.queue, s.qi = s.queue[:0], 0
		if !s.notes {
			s.notes = true
			for _, t := range s.p.notes {
				s.queue = append(s.queue, capture.Event{Kind: capture.EventNote, Level: capture.LevelWarn, Text: t, Offset: -1})
			}
			for _, t := range s.p.infos {
				s.queue = append(s.queue, capture.Event{Kind: capture.EventNote, Level: capture.LevelNote, Text: t, Offset: -1})
			}
			for _, f := range s.sortedConflicts() {
				s.queue = append(s.queue, capture.Event{Kind: capture.EventNote, Level: capture.LevelError, Flow: f, Text: s.p.flows[f].conflict, Offset: -1})
			}
			if len(s.queue) > 0 {
				s.cur = 0
				continue
			}
		}
		best := -1
		var bt int64
		for i := range s.srcs {
			if s.head[i] == nil && !s.done[i] {
				ev, err := s.srcs[i].Next()
				if err != nil {
					s.done[i] = true
					if !errors.Is(err, io.EOF) {
						s.errs[i] = err
					}
					continue
				}
				s.head[i] = ev
			}
			if s.head[i] == nil {
				continue
			}
			t := s.p.Clocks[i].Align(s.head[i].Time.UnixNano())
			if best < 0 || t < bt {
				best, bt = i, t
			}
		}
		if best < 0 {
			for i, err := range s.errs {
				if err != nil {
					s.errs[i] = nil
					return nil, err
				}
			}
			return nil, io.EOF
		}
		ev := *s.head[best]
		s.head[best] = nil
		s.cur = best
		if !ev.Time.IsZero() {
			ev.Time = time.Unix(0, bt).UTC()
		}
		s.take(best, ev)
	}
}

// take queues what event ev of capture in becomes.
func (s *Source) take(in int, ev capture.Event) {
	ev.Offset = -1
	if ev.Kind == capture.EventDatagram && s.takeDatagram(in, ev) {
		return
	}
	if ev.ID != 0 {
		k := [2]uint32{uint32(in), ev.ID}
		id, ok := s.ids[k]
		if !ok {
			s.nextID++
			id = s.nextID
			if fl := s.p.flows[ev.Flow]; fl != nil && fl.merged {
				// One connection: every capture's copy has one ID.
				if g, ok := s.flowIDs[ev.Flow]; ok {
					id = g
					s.nextID--
				} else {
					s.flowIDs[ev.Flow] = id
				}
			}
			s.ids[k] = id
		}
		ev.ID = id
	}
	fl := s.p.flows[ev.Flow]
	if fl == nil || ev.Flow == (capture.Flow{}) {
		s.queue = append(s.queue, ev)
		return
	}
	k := posKey{in, ev.Flow}
	pos := s.pos[k]
	if pos == nil {
		pos = &[2]int64{}
		s.pos[k] = pos
	}
	if !fl.merged {
		// A conflict: the first capture's copy only, and the segment the
		// copies disagree on shown side by side once both are read.
		d := dirOf(ev.FromServer)
		switch ev.Kind {
		case capture.EventGap:
			pos[d] += int64(ev.Lost)
		case capture.EventData:
			if d == fl.cDir && pos[d] == fl.cPos && len(ev.Data) == int(fl.cLen) && (in == fl.ins[0] || in == fl.cOther) {
				s.conflictNote(fl, in, ev)
			}
			pos[d] += int64(len(ev.Data))
		}
		if in == fl.ins[0] {
			s.queue = append(s.queue, ev)
		}
		return
	}
	cur := s.cursor[ev.Flow]
	if cur == nil {
		cur = &[2]int64{}
		s.cursor[ev.Flow] = cur
	}
	d := dirOf(ev.FromServer)
	switch ev.Kind {
	case capture.EventOpen:
		if !s.opened[ev.Flow] {
			s.opened[ev.Flow] = true
			s.queue = append(s.queue, ev)
		}
	case capture.EventClose:
		s.closed[ev.Flow]++
		if s.closed[ev.Flow] == len(fl.ins) {
			s.queue = append(s.queue, ev)
		}
	case capture.EventGap:
		pos[d] += int64(ev.Lost) // a hole another capture may fill
	case capture.EventData:
		start, end := pos[d], pos[d]+int64(len(ev.Data))
		pos[d] = end
		if end <= cur[d] {
			return // handed on already, from another capture
		}
		if start > cur[d] {
			g := ev
			g.Kind, g.Data, g.Lost = capture.EventGap, nil, int(start-cur[d])
			s.queue = append(s.queue, g)
		} else if start < cur[d] {
			ev.Data = ev.Data[cur[d]-start:]
		}
		cur[d] = end
		s.queue = append(s.queue, ev)
	default:
		s.queue = append(s.queue, ev)
	}
}

func (s *Source) sortedConflicts() []capture.Flow {
	var fs []capture.Flow
	for f, fl := range s.p.flows {
		if fl.conflict != "" {
			fs = append(fs, f)
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].String() < fs[j].String() })
	return fs
}

// Stats adds up the captures' statistics.
func (s *Source) Stats() capture.Stats {
	var t capture.Stats
	for _, src := range s.srcs {
		st := src.Stats()
		t.Packets += st.Packets
		t.Bytes += st.Bytes
		t.Read += st.Read
		t.Size += st.Size
		t.Flows += st.Flows
		t.TCPGame += st.TCPGame
		t.UDPGame += st.UDPGame
		t.UDPQuery += st.UDPQuery
		t.UDPNonGame += st.UDPNonGame
		t.Other += st.Other
		t.Undecodable += st.Undecodable
		t.Gaps += st.Gaps
		t.LostBytes += st.LostBytes
		t.Retransmits += st.Retransmits
		t.BufferCapHit += st.BufferCapHit
		t.Fragments += st.Fragments
		t.Reassembled += st.Reassembled
		t.FragmentsDropped += st.FragmentsDropped
		t.Decompressed += st.Decompressed
	}
	return t
}

// ClaimDatagrams passes a claim of a UDP flow on to every capture, and,
// for a datagram session several captures have, each capture's claim of
// its own flows of it.
func (s *Source) ClaimDatagrams(f capture.Flow) {
	for _, src := range s.srcs {
		if c, ok := src.(capture.DatagramClaimer); ok {
			c.ClaimDatagrams(f)
		}
	}
	if dc := s.p.dconvs[f]; dc != nil {
		for _, x := range dc.flows {
			if c, ok := s.srcs[x.in].(capture.DatagramClaimer); ok && x.f != f {
				c.ClaimDatagrams(x.f)
			}
		}
	}
}

// Close closes every capture.
func (s *Source) Close() error {
	var first error
	for _, src := range s.srcs {
		if err := src.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Seen is one capture's sight of a message.
type Seen struct {
	Capture, Host string
	Input         int // its index in Plan.Inputs
	Frame         int
	TimeNS        int64 // on the reference clock
}

// Sight is where a message of a merged connection was seen: Seen in
// capture order, OneWayNS (the receiver's time minus the sender's, when
// both saw it) and MissingIn, the captures of the connection that lack
// it. From is the index in Seen of the earliest sight.
type Sight struct {
	Seen      []Seen
	OneWayNS  int64
	HasOneWay bool
	MissingIn []string
}

// Sight returns where the byte at stream position end−1 of direction d of
// flow f was seen, or nil when f is not a merged connection.
func (p *Plan) Sight(f capture.Flow, d dissect.Dir, end int64) *Sight {
	fl := p.flows[f]
	if fl == nil || !fl.merged || d > dissect.S2C || end < 1 {
		return nil
	}
	at := end - 1
	sg := &Sight{}
	var ts = map[int]int64{}
	for _, i := range fl.ins {
		tr := fl.tr[i]
		var hit *seg
		if tr != nil {
			ss := tr.segs[d]
			k := sort.Search(len(ss), func(k int) bool { return ss[k].pos+int64(ss[k].n) > at })
			if k < len(ss) && ss[k].pos <= at {
				hit = &ss[k]
			}
		}
		in := p.Inputs[i]
		if hit == nil {
			sg.MissingIn = append(sg.MissingIn, in.Capture)
			continue
		}
		t := p.Clocks[i].Align(hit.t)
		ts[i] = t
		sg.Seen = append(sg.Seen, Seen{Capture: in.Capture, Host: in.Host, Input: i, Frame: int(hit.frame), TimeNS: t})
	}
	snd := fl.sender[d]
	if snd >= 0 {
		st, ok1 := ts[snd]
		for _, i := range fl.ins {
			if rt, ok2 := ts[i]; i != snd && ok1 && ok2 {
				sg.OneWayNS, sg.HasOneWay = rt-st, true
				break
			}
		}
	}
	return sg
}

// conflictNote keeps the first copy of the segment two captures disagree
// on and, given the second, queues an error note showing both copies'
// bytes from a little before the first byte they differ in.
func (s *Source) conflictNote(fl *flow, in int, ev capture.Event) {
	if fl.cShown {
		return
	}
	if fl.cFirst == nil {
		fl.cFirst, fl.cFirstIn = append([]byte(nil), ev.Data...), in
		return
	}
	if in == fl.cFirstIn {
		return
	}
	fl.cShown = true
	a, b := fl.cFirst, ev.Data
	ai, bi := fl.cFirstIn, in
	if ai != fl.ins[0] {
		a, b, ai, bi = b, a, bi, ai
	}
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	from := max(k-4, 0)
	to := min(from+16, len(a))
	what := fmt.Sprintf("the segment at stream position %d (%d bytes)", fl.cPos, fl.cLen)
	if fl.dgram {
		what = fmt.Sprintf("the datagram carrying unit %d", fl.cPos)
	}
	text := fmt.Sprintf("%v byte %d of %s differs: %s: % x | %s: % x (from byte %d)",
		fl.cDir, k, what, termsafe.Escape(s.p.Inputs[ai].Capture), a[from:to], termsafe.Escape(s.p.Inputs[bi].Capture), b[from:to], from)
	s.queue = append(s.queue, capture.Event{Kind: capture.EventNote, Level: capture.LevelError, Flow: ev.Flow, Text: text, Offset: -1})
}
