package session

import (
	"time"
	"unsafe"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/jsontime"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/unturned"
)

// recordCache holds what an encoder of many `dump --json` records
// (JSONBatch.AppendJSON) spells once and copies after: the time's
// seconds, the "dir" and "msg" keys with their values, and the opening of
// each field object with its name. Records of a capture share few of
// each (issue 28: escaping the same names again was a tenth of the
// encoding). The zero value is ready; it is one goroutine's.
type recordCache struct {
	time  jsontime.Cache      // "time" and "time_ns" (AppendBoth)
	dirs  [4][]byte           // `,"dir":"c2s"` by Dir
	kinds [256][]byte         // `},"msg":"Name"` by Kind
	names [nameSlots]struct { // by the name's address
		name string
		text []byte // `{"name":"…","bit":`
	}
	memo  [1 << memoBits]fieldsMemo
	types [typeSlots]typeEntry // by the type's address
}

// typeEntry is what recordCache keeps of a listener type.
type typeEntry struct {
	typ, esc string // esc: termsafe.Escape(typ)
	plain    bool   // esc is JSON-plain (termsafe.JSONPlain)
	// json is the listener object's "type" value as appendJSONTail
	// writes it (with "type_hex" for a type that is not UTF-8).
	json []byte
}

// fieldsMemo is the "fields" key of the record of a short message's
// bytes, decoded in a state in a direction with a profile, its "summary"
// key when made from that decoding alone (summaryLater), and its keys
// from "dir" to "msg": the same for the same four (unturned.Decode is a
// function of them).
type fieldsMemo struct {
	p     *unturned.Profile
	dir   dissect.Dir
	st    unturned.State
	n     int       // the bytes' count, up to memoMax
	words [2]uint64 // the bytes, little-endian
	text  []byte    // `,"fields":[…]`
	sum   []byte    // `,"summary":"…"`, or empty for none
	ok    bool      // text is filled
	sumOK bool      // sum is
	// head is the record from "dir" to "msg" (appendJSONKind) with enum
	// and kind, the decoding's, when kindOK.
	head   []byte
	enum   unturned.Enum
	kind   unturned.Kind
	kindOK bool
}

// memoBits sizes recordCache's fields memo; memoMax is the longest
// message it keeps (most of a game's messages are a few bytes: pings,
// invokes of few payload bits).
const (
	memoBits = 9
	memoMax  = 16
)

// fieldsOf returns the memo entry of m's bytes (m.fieldsLater, decoded
// with p): its text when it holds them, or emptied for the caller to fill
// from m's fields; nil for a message too long to keep.
func (rc *recordCache) fieldsOf(p *unturned.Profile, m *Message) *fieldsMemo {
	if len(m.Data) > memoMax {
		return nil
	}
	var w [2]uint64
	for i, c := range m.Data {
		w[i/8] |= uint64(c) << (8 * (i % 8))
	}
	h := (w[0] ^ w[1]*0xff51afd7ed558ccd ^ uint64(len(m.Data))<<59 ^ uint64(m.Dir)<<62) * 0x9e3779b97f4a7c15
	e := &rc.memo[h>>(64-memoBits)]
	if e.ok && e.words == w && e.n == len(m.Data) && e.dir == m.Dir && e.st == m.state && e.p == p {
		return e
	}
	e.p, e.dir, e.st, e.n, e.words, e.ok, e.sumOK, e.kindOK = p, m.Dir, m.state, len(m.Data), w, false, false, false
	return e
}

// typeSlots is how many listener types recordCache keeps, by address.
const (
	typeBits  = 6
	typeSlots = 1 << typeBits
)

// listenerType returns typ as termsafe.Escape spells it, and whether a
// JSON string holds that unchanged, as appendName finds its names.
func (rc *recordCache) listenerType(typ string) (string, bool) {
	e := rc.typeOf(typ)
	return e.esc, e.plain
}

// typeOf returns the entry of typ, made when it is not kept.
func (rc *recordCache) typeOf(typ string) *typeEntry {
	p := uintptr(unsafe.Pointer(unsafe.StringData(typ)))
	e := &rc.types[uint64(p)*0x9e3779b97f4a7c15>>(64-typeBits)]
	if e.json == nil || e.typ != typ {
		e.typ, e.esc = typ, termsafe.Escape(typ)
		e.plain = termsafe.JSONPlain([]byte(e.esc))
		e.json = termsafe.AppendHexIfInvalid(termsafe.AppendJSONString(e.json[:0], typ), "type_hex", typ)
	}
	return e
}

// nameSlots is how many field names recordCache keeps, by address (a
// multiplicative hash of it): more than the names of a vanilla or USMN
// message.
const (
	nameBits  = 7
	nameSlots = 1 << nameBits
)

// appendTime appends the record's "time" and "time_ns" keys as
// appendJSONTime does without a cache: jsontime.Cache keeps the text of
// the second, and time_ns takes its nine nanosecond digits from it.
func (rc *recordCache) appendTime(dst []byte, t time.Time) []byte {
	return rc.time.AppendBoth(append(dst, `,"time":"`...), t)
}

// appendDir appends `,"dir":` and d.
func (rc *recordCache) appendDir(dst []byte, d dissect.Dir) []byte {
	if int(d) >= len(rc.dirs) {
		return termsafe.AppendJSONString(append(dst, `,"dir":`...), d.String())
	}
	if rc.dirs[d] == nil {
		rc.dirs[d] = termsafe.AppendJSONString([]byte(`,"dir":`), d.String())
	}
	return append(dst, rc.dirs[d]...)
}

// appendKind appends `},"msg":` and k's name (a record of an Unturned
// message: the enum object closes before it).
func (rc *recordCache) appendKind(dst []byte, k unturned.Kind) []byte {
	if rc.kinds[k] == nil {
		rc.kinds[k] = termsafe.AppendJSONString([]byte(`},"msg":`), k.String())
	}
	return append(dst, rc.kinds[k]...)
}

// appendName appends a field object's opening, `{"name":` and name, and
// `,"bit":`. A slot is found by the name's address and holds the name,
// which it is compared with (at once when it is the same string, as the
// decoders' names are): equal names give the same text whatever their
// addresses.
func (rc *recordCache) appendName(dst []byte, name string) []byte {
	p := uintptr(unsafe.Pointer(unsafe.StringData(name)))
	e := &rc.names[uint64(p)*0x9e3779b97f4a7c15>>(64-nameBits)]
	if e.text == nil || e.name != name {
		e.name = name
		e.text = termsafe.AppendJSONString(append(e.text[:0], `{"name":`...), name)
		e.text = append(e.text, `,"bit":`...)
	}
	return append(dst, e.text...)
}
