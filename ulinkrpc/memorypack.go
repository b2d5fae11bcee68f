package ulinkrpc

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
)

// MemoryPack wire constants (ulinkrpc.md 6; Cysharp/MemoryPack's "Binary
// wire format specification").
const (
	mpNullObject  = 255 // object header: null
	mpMaxMembers  = 249 // object header: 0..249 members
	mpCircularRef = 250 // circular-reference object: a reference id follows
	mpMaxDepth    = 32  // nesting this package follows before giving up
)

// MPObject is a version-tolerant MemoryPack object cut into its members
// without a schema: the header says how many members there are and each
// member's byte length, so the cut is exact.
type MPObject struct {
	Off     int // byte offset of the header in the input
	Len     int // header and members
	Null    bool
	Members []MPMember
}

// MPMember is one member's exact bytes and what they might be.
type MPMember struct {
	Index  int
	Off    int        // byte offset of the member's value in the input
	Len    int        // the value's bytes (its varint length is in the header)
	Guess  string     // the shapes the bytes fit, most likely first
	Value  any        // the first guess's value: uint64, int64, string, []byte or nil
	Object *MPObject  // when the bytes are themselves a version-tolerant object
	Items  []MPObject // when the bytes are a list of version-tolerant objects
	// shape is the guess Value holds (set when a cutter's noValue leaves
	// Value unset: MPWalk spells it from the bytes).
	shape mpShape
}

// varint reads MemoryPack's length varint: a signed first byte that is the
// value (-120..127) or a type code (-121..-128) for the integer after it.
func (r *reader) varint(field string) int64 {
	t := int8(r.u8(field))
	if r.err != nil || t >= -120 {
		return int64(t)
	}
	switch t {
	case -121:
		return int64(r.u8(field))
	case -122:
		return int64(int8(r.u8(field)))
	case -123:
		return int64(r.u16le(field))
	case -124:
		return int64(int16(r.u16le(field)))
	case -125:
		return int64(r.u32le(field))
	case -126:
		return int64(int32(r.u32le(field)))
	case -127:
		v := r.u64le(field)
		if v > math.MaxInt64 {
			return -1
		}
		return int64(v)
	default: // -128
		return int64(r.u64le(field))
	}
}

// CutMemoryPack cuts b, which must be exactly one version-tolerant object
// or a null object, into members (ulinkrpc.md 6, "Without a schema").
func CutMemoryPack(b []byte) (MPObject, error) { return cutMemoryPack(b, &cutter{}) }

// checkMemoryPack is CutMemoryPack's error alone: the object's header and
// member lengths read, its members not guessed at (rpc's compact records
// need only the payload's findings, issue 28).
func checkMemoryPack(b []byte) error {
	_, err := cutMemoryPack(b, &cutter{shapeOnly: true})
	return err
}

// cutMemoryPack is CutMemoryPack by a cutter of c's options.
func cutMemoryPack(b []byte, c *cutter) (MPObject, error) {
	r := &reader{b: b, layer: "memorypack"}
	c.budget = mpGuessBudget
	o := c.object(r, "", 0)
	if r.err == nil && r.left() > 0 {
		r.fail("", r.pos, ErrTrailing, "%d trailing bytes after the object", r.left())
	}
	return o, r.err
}

// mpGuessBudget bounds the nested objects tried while guessing: each
// member is tried as an object and as a list of objects, so unbounded
// guessing would be exponential in the nesting depth.
const mpGuessBudget = 4096

// cutter carries the guessing budget of one CutMemoryPack; shapeOnly
// skips the members (checkMemoryPack), noText the text of each guess
// (MPMember.Guess: a payload decoded for its JSON, which has none),
// noValue the values of the guesses a writer spells from the bytes
// (MPWalk). With arena, the members are taken from storage reused from
// one cut to the next (MPWalk, issue 28: a slice of members an object was
// a tenth of what `dump --json` allocated).
type cutter struct {
	budget    int
	shapeOnly bool
	noText    bool
	noValue   bool
	arena     *[]MPMember
	// lens holds the member lengths of the objects being read that have
	// more than a few (object).
	lens []int
}

// members is storage for n members, zeroed: the arena's next n, else new.
func (c *cutter) members(n int) []MPMember {
	if c.arena == nil {
		return make([]MPMember, n)
	}
	a := *c.arena
	// A grown arena leaves its old array to the members taken from it.
	a = slices.Grow(a, n)[:len(a)+n]
	*c.arena = a
	ms := a[len(a)-n : len(a) : len(a)]
	clear(ms)
	return ms
}

// object reads a version-tolerant object at r's position.
func (c *cutter) object(r *reader, path string, depth int) MPObject {
	c.budget--
	o := MPObject{Off: r.pos}
	// The field's name is made only when it fails (as the lengths').
	failed := r.err != nil
	n := int(r.u8(""))
	if r.err != nil {
		if e, ok := r.err.(*Error); ok && !failed && !r.quiet {
			e.Field = path + "member_count"
		}
		return o
	}
	switch {
	case n == mpNullObject:
		o.Null, o.Len = true, 1
		return o
	case n > mpMaxMembers:
		if r.failQuiet() {
			return o
		}
		r.fail(path+"member_count", o.Off, ErrFormat, "member count %d is not an object header (0..249, 255 null)", n)
		return o
	case depth >= mpMaxDepth:
		if r.failQuiet() {
			return o
		}
		r.fail(path+"member_count", o.Off, ErrTooLarge, "objects nested deeper than %d", mpMaxDepth)
		return o
	}
	if n > r.left() && r.failQuiet() {
		// A guess: n lengths of a byte or more cannot fit.
		return o
	}
	// Most objects have few members: their lengths stay on the stack;
	// more take the cutter's stack of them, given back on return.
	var small [16]int
	var lens []int
	if n <= len(small) {
		lens = small[:n]
	} else {
		at := len(c.lens)
		c.lens = slices.Grow(c.lens, n)[:at+n]
		lens = c.lens[at : at+n : at+n]
		defer func() { c.lens = c.lens[:at] }()
	}
	total := 0
	for i := range lens {
		at := r.pos
		// The field's name is made only when it fails.
		l := r.varint("")
		if r.err != nil {
			if e, ok := r.err.(*Error); ok && !r.quiet {
				e.Field = path + strconv.Itoa(i) + ".length"
			}
			return o
		}
		if l < 0 || l > int64(r.left()) {
			if r.failQuiet() {
				return o
			}
			r.fail(path+strconv.Itoa(i)+".length", at, ErrInvalidLength, "member length %d with %d bytes left", l, r.left())
			return o
		}
		lens[i] = int(l)
		total += int(l)
	}
	if total > r.left() {
		if r.failQuiet() {
			return o
		}
		r.err = &Error{Layer: r.layer, Field: path + "members", Offset: r.pos, Need: total, Have: r.left(), Err: ErrShort}
		return o
	}
	if c.shapeOnly {
		r.pos += total
		o.Len = r.pos - o.Off
		return o
	}
	if n > 0 {
		o.Members = c.members(n)
	}
	for i, l := range lens {
		// m stays valid while guessing takes more of the arena: a grown
		// arena leaves o.Members its old array.
		m := &o.Members[i]
		m.Index, m.Off, m.Len = i, r.pos, l
		c.guess(m, r.bytes("", l), m.Off, depth)
	}
	o.Len = r.pos - o.Off
	return o
}

// guess fills the shapes b (a member's bytes at offset off) fits: its
// value and nested objects, and unless c.noText the text that says so.
func (c *cutter) guess(m *MPMember, b []byte, off, depth int) {
	k := c.shape(m, b, off, depth)
	m.shape = k
	if !c.noText {
		m.Guess = guessText(k, m, b)
	}
}

// mpShape is what guess found a member's bytes to be.
type mpShape uint8

const (
	shapeString mpShape = iota
	shapeObject
	shapeObjects
	shapeStrings
	shapeList
	shapeAbsent
	shapeU8
	shapeI16
	shapeI32
	shapeI64
	shapeBytes
)

// shape sets m's value, object or items from b and says which shape b fits.
func (c *cutter) shape(m *MPMember, b []byte, off, depth int) mpShape {
	le32 := func(i int) int32 { return int32(binary.LittleEndian.Uint32(b[i:])) }
	if s, ok := mpStringShape(b); ok {
		if !c.noValue {
			m.Value = string(s)
		}
		return shapeString
	}
	if len(b) > 1 && b[0] <= mpMaxMembers && c.budget > 0 {
		r := &reader{b: b, layer: "memorypack", quiet: true}
		// Zero-length members are rare (gaps in the orders) and make small
		// integers look like objects (07 00…00: seven empty members).
		if o := c.object(r, "", depth+1); r.err == nil && r.left() == 0 && !hasEmpty(o) {
			// A copy is made only of an object that fits: taking o's
			// address would move every guess's to the heap.
			obj := new(MPObject)
			*obj = o
			shift(obj, off)
			m.Object = obj
			return shapeObject
		}
	}
	if len(b) > 4 {
		if count := le32(0); count > 0 && int(count) <= len(b)-4 {
			if items, ok := c.objects(b[4:], int(count), depth); ok {
				for i := range items {
					shift(&items[i], off+4)
				}
				m.Items = items
				return shapeObjects
			}
			if strs, ok := mpStrings(b[4:], int(count)); ok {
				m.Value = fmt.Sprintf("%q", strs)
				return shapeStrings
			}
			if (len(b)-4)%int(count) == 0 {
				if !c.noValue {
					m.Value = b
				}
				return shapeList
			}
		}
	}
	if c.noValue {
		switch len(b) {
		case 0:
			return shapeAbsent
		case 1:
			return shapeU8
		case 2:
			return shapeI16
		case 4:
			return shapeI32
		case 8:
			return shapeI64
		}
		return shapeBytes
	}
	switch len(b) {
	case 0:
		return shapeAbsent
	case 1:
		m.Value = uint64(b[0])
		return shapeU8
	case 2:
		m.Value = int64(int16(binary.LittleEndian.Uint16(b)))
		return shapeI16
	case 4:
		m.Value = int64(le32(0))
		return shapeI32
	case 8:
		m.Value = int64(binary.LittleEndian.Uint64(b))
		return shapeI64
	}
	m.Value = b
	return shapeBytes
}

// guessText is the text that says m, whose bytes are b, fits shape k.
func guessText(k mpShape, m *MPMember, b []byte) string {
	le32 := func(i int) int32 { return int32(binary.LittleEndian.Uint32(b[i:])) }
	switch k {
	case shapeString:
		return "string " + strconv.Quote(string(b[8:]))
	case shapeObject:
		return "object (" + dissect.Count(len(m.Object.Members), "member") + ")"
	case shapeObjects:
		return fmt.Sprintf("list of %d objects", le32(0))
	case shapeStrings:
		return fmt.Sprintf("list of %d strings %s", le32(0), m.Value)
	case shapeList:
		count := le32(0)
		return fmt.Sprintf("list (%d × %d bytes)", count, (len(b)-4)/int(count))
	case shapeAbsent:
		return "absent"
	case shapeU8:
		t := fmt.Sprintf("bool/u8 %d", b[0])
		if b[0] == mpNullObject {
			t += " / null object"
		}
		return t
	case shapeI16:
		v := int16(binary.LittleEndian.Uint16(b))
		return fmt.Sprintf("i16 %d / u16 %d", v, uint16(v))
	case shapeI32:
		v := le32(0)
		t := fmt.Sprintf("i32 %d / f32 %g", v, math.Float32frombits(uint32(v)))
		switch v {
		case 0:
			t += " / empty string or list"
		case -1:
			t += " / null string or list"
		}
		return t
	case shapeI64:
		v := int64(binary.LittleEndian.Uint64(b))
		return fmt.Sprintf("i64 %d / f64 %g", v, math.Float64frombits(uint64(v)))
	}
	return dissect.Count(len(b), "byte")
}

// objects cuts b into exactly count version-tolerant objects.
func (c *cutter) objects(b []byte, count, depth int) ([]MPObject, bool) {
	if count > len(b) || c.budget <= 0 {
		return nil, false
	}
	r := &reader{b: b, layer: "memorypack", quiet: true}
	var items []MPObject
	for range count {
		o := c.object(r, "", depth+1)
		if r.err != nil {
			return nil, false
		}
		items = append(items, o)
	}
	return items, r.left() == 0
}

// shift moves an object's offsets by d, its nested objects' too.
func shift(o *MPObject, d int) {
	o.Off += d
	for i := range o.Members {
		m := &o.Members[i]
		m.Off += d
		if m.Object != nil {
			shift(m.Object, d)
		}
		for j := range m.Items {
			shift(&m.Items[j], d)
		}
	}
}

func hasEmpty(o MPObject) bool {
	for _, m := range o.Members {
		if m.Len == 0 {
			return true
		}
	}
	return false
}

// mpStrings cuts b into exactly count UTF-8 MemoryPack strings (empty and
// null ones included).
func mpStrings(b []byte, count int) ([]string, bool) {
	var out []string
	for range count {
		if len(b) < 4 {
			return nil, false
		}
		n := int32(binary.LittleEndian.Uint32(b))
		if n == 0 || n == -1 {
			out, b = append(out, ""), b[4:]
			continue
		}
		if n > -2 || len(b) < 8 || int(^n) > len(b)-8 {
			return nil, false
		}
		s, ok := mpStringShape(b[:8+int(^n)])
		if !ok {
			return nil, false
		}
		out, b = append(out, string(s)), b[8+int(^n):]
	}
	return out, len(b) == 0
}

// mpStringShape reports whether b is exactly one non-empty UTF-8 MemoryPack
// string: i32 ~byteCount (≤ −2), i32 UTF-16 length, the bytes; it gives
// the string's bytes, aliasing b.
func mpStringShape(b []byte) ([]byte, bool) {
	if len(b) < 8 {
		return nil, false
	}
	n := int32(binary.LittleEndian.Uint32(b))
	if n > -2 || int(^n) != len(b)-8 || !utf8.Valid(b[8:]) {
		return nil, false
	}
	return b[8:], true
}

// Fields lists o's members as fields named prefix.<index> (nested
// prefix.<index>.<inner>, list items prefix.<index>[i]), base being the
// input's offset in the envelope.
func (o *MPObject) Fields(prefix string, base int) []dissect.Field {
	var fs []dissect.Field
	if len(o.Members) > 0 {
		fs = make([]dissect.Field, 0, len(o.Members))
	}
	var walk func(o *MPObject, prefix string)
	walk = func(o *MPObject, prefix string) {
		for _, m := range o.Members {
			name := prefix + "." + strconv.Itoa(m.Index)
			fs = append(fs, dissect.Field{Name: name, Bit: 8 * (base + m.Off), Bits: 8 * m.Len, Value: m.Value})
			if m.Object != nil {
				walk(m.Object, name)
			}
			for i := range m.Items {
				item := name + "[" + strconv.Itoa(i) + "]"
				fs = append(fs, dissect.Field{Name: item, Bit: 8 * (base + m.Items[i].Off), Bits: 8 * m.Items[i].Len})
				walk(&m.Items[i], item)
			}
		}
	}
	walk(o, prefix)
	return fs
}
