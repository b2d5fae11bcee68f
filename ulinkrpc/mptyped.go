package ulinkrpc

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
)

// DTO describes a MemoryPack type by name, as schema.md section 4's
// [[ulinkrpc.type]] or a [MemoryPackable] class of the contracts does.
type DTO struct {
	Name            string
	VersionTolerant bool // GenerateType.VersionTolerant: per-member byte lengths
	Members         []DTOMember
}

// DTOMember is one member: its MemoryPackOrder, name and type. Types are
// schema.md's: bool byte sbyte short ushort int uint long ulong float double
// string, list:T (also written T[] or List<T>), or another DTO's name.
type DTOMember struct {
	Order int
	Name  string
	Type  string
}

// DTOs finds DTO descriptions by name.
type DTOs map[string]*DTO

// mpFixed are the unmanaged types: their sizes and how to show them.
var mpFixed = map[string]int{
	"bool": 1, "byte": 1, "sbyte": 1, "short": 2, "ushort": 2, "int": 4, "uint": 4,
	"long": 8, "ulong": 8, "float": 4, "double": 8,
}

// listElem returns T for list:T, T[] or List<T>.
func listElem(t string) (string, bool) {
	switch {
	case strings.HasPrefix(t, "list:"):
		return t[5:], true
	case strings.HasSuffix(t, "[]"):
		return t[:len(t)-2], true
	case strings.HasPrefix(t, "List<") && strings.HasSuffix(t, ">"):
		return t[5 : len(t)-1], true
	}
	return "", false
}

// DecodeMemoryPack reads b as exactly one dto, naming and typing its
// members (ulinkrpc.md 6, "With a schema"). It returns the value (a
// map[string]any of member names; nil for a null object), the fields named
// prefix.<Member>, prefix.<Member>.<Inner>, prefix.<Member>[i] with byte
// spans offset by base, and findings; the error is the first failure.
func DecodeMemoryPack(b []byte, base int, dto *DTO, types DTOs, prefix string) (any, []dissect.Field, []dissect.Finding, error) {
	d := mpDecoder{r: newReader("memorypack", b, base), types: types}
	v := d.object(dto, prefix, 0)
	if d.r.err == nil && d.r.left() > 0 {
		d.r.fail(prefix, d.r.pos, ErrTrailing, "%d trailing bytes after %s", d.r.left(), dto.Name)
	}
	if d.r.err != nil {
		d.findings = append(d.findings, finding(d.r.err, base))
	}
	return v, d.fields, d.findings, d.r.err
}

type mpDecoder struct {
	r        *reader
	types    DTOs
	fields   []dissect.Field
	findings []dissect.Finding
}

func (d *mpDecoder) add(name string, from int, v any) {
	if d.r.err == nil {
		d.fields = append(d.fields, dissect.Field{Name: name, Bit: 8 * (d.r.base + from), Bits: 8 * (d.r.pos - from), Value: v})
	}
}

func (d *mpDecoder) object(dto *DTO, path string, depth int) any {
	r := d.r
	at := r.pos
	n := int(r.u8(path))
	if r.err != nil {
		return nil
	}
	if n == mpNullObject {
		return nil
	}
	if n > mpMaxMembers {
		r.fail(path, at, ErrFormat, "%s: member count %d is not an object header (0..249, 255 null)", dto.Name, n)
		return nil
	}
	if depth >= mpMaxDepth {
		r.fail(path, at, ErrTooLarge, "objects nested deeper than %d", mpMaxDepth)
		return nil
	}
	members := slices.Clone(dto.Members)
	slices.SortStableFunc(members, func(a, b DTOMember) int { return a.Order - b.Order })
	byOrder := func(i int) *DTOMember {
		for k := range members {
			if members[k].Order == i {
				return &members[k]
			}
		}
		return nil
	}
	out := make(map[string]any, n)
	if !dto.VersionTolerant {
		// A plain object writes its members in order, no lengths: the
		// count must cover what the schema knows.
		if n != len(members) {
			d.findings = append(d.findings, warn(dissect.Protocol, 8*(r.base+at), "memorypack: %s: %d members on the wire, %d in the schema", dto.Name, n, len(members)))
		}
		for i := 0; i < n && i < len(members) && r.err == nil; i++ {
			m := members[i]
			out[m.Name] = d.value(m.Type, path+"."+m.Name, depth)
		}
		return out
	}
	lens := make([]int, n)
	for i := range lens {
		field := path + "." + strconv.Itoa(i) + ".length"
		from := r.pos
		l := r.varint(field)
		if r.err == nil && (l < 0 || l > int64(r.left())) {
			r.fail(field, from, ErrInvalidLength, "member length %d with %d bytes left", l, r.left())
		}
		if r.err != nil {
			return out
		}
		lens[i] = int(l)
	}
	for i, l := range lens {
		m := byOrder(i)
		name := path + "." + strconv.Itoa(i)
		if m != nil {
			name = path + "." + m.Name
		}
		from := r.pos
		if !r.need(name, l) {
			return out
		}
		if m == nil {
			d.findings = append(d.findings, warn(dissect.Undecoded, 8*(r.base+from), "memorypack: %s: member %d (%d bytes) not in the schema", dto.Name, i, l))
			d.add(name, from, r.bytes(name, l))
			continue
		}
		if l == 0 {
			out[m.Name] = nil // a gap in the orders: written with length 0
			continue
		}
		// The member is read within its own length, so a schema that is
		// wrong about one member does not shift the next.
		whole := r.b
		r.b = r.b[:r.pos+l]
		out[m.Name] = d.value(m.Type, name, depth)
		if r.err == nil && r.pos < from+l {
			d.findings = append(d.findings, warn(dissect.Protocol, 8*(r.base+r.pos), "memorypack: %s: %d bytes left in member %s of type %s", dto.Name, from+l-r.pos, m.Name, m.Type))
			r.pos = from + l
		}
		r.b = whole
		if r.err != nil {
			return out
		}
	}
	return out
}

// value reads one value of type t and records it as a field.
func (d *mpDecoder) value(t, name string, depth int) any {
	r := d.r
	from := r.pos
	if size, ok := mpFixed[t]; ok {
		b := r.bytes(name, size)
		if b == nil {
			return nil
		}
		v := fixedValue(t, b)
		d.add(name, from, v)
		return v
	}
	if t == "string" {
		v := d.str(name)
		d.add(name, from, v)
		return v
	}
	if elem, ok := listElem(t); ok {
		count := int32(r.u32le(name))
		if r.err != nil || count == -1 {
			d.add(name, from, nil)
			return nil
		}
		if count < 0 || int(count) > r.left() {
			r.fail(name, from, ErrInvalidLength, "list count %d with %d bytes left", count, r.left())
			return nil
		}
		at := len(d.fields)
		d.fields = append(d.fields, dissect.Field{})
		items := make([]any, 0, count)
		for i := 0; i < int(count) && r.err == nil; i++ {
			items = append(items, d.value(elem, name+"["+strconv.Itoa(i)+"]", depth+1))
		}
		if r.err == nil {
			d.fields[at] = dissect.Field{Name: name, Bit: 8 * (r.base + from), Bits: 8 * (r.pos - from)}
		} else {
			d.fields = slices.Delete(d.fields, at, at+1)
		}
		return items
	}
	if dto, ok := d.types[t]; ok {
		at := len(d.fields)
		d.fields = append(d.fields, dissect.Field{})
		v := d.object(dto, name, depth+1)
		if r.err == nil {
			d.fields[at] = dissect.Field{Name: name, Bit: 8 * (r.base + from), Bits: 8 * (r.pos - from)}
		} else {
			d.fields = slices.Delete(d.fields, at, at+1)
		}
		return v
	}
	r.fail(name, from, ErrFormat, "unknown type %q", t)
	return nil
}

// str reads a MemoryPack string: −1 null, 0 empty, ≤ −2 UTF-8 (~byteCount,
// UTF-16 length, bytes), > 0 that many UTF-16 chars.
func (d *mpDecoder) str(name string) any {
	r := d.r
	from := r.pos
	n := int32(r.u32le(name))
	switch {
	case r.err != nil || n == -1:
		return nil
	case n == 0:
		return ""
	case n < 0:
		r.u32le(name) // the UTF-16 length, only a hint for the reader
		b := r.bytes(name, int(^n))
		if r.err == nil && !utf8.Valid(b) {
			d.findings = append(d.findings, errf(dissect.Malformed, 8*(r.base+from), "memorypack: %s: invalid UTF-8", name))
		}
		return string(b)
	}
	if int64(n)*2 > int64(r.left()) {
		r.err = &Error{Layer: r.layer, Field: name, Offset: r.pos, Need: int(n) * 2, Have: r.left(), Err: ErrShort}
		return nil
	}
	b := r.bytes(name, int(n)*2)
	u := make([]uint16, n)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}

func fixedValue(t string, b []byte) any {
	switch t {
	case "bool":
		return b[0] != 0
	case "byte":
		return uint64(b[0])
	case "sbyte":
		return int64(int8(b[0]))
	case "short":
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case "ushort":
		return uint64(binary.LittleEndian.Uint16(b))
	case "int":
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case "uint":
		return uint64(binary.LittleEndian.Uint32(b))
	case "long":
		return int64(binary.LittleEndian.Uint64(b))
	case "ulong":
		return binary.LittleEndian.Uint64(b)
	case "float":
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	default: // double
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
}
