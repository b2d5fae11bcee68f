package session

import "github.com/usmnscope/usmnscope/dissect"

// Quiet says the input went quiet (issue 24 point 3): a source that may
// wait (standard input, live) has brought nothing for a while, and what
// has arrived is to be shown now rather than when more comes, the way a
// file's end shows it but without ending anything: every direction that
// is resynchronising stops waiting (Idle); a direction whose enum width or
// Serverside_ID_Bit_Count is still being inferred is decided on the
// messages it has (wire.md 4.6: as at the end of a capture); and the askers
// still unanswered (a PingRequest, a RequestServerListenerId, a ULinkRPC
// Request or KeepAlivePing) are given up as past the pairing bound are
// (outputs.md "Pairing", pairHold): handed out without a pair, and an
// answer that comes later pairs with nothing, so that both messages agree.
// A Stream then hands out everything final and calls its Quiet. Input may
// go on after it.
func (c *Index) Quiet() {
	c.Idle()
	c.lock()
	defer c.unlock()
	for _, cn := range c.conns {
		if len(cn.held) > 0 || cn.undecided[0] || cn.undecided[1] || cn.idUndecided {
			c.settle(cn)
		}
		cn.pairs.giveUp()
	}
	c.hostedAsks = nil
	if c.stream != nil {
		c.stream.pre = preDecoded{}
		c.streamed(-1)
		if c.stream.Quiet != nil {
			c.stream.Quiet()
		}
	}
}

// giveUp forgets every unanswered asker, as expire does past pairHold:
// none can be answered any more, so a Stream holds none (pairFinal).
func (ps *pairState) giveUp() {
	if ps == nil {
		return
	}
	if ps.head < len(ps.order) {
		ps.quietTo = max(ps.quietTo, ps.order[len(ps.order)-1].n)
	}
	for ps.head < len(ps.order) {
		a := ps.order[ps.head]
		if ps.open(a) {
			if a.ping {
				ps.pings[a.key].Oldest(dissect.Dir(a.key))
			} else {
				ps.reqs.Oldest(a.key)
			}
		}
		ps.head++
	}
	ps.compact()
}
