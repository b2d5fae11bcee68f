package session

import (
	"unsafe"

	"github.com/usmnscope/usmnscope/dissect"
)

// What the host keeps of the listeners its records name (the listener-ID
// tables themselves are the protocol's: unturned/track keeps them per
// connection, unturned.go asks them): the capture's one copy of each
// listener type name and the (type, version) pairs records point at, and
// the findings the capture adds to a message beside its decoding's (the
// tables', the inferences').

// addExtra adds findings to message i and counts them in its worst
// severity.
func (c *Index) addExtra(i int32, fs ...dissect.Finding) {
	if len(fs) == 0 {
		return
	}
	c.extra[i] = append(c.extra[i], fs...)
	r := c.rec(i)
	r.flags |= recExtra
	for _, f := range fs {
		if uint8(f.Severity)+1 > r.worst {
			r.worst = uint8(f.Severity) + 1
		}
	}
}

// intern returns the capture's one copy of a type name.
func (c *Index) intern(b []byte) string {
	if i, ok := c.typeIdx[string(b)]; ok {
		return c.types[i]
	}
	s := string(b)
	c.typeIdx[s] = uint32(len(c.types))
	c.types = append(c.types, s)
	return s
}

// typeVer is a listener type (an index into Index.types) and version.
type typeVer struct{ typ, version uint32 }

// tvSeen is a type and version and its index in Index.typeVers.
type tvSeen struct {
	typ     string
	version uint32
	k       uint32
}

// typeVerOf returns the index in c.typeVers of typ (an interned name) and
// version, adding the pair when it is new. A message's type is nearly
// always one seen a moment ago, with the same interned string: the cache,
// keyed by where that string's bytes are (names such as Load.Listener0 to
// Load.Listener7 differ only inside), answers it with a pointer-equal
// compare, not two map lookups (issue 26). A miss only costs the lookups.
func (c *Index) typeVerOf(typ string, version uint32) uint32 {
	h := uint32(uintptr(unsafe.Pointer(unsafe.StringData(typ)))>>3) + version*13
	e := &c.tvRecent[(h^h>>6)&63]
	if e.typ == typ && e.version == version && e.typ != "" {
		return e.k
	}
	tv := typeVer{typ: c.typeIdx[typ], version: version}
	k, ok := c.tvIdx[tv]
	if !ok {
		k = uint32(len(c.typeVers))
		c.tvIdx[tv] = k
		c.typeVers = append(c.typeVers, tv)
	}
	*e = tvSeen{typ: typ, version: version, k: k}
	return k
}

// listenerType returns the listener type and version r records, if any.
func (c *Index) listenerType(r *record) (typ string, version uint32, ok bool) {
	if r.tv == 0 {
		return "", 0, false
	}
	tv := c.typeVers[r.tv-1]
	return c.types[tv.typ], tv.version, true
}

// lookupType is intern for readers: every type name a committed message
// carries was interned when it was committed, so a replay finds it.
func (c *Index) lookupType(b []byte) string {
	if i, ok := c.typeIdx[string(b)]; ok {
		return c.types[i]
	}
	return string(b)
}

// Tables returns the listener-ID tables of conn as of message asOf (the
// state after that message of the capture was applied); asOf ≤ 0 means the
// end of what was read. Messages held for an inference are not in the
// tables until it settles. It returns nil for an unknown connection.
func (c *Index) Tables(conn dissect.Conn, asOf int) *Tables {
	c.mu.RLock()
	defer c.mu.RUnlock()
	cn, ok := c.lookup(conn)
	if !ok {
		return nil
	}
	return c.tablesOf(cn, asOf)
}
