package session

import (
	"strconv"
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
	tc jsontime.Cache
	// sec is the time in seconds that secText spells (time_ns).
	sec     int64
	secText []byte
	dirs    [4][]byte           // `,"dir":"c2s"` by Dir
	kinds   [256][]byte         // `},"msg":"Name"` by Kind
	names   [nameSlots]struct { // by the name's address
		name string
		text []byte // `{"name":"…","bit":`
	}
}

// nameSlots is how many field names recordCache keeps, by address (a
// multiplicative hash of it): more than the names of a vanilla or USMN
// message.
const (
	nameBits  = 7
	nameSlots = 1 << nameBits
)

// maxNSSec is the last second whose nanoseconds since 1970 an int64
// holds (with any nanoseconds of that second).
const maxNSSec = (1<<63-1)/1_000_000_000 - 1

// appendTime appends the record's "time" and "time_ns" keys as
// appendJSONTime does without a cache: the nanoseconds are the digits the
// time text ends in, after the seconds, which a batch's records share.
func (rc *recordCache) appendTime(dst []byte, t time.Time) []byte {
	dst = append(dst, `,"time":"`...)
	dst = rc.tc.Append(dst, t)
	dst = append(dst, '"')
	sec := t.Unix()
	if sec < 1 || sec > maxNSSec {
		return jsontime.AppendNS(dst, t)
	}
	if rc.secText == nil || sec != rc.sec {
		rc.sec, rc.secText = sec, strconv.AppendInt(rc.secText[:0], sec, 10)
	}
	// `…NNNNNNNNNZ"`: the time text's nanoseconds, nine digits.
	nanos := dst[len(dst)-11 : len(dst)-2]
	dst = append(dst, `,"time_ns":`...)
	dst = append(dst, rc.secText...)
	return append(dst, nanos...)
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
