package merge

import (
	"hash/fnv"
	"sort"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
)

// Datagram sessions (issue 27): a protocol over UDP whose sessions carry
// an id of their own and number what they send (KCP: its conversation id
// `conv` and each PUSH segment's `sn`) is matched across captures by that
// id, not by the 4-tuple, which a NAT between the two ends rewrites. The
// package still decodes nothing: Options.Units, given by the caller that
// knows the protocols, names a datagram's session and its units.

// Unit is one numbered piece a datagram carries: its sequence number in
// its session and direction, and the hash of its bytes (two captures'
// copies of a unit with different hashes disagree).
type Unit struct {
	Seq  uint32
	Hash uint64
}

// Units names the session of datagram data and appends the units it
// carries to dst; ok false when data is no datagram of a session it
// knows (it is then matched by nothing).
type Units func(dst []Unit, data []byte) (session uint64, units []Unit, ok bool)

// Options are how Plan matches what the 4-tuple does not.
type Options struct {
	// Units, when not nil, matches datagram sessions across captures.
	Units Units
}

// dconv is a datagram session more than one capture has: its flow in
// each capture (several when the client moved) and the flow its merged
// datagrams carry (the first capture's first).
type dconv struct {
	key   capture.Flow
	idx   int32 // the session's number in the plan, for the merged read's keys
	flows []inFlow
}

// maxHanded bounds the entries of each of the merged read's maps of
// datagrams handed on (about 16 bytes each): past it a map starts again,
// so that a later copy of an early datagram may be handed on twice (the
// protocol's decoder meets it as a retransmission, as on the wire).
const maxHanded = 1 << 20

type inFlow struct {
	in int
	f  capture.Flow
}

// dkey is a datagram flow of one capture.
type dkey struct {
	in int
	f  capture.Flow
}

// sortUnits puts each track's units of a datagram session in sequence
// order, the first sight of a sequence number only (a retransmission
// later is not another unit).
func sortUnits(tr *track) {
	for d := range tr.segs {
		ss := tr.segs[d]
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].pos < ss[j].pos })
		out := ss[:0]
		for k := range ss {
			if len(out) > 0 && out[len(out)-1].pos == ss[k].pos {
				continue
			}
			out = append(out, ss[k])
		}
		tr.segs[d] = out
	}
}

// takeDatagram queues what datagram ev of capture in becomes: a datagram
// of a session several captures have carries the session's one flow, and
// is handed on once (the first capture's copy to arrive: one with a unit
// not handed on yet, or with none, the k-th copy of its bytes when no
// capture's k-th copy was handed on yet). It reports false for a datagram
// of no such session.
func (s *Source) takeDatagram(in int, ev capture.Event) bool {
	key, ok := s.p.dflows[dkey{in, ev.Flow}]
	if !ok {
		return false
	}
	fl := s.p.flows[key]
	ci := s.p.dconvs[key].idx
	ev.Flow = key
	if !fl.merged {
		// A conflict: the first capture's copy only, and the datagrams
		// carrying the unit the copies disagree on shown side by side
		// once both are read (as a stream's segment is, conflictNote).
		if s.p.opts.Units != nil && (in == fl.ins[0] || in == fl.cOther) && dirOf(ev.FromServer) == fl.cDir {
			_, s.units, _ = s.p.opts.Units(s.units[:0], ev.Data)
			for _, u := range s.units {
				if int64(u.Seq) == fl.cPos {
					s.conflictNote(fl, in, ev)
					break
				}
			}
		}
		if in == fl.ins[0] {
			s.queue = append(s.queue, ev)
		}
		return true
	}
	d := dirOf(ev.FromServer)
	s.units = s.units[:0]
	if s.p.opts.Units != nil {
		_, s.units, _ = s.p.opts.Units(s.units, ev.Data)
	}
	fresh := len(s.units) == 0
	if fresh {
		h := fnv.New64a()
		h.Write(ev.Data)
		if len(s.copies) >= maxHanded || len(s.handedCopies) >= maxHanded {
			clear(s.copies)
			clear(s.handedCopies)
		}
		hk := hashKey{ci, d, h.Sum64()}
		ik := inHashKey{int32(in), hk}
		s.copies[ik]++
		if s.copies[ik] <= s.handedCopies[hk] {
			return true
		}
		s.handedCopies[hk]++
	} else {
		if len(s.handedUnits)+len(s.units) > maxHanded {
			clear(s.handedUnits)
		}
		for _, u := range s.units {
			uk := unitKey{ci, d, u.Seq}
			if !s.handedUnits[uk] {
				s.handedUnits[uk] = true
				fresh = true
			}
		}
		if !fresh {
			return true
		}
		e := s.lastUnit[key]
		e[d] = int64(s.units[len(s.units)-1].Seq) + 1
		s.lastUnit[key] = e
	}
	s.queue = append(s.queue, ev)
	return true
}

// hashKey is a datagram's bytes in a direction of a session (its
// dconv.idx); inHashKey the same in one capture; unitKey a unit.
type hashKey struct {
	conv int32
	d    dissect.Dir
	h    uint64
}

type inHashKey struct {
	in int32
	k  hashKey
}

type unitKey struct {
	conv int32
	d    dissect.Dir
	seq  uint32
}

// HostedEnd is the end a record completed by the event just handed on
// has in direction d of flow f (session.HostedSight): of a stream, the
// bytes handed on so far; of a datagram session, one past the last unit
// of its last datagram handed on. ok false for a flow not merged.
func (s *Source) HostedEnd(f capture.Flow, d dissect.Dir) (end int64, ok bool) {
	fl := s.p.flows[f]
	if fl == nil || !fl.merged || d > dissect.S2C {
		return 0, false
	}
	if fl.dgram {
		e, ok := s.lastUnit[f]
		return e[d], ok
	}
	c := s.cursor[f]
	if c == nil {
		return 0, false
	}
	return c[d], true
}
