package session

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// Serverside_ID_Bit_Count inference (wire.md 4.6) on a connection's held
// messages: unturned.IDBitsInference tries the candidates; the index holds
// the messages and applies the verdict.

// inferIDBits tries to decide the count in force for cn's held messages,
// whose widening is decided; with force it must end the hold. Each held
// message is tried once (cn.idInf keeps the tally).
func (c *Index) inferIDBits(cn *connection, force bool) {
	if cn.idInf == nil {
		cn.idInf = unturned.NewIDBitsInference(c.profile)
		cn.idIdx = cn.idIdx[:0]
	}
	for _, i := range cn.held[len(cn.idIdx):] {
		r := c.rec(i)
		cn.idIdx = append(cn.idIdx, i)
		if cn.idInf.Add(unturned.IDMessage{Dir: r.dir, Widened: cn.widened[r.dir], Data: c.feederBytes(i)}) {
			// A marker or a definition gives the count from the wire;
			// the messages before it are inferred with what precedes it.
			force = true
			if cn.idInf.Relevant() == 0 {
				cn.idUndecided, cn.idInf = false, nil
				return // committing learns it from the wire
			}
			break
		}
	}
	v := cn.idInf.Verdict(force)
	if !v.Decided {
		if force {
			// Nothing held carries a server ID, so nothing held depends on
			// the count: commit it and go on inferring from what follows.
			cn.idInf, cn.idIdx = nil, cn.idIdx[:0]
			c.flushHeld(cn)
		}
		return
	}
	idx := cn.idIdx
	cn.idUndecided, cn.idInf = false, nil
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
			v.Bits, by, v.Candidates, c.idCandidates(), v.Confidence)}
	c.connFinding(cn, f)
	at := idx[v.First]
	if len(v.Deciding) > 0 {
		at = idx[v.Deciding[0]]
	}
	c.addExtra(at, f)
}

// idCandidates is how many counts the profile allows.
func (c *Index) idCandidates() int { return 1 << min(max(c.profile.IDBitCountBitCount, 0), 6) }

// idPending reports whether d, decoded by cn now, reads a server ID in a
// count not known yet: its ID is shown as undecided.
func (cn *connection) idPending(dir dissect.Dir, d *unturned.Decoded) bool {
	return cn.idUndecided && unturned.ReadsServerID(dir, d)
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
	cn.idInferred = false
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
