package session

// Quiet says the input went quiet (issue 24 point 3): a source that may
// wait (standard input, live) has brought nothing for a while, and what
// has arrived is to be shown now rather than when more comes, the way a
// file's end shows it but without ending anything: every direction that
// is resynchronising stops waiting (Idle); a direction whose enum width or
// Serverside_ID_Bit_Count is still being inferred is decided on the
// messages it has (wire.md 4.6: as at the end of a capture); and the askers
// still unanswered (a PingRequest, a RequestServerListenerId, a ULinkRPC
// Request or KeepAlivePing) are given up as past the pairing bound are
// (outputs.md "Pairing", pair.Hold): handed out without a pair, and an
// answer that comes later pairs with nothing, so that both messages agree.
// A Stream then hands out everything final and calls its Quiet. Input may
// go on after it.
func (c *Index) Quiet() {
	c.Idle()
	c.lock()
	defer c.unlock()
	for _, cn := range c.conns {
		if cn.native != nil {
			cn.native.Quiet()
		}
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
