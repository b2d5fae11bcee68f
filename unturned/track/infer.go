package track

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// The inferences over a connection's held messages when its handshake was
// not captured (wire.md 4.6): the widened-enum reading of each undecided
// direction (unturned.WidthInference) and the Serverside_ID_Bit_Count
// (unturned.IDBitsInference). The codec tries the candidates; the Conn
// holds the messages, has the host decode them tentatively meanwhile, and
// applies the verdict.

// tentative decodes held message i of dir in the connection's current
// state (from msg, or the bytes the host keeps), so that it can be shown
// before the inference settles.
func (c *Conn) tentative(i int32, dir dissect.Dir, msg []byte) {
	d := c.host.Decode(i, dir, c.State(dir), msg, false)
	if c.idPending(dir, d) {
		c.host.Undecided(i)
	}
}

// decide infers the enum width of an undecided direction from its held
// messages (unturned.WidthInference: each is decoded under both readings,
// and the more plausible wins, vanilla on a tie; wire.md 4.2, issue 3 item
// 4).
func (c *Conn) decide(dir dissect.Dir) {
	x := unturned.NewWidthInference(dir, c.idBits, c.idKnown)
	first := int32(-1)
	for k, i := range c.held {
		if c.heldDir[k] != dir {
			continue
		}
		if first < 0 {
			first = i
		}
		x.Add(c.k.profile, c.host.Bytes(i), &c.k.dec)
	}
	widened, _ := x.Verdict()
	c.undecided[dir] = false
	c.widened[dir] = widened
	c.sum.Widened[dir] = widened || c.sum.Widened[dir]
	// A widened direction means both sides run USMN (wire.md 4.2). If the
	// other direction's handshake was captured with its marker, that side
	// widens too: it must have seen this side's marker in the part of the
	// stream the capture missed.
	if other := 1 - dir; widened && !c.undecided[other] && c.marker[other] && !c.widened[other] {
		c.widened[other] = true
		c.sum.Widened[other] = true
	}
	c.sum.Inferred = true
	c.host.Summary(&c.sum)
	f := x.Finding()
	c.host.Finding(f)
	if first >= 0 {
		c.host.Extra(first, f)
	}
}

// commitHeld commits the held messages in order once nothing is undecided.
func (c *Conn) commitHeld() {
	if c.undecided[dissect.C2S] || c.undecided[dissect.S2C] || c.idUndecided {
		return
	}
	c.flushHeld()
}

// flushHeld commits the held messages in order.
func (c *Conn) flushHeld() {
	held, dirs := c.held, c.heldDir
	c.held, c.heldDir = nil, nil
	for k, i := range held {
		c.commit(i, dirs[k], nil)
	}
}

// inferIDBits tries to decide the count in force for the held messages,
// whose widening is decided; with force it must end the hold. Each held
// message is tried once (idInf keeps the tally).
func (c *Conn) inferIDBits(force bool) {
	if c.idInf == nil {
		c.idInf = unturned.NewIDBitsInference(c.k.profile)
		c.idIdx = c.idIdx[:0]
	}
	for k := len(c.idIdx); k < len(c.held); k++ {
		i, dir := c.held[k], c.heldDir[k]
		c.idIdx = append(c.idIdx, i)
		if c.idInf.Add(unturned.IDMessage{Dir: dir, Widened: c.widened[dir], Data: c.host.Bytes(i)}) {
			// A marker or a definition gives the count from the wire;
			// the messages before it are inferred with what precedes it.
			force = true
			if c.idInf.Relevant() == 0 {
				c.idUndecided, c.idInf = false, nil
				return // committing learns it from the wire
			}
			break
		}
	}
	v := c.idInf.Verdict(force)
	if !v.Decided {
		if force {
			// Nothing held carries a server ID, so nothing held depends on
			// the count: commit it and go on inferring from what follows.
			c.idInf, c.idIdx = nil, c.idIdx[:0]
			c.flushHeld()
		}
		return
	}
	idx := c.idIdx
	c.idUndecided, c.idInf = false, nil
	c.idBits, c.idKnown, c.idInferred = v.Bits, true, true
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
	c.host.Finding(f)
	at := idx[v.First]
	if len(v.Deciding) > 0 {
		at = idx[v.Deciding[0]]
	}
	c.host.Extra(at, f)
}

// idCandidates is how many counts the profile allows.
func (c *Conn) idCandidates() int { return 1 << min(max(c.k.profile.IDBitCountBitCount, 0), 6) }

// idPending reports whether d, decoded now, reads a server ID in a count
// not known yet: its ID is shown as undecided.
func (c *Conn) idPending(dir dissect.Dir, d *unturned.Decoded) bool {
	return c.idUndecided && unturned.ReadsServerID(dir, d)
}

// overrides says when a definition in message i gives a count other than
// the inferred one (wire.md 4.6) and ends the inference.
func (c *Conn) overrides(i int32, dir dissect.Dir, d *unturned.Decoded) {
	if dir != dissect.S2C || d.Kind != unturned.KindInvokeMessageListener || !d.Invoke.HasDefinition || !d.Clean() {
		return
	}
	if c.idInferred && d.Invoke.IDBits != c.idBits {
		f := dissect.Finding{Severity: dissect.Note, Group: dissect.Inference, Bit: -1,
			Text: fmt.Sprintf("Serverside_ID_Bit_Count %d from the definition in message %d overrides the inferred %d", d.Invoke.IDBits, i+1, c.idBits)}
		c.host.Finding(f)
		c.host.Extra(i, f)
	}
	c.idInferred = false
}

// retentative decodes the held messages again once the widening is decided
// while the count is still being inferred, so that they show the widening
// and their undecided server IDs.
func (c *Conn) retentative() {
	if c.retent {
		return
	}
	c.retent = true
	for k, i := range c.held {
		c.tentative(i, c.heldDir[k], nil)
	}
}
