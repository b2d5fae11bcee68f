package session

import (
	"github.com/usmnscope/usmnscope/dissect"
)

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
// hosted message's Head comes without its record, only Hosted set: a
// ULinkRPC record a full index keeps slim would be decoded again (issue
// 28: for the hint, which only asks whether a message is ULinkRPC, that
// was 3.1 of the TUI's 10.5 CPU-s on a million frames). Head(n) and
// Message(n) give the record.
func (c *Index) Heads(dst []Head, from int) []Head {
	c.rlock()
	defer c.runlock()
	for n := max(from, 1); n <= c.nrec && len(dst) < cap(dst); n++ {
		dst = dst[:len(dst)+1]
		c.headOf(n, &dst[len(dst)-1], false)
	}
	return dst
}
