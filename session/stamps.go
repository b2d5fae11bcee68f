package session

import "github.com/usmnscope/usmnscope/dissect"

// MessageStamp is a message's connection, as its position in Connections
// (ConnAt), and its time (UnixNano): what Stamp says, without the 56-byte
// connection key.
type MessageStamp struct {
	Conn uint32
	Time int64
}

// Stamps appends the stamps of messages from, from+1, … to dst, as many
// as dst has room for (cap(dst)-len(dst)) and at most up to Len, under
// one read lock: a reader that indexes every message while the capture
// loads (the TUI's per-connection lists and sparklines) takes the lock
// once a batch, not once a message (issue 18).
func (c *Index) Stamps(dst []MessageStamp, from int) []MessageStamp {
	c.rlock()
	defer c.runlock()
	from = max(from, 1)
	for n := from; n <= c.nrec && len(dst) < cap(dst); n++ {
		i := int32(n - 1)
		_, t := c.where(i)
		dst = append(dst, MessageStamp{Conn: c.rec(i).conn, Time: t})
	}
	return dst
}

// ConnAt returns the connection at position i of Connections.
func (c *Index) ConnAt(i int) (dissect.Conn, bool) {
	c.rlock()
	defer c.runlock()
	if i < 0 || i >= len(c.conns) {
		return dissect.Conn{}, false
	}
	return c.conns[i].info.Conn, true
}

// Heads appends the Heads of messages from, from+1, … to dst, as many as
// dst has room for and at most up to Len, under one read lock (the TUI's
// profile hint tallies a million of them before it says loaded). A
// ULinkRPC record a full index keeps compact comes as kept, not decoded
// again (issue 28: decoding every one again was a sixth of the TUI's
// load): its Rec says what it is, its ids, pairing and findings, but
// Line, Tree and payload values need Head(n) or Message(n).
func (c *Index) Heads(dst []Head, from int) []Head {
	c.rlock()
	defer c.runlock()
	for n := max(from, 1); n <= c.nrec && len(dst) < cap(dst); n++ {
		dst = dst[:len(dst)+1]
		c.headOf(n, &dst[len(dst)-1], false)
	}
	return dst
}
