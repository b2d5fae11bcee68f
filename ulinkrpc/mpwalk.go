package ulinkrpc

import (
	"encoding/binary"
	"strconv"

	"github.com/usmnscope/usmnscope/dissect"
)

// MPWalk lists the members of a MemoryPack payload cut without a schema,
// as MPObject.Fields lists them (same names, spans and order), into
// buffers a caller reuses from one payload to the next, with no value
// made: a writer of `dump --json` spells each value from its bytes (rpc's
// lazy records, issue 28: the members, their names and their boxed values
// were most of what the JSON encoder allocated).
type MPWalk struct {
	Entries []MPEntry
	Names   []byte
	b       []byte
	arena   []MPMember
	lens    []int
	// notes hold the findings of the payload cut last (PayloadConfig.Cut).
	notes []dissect.Finding
}

// MPEntry is one field MPWalk lists: its name in the walk's Names, the
// byte span of its value in the walked payload, and the member it is, or
// nil for an item of a list of objects (a field with no value).
type MPEntry struct {
	NameFrom, NameTo int32
	Off, Len         int
	Member           *MPMember
}

// MPKind says how a writer spells an MPEntry's value (MPWalk.Kind).
type MPKind uint8

const (
	// MPNull has no value: an object, a list of objects, a list item, an
	// absent member.
	MPNull MPKind = iota
	// MPText is a string: the bytes are its UTF-8 text, valid.
	MPText
	// MPInt is an integer (MPWalk.Int): a byte, or two, four or eight
	// little-endian bytes of a signed one.
	MPInt
	// MPBytes is a block of bytes, written as hex.
	MPBytes
	// MPOther is spelled from MPWalk.Value (a list of strings).
	MPOther
)

// Cut cuts b, which must be exactly one version-tolerant object or a null
// object, as CutMemoryPack does (the same error), and lists its members
// under the name prefix; the buffers of an earlier cut are reused, and
// the entries and members of that cut are overwritten.
func (w *MPWalk) Cut(b []byte, prefix string) error {
	w.Entries, w.Names, w.b, w.arena = w.Entries[:0], w.Names[:0], b, w.arena[:0]
	c := cutter{noText: true, noValue: true, arena: &w.arena, lens: w.lens[:0]}
	o, err := cutMemoryPack(b, &c)
	w.lens = c.lens
	if err != nil {
		return err
	}
	w.Names = append(w.Names, prefix...)
	w.list(&o, 0, int32(len(w.Names)))
	return nil
}

// list lists o's members named under Names[nf:nt], as MPObject.Fields
// walks them.
func (w *MPWalk) list(o *MPObject, nf, nt int32) {
	for i := range o.Members {
		m := &o.Members[i]
		from := int32(len(w.Names))
		w.Names = append(w.Names, w.Names[nf:nt]...)
		w.Names = append(w.Names, '.')
		w.Names = strconv.AppendInt(w.Names, int64(m.Index), 10)
		to := int32(len(w.Names))
		w.Entries = append(w.Entries, MPEntry{NameFrom: from, NameTo: to, Off: m.Off, Len: m.Len, Member: m})
		if m.Object != nil {
			w.list(m.Object, from, to)
		}
		for j := range m.Items {
			it := &m.Items[j]
			f := int32(len(w.Names))
			w.Names = append(w.Names, w.Names[from:to]...)
			w.Names = append(w.Names, '[')
			w.Names = strconv.AppendInt(w.Names, int64(j), 10)
			w.Names = append(w.Names, ']')
			t := int32(len(w.Names))
			w.Entries = append(w.Entries, MPEntry{NameFrom: f, NameTo: t, Off: it.Off, Len: it.Len})
			w.list(it, f, t)
		}
	}
}

// Name is e's dotted name (payload.0.1, payload.2[0]); it aliases w.Names.
func (w *MPWalk) Name(e *MPEntry) []byte { return w.Names[e.NameFrom:e.NameTo] }

// Kind says how e's value is spelled, with the bytes that spell it: a
// string's text, an integer's bytes, a block's bytes (aliasing the
// walked payload); none for MPNull and MPOther.
func (w *MPWalk) Kind(e *MPEntry) (MPKind, []byte) {
	m := e.Member
	if m == nil {
		return MPNull, nil
	}
	b := w.b[e.Off : e.Off+e.Len]
	switch m.shape {
	case shapeString:
		return MPText, b[8:]
	case shapeU8, shapeI16, shapeI32, shapeI64:
		return MPInt, b
	case shapeList, shapeBytes:
		return MPBytes, b
	case shapeStrings:
		return MPOther, nil
	}
	return MPNull, nil
}

// Int is the value of an MPInt entry's bytes b (Kind): one byte unsigned,
// else little-endian signed.
func (w *MPWalk) Int(b []byte) int64 {
	switch len(b) {
	case 1:
		return int64(b[0])
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case 8:
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

// Value is e's value as the field MPObject.Fields lists holds it: nil,
// string, uint64 (one byte), int64 or []byte (aliasing the payload).
func (w *MPWalk) Value(e *MPEntry) any {
	k, b := w.Kind(e)
	switch k {
	case MPText:
		return string(b)
	case MPInt:
		if len(b) == 1 {
			return uint64(b[0])
		}
		return w.Int(b)
	case MPBytes:
		return b
	case MPOther:
		return e.Member.Value
	}
	return nil
}

// Field is e as the field MPObject.Fields lists, base being the walked
// payload's byte offset in the envelope.
func (w *MPWalk) Field(e *MPEntry, base int) dissect.Field {
	return dissect.Field{Name: string(w.Name(e)), Bit: 8 * (base + e.Off), Bits: 8 * e.Len, Value: w.Value(e)}
}
