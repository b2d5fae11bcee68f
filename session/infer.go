package session

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// decodeRec decodes record i in state st into c.dec, from msg when the
// caller has its bytes at hand, else from where the record says they are.
func (c *Index) decodeRec(i int32, dir dissect.Dir, st unturned.State, msg []byte) *unturned.Decoded {
	if msg == nil {
		msg = c.feederBytes(i)
	}
	c.dec = unturned.Decoded{Findings: c.dec.Findings[:0]}
	unturned.Decode(c.profile, dir, st, msg, nil, &c.dec)
	return &c.dec
}

// setDecoded records what decoding showed in the index entry.
func (c *Index) setDecoded(i int32, st unturned.State, d *unturned.Decoded) {
	r := c.rec(i)
	r.kind, r.idBits = d.Kind, uint8(st.IDBits)
	r.flags &^= recWidened | recIDKnown | recIDUndecided
	if st.Widened {
		r.flags |= recWidened
	}
	if st.IDKnown {
		r.flags |= recIDKnown
	}
	// worst counts the findings the capture added (an inference, the
	// tables) as well as the decoding's: a held message is decoded again
	// after the inference note was added to it.
	r.worst = 0
	for _, f := range d.Findings {
		r.worst = max(r.worst, uint8(f.Severity)+1)
	}
	if r.flags&recExtra != 0 {
		for _, f := range c.extra[i] {
			r.worst = max(r.worst, uint8(f.Severity)+1)
		}
	}
}

// tentative decodes a held message in the connection's current state, so
// that it can be shown before the inference settles.
func (c *Index) tentative(cn *connection, i int32, msg []byte) {
	dir := c.rec(i).dir
	st := cn.state(dir)
	d := c.decodeRec(i, dir, st, msg)
	c.setDecoded(i, st, d)
	if cn.idPending(dir, d) {
		c.rec(i).flags |= recIDUndecided
	}
}

// decide infers the enum width of an undecided direction from its held
// messages (unturned.WidthInference: each is decoded under both readings,
// and the more plausible wins, vanilla on a tie; wire.md 4.2, issue 3 item
// 4).
func (c *Index) decide(cn *connection, dir dissect.Dir) {
	x := unturned.NewWidthInference(dir, cn.idBits, cn.idKnown)
	first := int32(-1)
	for _, i := range cn.held {
		if c.rec(i).dir != dir {
			continue
		}
		if first < 0 {
			first = i
		}
		x.Add(c.profile, c.feederBytes(i), &c.dec)
	}
	widened, _ := x.Verdict()
	cn.undecided[dir] = false
	cn.widened[dir] = widened
	cn.info.Widened[dir] = widened || cn.info.Widened[dir]
	// A widened direction means both sides run USMN (wire.md 4.2). If the
	// other direction's handshake was captured with its marker, that side
	// widens too: it must have seen this side's marker in the part of the
	// stream the capture missed.
	if other := 1 - dir; widened && !cn.undecided[other] && cn.marker[other] && !cn.widened[other] {
		cn.widened[other] = true
		cn.info.Widened[other] = true
	}
	cn.info.Inferred = true
	f := x.Finding()
	c.connFinding(cn, f)
	if first >= 0 {
		c.addExtra(first, f)
	}
}

// commitHeld commits the held messages in order once nothing is undecided.
func (c *Index) commitHeld(cn *connection) {
	if cn.undecided[dissect.C2S] || cn.undecided[dissect.S2C] || cn.idUndecided {
		return
	}
	c.flushHeld(cn)
}

// flushHeld commits the held messages in order.
func (c *Index) flushHeld(cn *connection) {
	held := cn.held
	cn.held = nil
	for _, i := range held {
		c.rec(i).flags &^= recHeld
		c.commit(cn, i, nil)
	}
}
