package session

// emitKept is hostedKept of record i as emit reads it before handing it
// out, kept in the Stream until emit hands out the next (emitting): the
// buildHostedInto of its Settled then asks its connection no more
// whether it still waits on it (decode.Conn.Waiting), nor looks it up
// again (issue 28: GlanceOf twice and Waiting three or four times a
// record were each 60 to 200 instructions of the feeding goroutine of
// `dump --json`).
func (c *Index) emitKept(i int32) *hostedKept {
	s := c.stream
	s.keptAt = i
	if c.rec(i).flags&recHosted == 0 {
		s.kept = hostedKept{}
	} else {
		s.kept = c.keptHosted(i)
	}
	return &s.kept
}

// emitting is emit's hostedKept of record i while emit hands it out,
// or nil.
func (c *Index) emitting(i int32) *hostedKept {
	if s := c.stream; s != nil && s.keptAt == i && s.kept.has {
		return &s.kept
	}
	return nil
}
