package session

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
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
func idUseOf(dir dissect.Dir, d *unturned.Decoded) idUse {
	switch d.Kind {
	case unturned.KindInvokeMessageListener:
		iv := &d.Invoke
		if dir == dissect.S2C && !iv.HasDefinition || dir == dissect.C2S && !iv.HasClientID {
			return idFit
		}
	case unturned.KindNegotiateListenerDetails:
		m := d.Negotiate.Mode
		if dir == dissect.S2C && m == unturned.TellClientListenerID || dir == dissect.C2S && m == unturned.TellServerMissingListener {
			return idExact
		}
	}
	return idNone
}

// readsExactly: the layout ends within the message's last byte, only zero
// pad bits follow, strings are valid UTF-8 (wire.md 4.6) — the decoder
// reports each of those as a finding, so no finding of warning or above and
// no undecoded bits.
func readsExactly(d *unturned.Decoded) bool {
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

// InferIDBits tries every candidate Serverside_ID_Bit_Count on msgs
// (wire.md 4.6). It decides when a deciding message leaves one candidate,
// or with force, the smallest candidate (or, if none fits every message,
// the one most messages fit); with force and no message carrying a server
// ID it decides nothing.
func InferIDBits(p *unturned.Profile, msgs []IDMessage, force bool) IDBitsVerdict {
	if p == nil {
		p = unturned.Default()
	}
	v := IDBitsVerdict{First: -1}
	maxK := min(1<<min(p.IDBitCountBitCount, 6)-1, 63)
	pass := make([]int, maxK+1)
	var d unturned.Decoded
	for j, m := range msgs {
		d = unturned.Decoded{Findings: d.Findings[:0]}
		unturned.Decode(p, m.Dir, unturned.State{Widened: m.Widened}, m.Data, nil, &d)
		use := idUseOf(m.Dir, &d)
		if use == idNone {
			continue
		}
		if v.Relevant++; v.First < 0 {
			v.First = j
		}
		if use == idExact {
			v.Deciding = append(v.Deciding, j)
		}
		for k := 0; k <= maxK; k++ {
			d = unturned.Decoded{Findings: d.Findings[:0]}
			unturned.Decode(p, m.Dir, unturned.State{Widened: m.Widened, IDBits: k, IDKnown: true}, m.Data, nil, &d)
			if use == idExact && readsExactly(&d) || use == idFit && d.Clean() {
				pass[k]++
			}
		}
	}
	best, first := 0, -1
	for k := 0; k <= maxK; k++ {
		if pass[k] == v.Relevant {
			v.Candidates++
			if first < 0 {
				first = k
			}
		}
		if pass[k] > pass[best] {
			best = k
		}
	}
	switch {
	case v.Relevant == 0:
		return v
	case first >= 0 && (v.Candidates == 1 && len(v.Deciding) > 0 || force):
		v.Bits, v.Decided = first, true
		v.Confidence = 1 / float64(v.Candidates)
	case force:
		// No count reads every message: the one most messages agree with.
		v.Bits, v.Decided = best, true
		v.Confidence = float64(pass[best]) / float64(v.Relevant) / float64(maxK+1)
	default:
		return v
	}
	// One deciding message halves the doubt left, each further one again;
	// invokes alone (which only have to fit) leave it at half.
	v.Confidence *= 1 - 1/float64(int(2)<<min(len(v.Deciding), 20))
	return v
}

// inferIDBits tries to decide the count in force for cn's held messages,
// whose widening is decided; with force it must end the hold.
func (c *Index) inferIDBits(cn *connection, force bool) {
	msgs := make([]IDMessage, 0, len(cn.held))
	idx := make([]int32, 0, len(cn.held))
	for _, i := range cn.held {
		r := c.rec(i)
		data := c.feederBytes(i)
		// A marker or a definition gives the count from the wire; the
		// messages before it are inferred with what precedes it.
		var d unturned.Decoded
		unturned.Decode(c.profile, r.dir, unturned.State{Widened: cn.widened[r.dir]}, data, nil, &d)
		if r.dir == dissect.S2C && (d.HasMarker && d.Marker.HasIDBits || d.Kind == unturned.KindInvokeMessageListener && d.Invoke.HasDefinition && d.Clean()) {
			force = true
			if len(msgs) == 0 {
				cn.idUndecided = false
				return // committing learns it from the wire
			}
			break
		}
		msgs = append(msgs, IDMessage{Dir: r.dir, Widened: cn.widened[r.dir], Data: append([]byte(nil), data...)})
		idx = append(idx, i)
	}
	v := InferIDBits(c.profile, msgs, force)
	if !v.Decided {
		if force {
			// Nothing carried a server ID: leave the count unknown (shown as
			// undecided) and stop holding.
			cn.idUndecided, cn.idUnknown = false, v.Relevant > 0
		}
		return
	}
	cn.idUndecided, cn.idUnknown = false, false
	cn.idBits, cn.idKnown, cn.idInferred = v.Bits, true, true
	ns := make([]string, 0, min(len(v.Deciding), 8))
	for _, j := range v.Deciding[:min(len(v.Deciding), 8)] {
		ns = append(ns, strconv.Itoa(int(idx[j])+1))
	}
	by := "deciding messages " + strings.Join(ns, ", ")
	if len(v.Deciding) > len(ns) {
		by += fmt.Sprintf(" and %d more", len(v.Deciding)-len(ns))
	}
	if len(ns) == 0 {
		by = fmt.Sprintf("no deciding message, %d invokes that only have to fit", v.Relevant)
	}
	f := dissect.Finding{Severity: dissect.Note, Group: dissect.Inference, Bit: -1,
		Text: fmt.Sprintf("Serverside_ID_Bit_Count inferred %d (marker and definitions not captured) from %s: %d of %d counts read them as they must; confidence %.2f",
			v.Bits, by, v.Candidates, 1<<min(c.profile.IDBitCountBitCount, 6), v.Confidence)}
	c.connFinding(cn, f)
	at := idx[v.First]
	if len(v.Deciding) > 0 {
		at = idx[v.Deciding[0]]
	}
	c.addExtra(at, f)
}

// idPending reports whether d, decoded by cn now, reads a server ID in a
// count not known yet: its ID is shown as undecided.
func (cn *connection) idPending(dir dissect.Dir, d *unturned.Decoded) bool {
	return (cn.idUndecided || cn.idUnknown) && idUseOf(dir, d) != idNone
}

// overrides says when a definition gives a count other than the inferred
// one (wire.md 4.6) and ends the inference.
func (c *Index) overrides(cn *connection, i int32, dir dissect.Dir, d *unturned.Decoded) {
	if dir != dissect.S2C || d.Kind != unturned.KindInvokeMessageListener || !d.Invoke.HasDefinition || !d.Clean() {
		return
	}
	if cn.idInferred && d.Invoke.IDBits != cn.idBits {
		f := dissect.Finding{Severity: dissect.Note, Group: dissect.Inference, Bit: -1,
			Text: fmt.Sprintf("Serverside_ID_Bit_Count %d from the definition in message %d overrides the inferred %d", d.Invoke.IDBits, i+1, cn.idBits)}
		c.connFinding(cn, f)
		c.addExtra(i, f)
	}
	cn.idInferred, cn.idUnknown = false, false
}

// retentative decodes the held messages again once the widening is decided
// while the count is still being inferred, so that they show the widening
// and their undecided server IDs.
func (c *Index) retentative(cn *connection) {
	if cn.retent {
		return
	}
	cn.retent = true
	for _, i := range cn.held {
		c.tentative(cn, i, nil)
	}
}
