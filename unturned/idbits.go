package unturned

import (
	"math/bits"

	"github.com/usmnscope/usmnscope/dissect"
)

// Serverside_ID_Bit_Count inference (wire.md 4.6). A connection joined
// after the server's marker and before a definition does not know the count
// its server IDs are written with. Its messages are held (as for the
// widening inference, which is decided first) until the count is decided:
// every candidate from 0 to 2^id_bit_count_bit_count − 1 is tried on the
// messages that carry a server ID in the count in force, and the smallest
// under which every TellClientListenerId and TellServerMissingListener
// reads exactly and every such invoke fits is kept. It is decided as soon
// as one deciding message leaves a single candidate, or when the hold
// reaches its bound or the connection ends. A marker or a definition among
// the held messages gives the count from the wire instead.

// idUse is how a message depends on the count in force.
type idUse uint8

const (
	idNone  idUse = iota // carries no server ID in the count in force
	idFit                // an invoke: its payload runs to the end, so it only has to fit
	idExact              // TellClientListenerId, TellServerMissingListener: must read exactly
)

// idUseOf says how d, decoded in any count, uses the count in force: the
// kind, the flags and the mode are read before any server ID.
func idUseOf(dir dissect.Dir, d *Decoded) idUse {
	switch d.Kind {
	case KindInvokeMessageListener:
		iv := &d.Invoke
		if dir == dissect.S2C && !iv.HasDefinition || dir == dissect.C2S && !iv.HasClientID {
			return idFit
		}
	case KindNegotiateListenerDetails:
		m := d.Negotiate.Mode
		if dir == dissect.S2C && m == TellClientListenerID || dir == dissect.C2S && m == TellServerMissingListener {
			return idExact
		}
	}
	return idNone
}

// readsExactly: the layout ends within the message's last byte, only zero
// pad bits follow, strings are valid UTF-8 (wire.md 4.6) — the decoder
// reports each of those as a finding, so no finding of warning or above and
// no undecoded bits.
func readsExactly(d *Decoded) bool {
	for _, f := range d.Findings {
		if f.Severity >= dissect.Warn || f.Group == dissect.Undecoded {
			return false
		}
	}
	return true
}

// IDBitsVerdict is the outcome of trying every candidate count on a run of
// messages.
type IDBitsVerdict struct {
	Bits       int     // the count chosen
	Decided    bool    // a count was chosen
	Candidates int     // counts under which every message reads as it must
	Deciding   []int   // indices (into the messages given) of the messages that must read exactly
	Relevant   int     // messages carrying a server ID in the count in force
	First      int     // index of the first of them, -1 for none
	Confidence float64 // how sure: 1/Candidates, scaled by how many deciding messages there were
}

// IDMessage is one message InferIDBits is given.
type IDMessage struct {
	Dir     dissect.Dir
	Widened bool
	Data    []byte
}

// IDBitsInference accumulates what messages say about the count, one
// message at a time, so that a connection's hold costs one decoding per
// candidate and message however often it asks for a verdict.
type IDBitsInference struct {
	p        *Profile
	maxK     int
	all      uint64  // candidates every relevant message so far reads as it must under
	count    [64]int // per candidate: relevant messages that read under it
	relevant int     // messages carrying a server ID in the count in force
	first    int     // index of the first of them, -1 for none
	deciding []int   // indices of those that must read exactly
	n        int     // messages added
	d        Decoded
}

// NewIDBitsInference starts an inference over the candidates 0 to
// 2^id_bit_count_bit_count − 1 of profile p.
func NewIDBitsInference(p *Profile) *IDBitsInference {
	if p == nil {
		p = Default()
	}
	maxK := 1<<min(max(p.IDBitCountBitCount, 0), 6) - 1
	return &IDBitsInference{p: p, maxK: maxK, all: ^uint64(0) >> (63 - maxK), first: -1}
}

// Add tries every candidate on m. It reports wire when m gives the count
// from the wire itself (the server's marker or a definition): the messages
// after it need no inference, and m is not counted.
func (x *IDBitsInference) Add(m IDMessage) (wire bool) {
	j := x.n
	x.n++
	d := &x.d
	*d = Decoded{Findings: d.Findings[:0]}
	Decode(x.p, m.Dir, State{Widened: m.Widened}, m.Data, nil, d)
	if m.Dir == dissect.S2C && (d.HasMarker && d.Marker.HasIDBits || d.Kind == KindInvokeMessageListener && d.Invoke.HasDefinition && d.Clean()) {
		return true
	}
	use := idUseOf(m.Dir, d)
	if use == idNone {
		return false
	}
	if x.relevant++; x.first < 0 {
		x.first = j
	}
	if use == idExact {
		x.deciding = append(x.deciding, j)
	}
	var pass uint64
	for k := 0; k <= x.maxK; k++ {
		*d = Decoded{Findings: d.Findings[:0]}
		Decode(x.p, m.Dir, State{Widened: m.Widened, IDBits: k, IDKnown: true}, m.Data, nil, d)
		if use == idExact && readsExactly(d) || use == idFit && d.Clean() {
			pass |= 1 << k
			x.count[k]++
		}
	}
	x.all &= pass
	return false
}

// Verdict decides when a deciding message leaves one candidate, or with
// force, the smallest candidate (or, if none reads every message, the one
// most messages read under); with no message carrying a server ID it
// decides nothing.
func (x *IDBitsInference) Verdict(force bool) IDBitsVerdict {
	v := IDBitsVerdict{First: x.first, Relevant: x.relevant, Deciding: x.deciding, Candidates: bits.OnesCount64(x.all)}
	switch {
	case x.relevant == 0:
		return v
	case x.all != 0 && (v.Candidates == 1 && len(x.deciding) > 0 || force):
		v.Bits, v.Decided = bits.TrailingZeros64(x.all), true
		v.Confidence = 1 / float64(v.Candidates)
	case force:
		best := 0
		for k := 1; k <= x.maxK; k++ {
			if x.count[k] > x.count[best] {
				best = k
			}
		}
		v.Bits, v.Decided = best, true
		v.Confidence = float64(x.count[best]) / float64(x.relevant) / float64(x.maxK+1)
	default:
		return v
	}
	// One deciding message halves the doubt left, each further one again;
	// invokes alone (which only have to fit) leave it at half.
	v.Confidence *= 1 - 1/float64(int(2)<<min(len(x.deciding), 20))
	return v
}

// InferIDBits tries every candidate Serverside_ID_Bit_Count on msgs
// (wire.md 4.6), up to the first that gives the count from the wire, and
// gives the verdict (IDBitsInference.Verdict).
func InferIDBits(p *Profile, msgs []IDMessage, force bool) IDBitsVerdict {
	x := NewIDBitsInference(p)
	for _, m := range msgs {
		if x.Add(m) {
			break
		}
	}
	return x.Verdict(force)
}

// Relevant is how many of the messages added so far carry a server ID in
// the count in force.
func (x *IDBitsInference) Relevant() int { return x.relevant }

// ReadsServerID reports whether d, decoded in any count, reads a server ID
// in the count in force (an invoke without its own ID, or a
// TellClientListenerId or TellServerMissingListener): such a message shows
// its ID as undecided while the count is inferred.
func ReadsServerID(dir dissect.Dir, d *Decoded) bool { return idUseOf(dir, d) != idNone }
