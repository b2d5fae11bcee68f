package views

import (
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/views/messages"
)

// maxSeconds bounds a connection's sparkline buckets, so a capture with a
// hostile timestamp jump cannot make the index allocate without limit.
const maxSeconds = 1 << 16

// index groups message numbers by connection and counts messages per
// second, built incrementally: each step reads a bounded number of new
// messages, so opening a huge capture never waits for a full pass.
type index struct {
	scanned int
	byConn  map[dissect.Conn]messages.Numbers
	spark   map[dissect.Conn][]int
	first   map[dissect.Conn]int64 // unix second of the connection's first message
}

func newIndex() *index {
	return &index{byConn: map[dissect.Conn]messages.Numbers{}, spark: map[dissect.Conn][]int{}, first: map[dissect.Conn]int64{}}
}

// step indexes up to budget messages of the n known and reports whether
// more remain.
func (x *index) step(src Source, n, budget int) bool {
	for ; x.scanned < n && budget > 0; budget-- {
		x.scanned++
		conn, t, ok := src.Stamp(x.scanned)
		if !ok {
			continue
		}
		x.byConn[conn] = append(x.byConn[conn], int32(x.scanned))
		sec := t.Unix()
		f, ok := x.first[conn]
		if !ok {
			x.first[conn], f = sec, sec
		}
		b := int(min(max(sec-f, 0), maxSeconds-1))
		s := x.spark[conn]
		for len(s) <= b {
			s = append(s, 0)
		}
		s[b]++
		x.spark[conn] = s
	}
	return x.scanned < n
}
