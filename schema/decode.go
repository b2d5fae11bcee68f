package schema

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// Result is one decoded payload: fields with bit spans in wire order, the
// findings, and the names that go to the top of a record (schema.md
// section 3, outputs.md: payload_message, payload_method).
type Result struct {
	Fields   []dissect.Field
	Findings []dissect.Finding
	Message  string // the listener payload's message name; "" for a vanilla method
	Method   string // the RPC or vanilla method's name, or ""
	End      int    // stream bit after the last bit the schema read
}

// Bounds on the work one payload can cause. A message holds at most
// 65535 bytes (wire.md 2), but a list of zero-width items (uint:0, an
// empty struct) can claim 2^32 − 1 of them in 32 bits, so the decoder also
// counts steps.
const (
	// MaxFields is the most fields one payload decodes to; past it the
	// rest is left undecoded with a warning.
	MaxFields = 1 << 16
	// maxWork is the most field reads (including ones that record no
	// field) per payload.
	maxWork = 2 * MaxFields
)

// Decode decodes the payload of an invoke of this listener in direction
// dir: C2S payloads use the server side (TServerMessage), S2C payloads the
// client side (schema.md section 1). It reads from r's position to the end
// of r's range (a listener payload runs to the end of the message, wire.md
// 4.3) and leaves r untouched. It never panics.
func (l *Listener) Decode(dir dissect.Dir, r *netpak.Reader) Result {
	return l.DecodeBuf(dir, r, nil)
}

// DecodeBuf is Decode appending the fields to buf[:0], so that a caller
// decoding many payloads reuses one slice; the Result's Fields alias buf.
func (l *Listener) DecodeBuf(dir dissect.Dir, r *netpak.Reader, buf []dissect.Field) Result {
	if l == nil {
		return Result{End: r.Pos()}
	}
	side := l.Server
	if dir == dissect.S2C {
		side = l.Client
	}
	if side == nil {
		return Result{End: r.Pos(), Findings: []dissect.Finding{{Severity: dissect.Note, Group: dissect.Undecoded, Bit: r.Pos(),
			Text: fmt.Sprintf("schema %s: the schema describes no %s payloads", l.Name(), dir)}}}
	}
	return side.decode(r, buf)
}

// Decode decodes one payload of this side: the message enum, then the
// message's fields, or for an RPC message the method index, the NetID of
// an instance method and the parameters.
func (s *Side) Decode(r *netpak.Reader) Result { return s.decode(r, nil) }

func (s *Side) decode(r *netpak.Reader, buf []dissect.Field) Result {
	name := "payload"
	if s.listener != nil {
		name = s.listener.Name()
	}
	d := newDecoder(r, name)
	d.res.Fields = buf[:0]
	at := d.r.Pos()
	v := d.r.Bits(s.EnumBits)
	if d.failed("message") {
		return d.done(false)
	}
	d.emit("payload.message", at, uint64(v))
	m := s.byValue[v]
	if m == nil {
		d.res.Message = unknown(v)
		d.finding(dissect.Warn, dissect.Protocol, at, "message value %d is not in the schema", v)
		return d.done(false)
	}
	d.res.Message = m.Name
	d.sub = m.Name
	if !m.RPC {
		d.fields(m.Fields, "payload.", 0)
		return d.done(true)
	}
	// schema.md section 1: an RPC message is followed by the method index
	// in CountBits(number of methods) bits, as vanilla InvokeMethod.
	at = d.r.Pos()
	n := len(s.Methods)
	idx := d.r.Bits(netpak.CountBits(uint32(n)))
	if d.failed("method") {
		return d.done(false)
	}
	if int(idx) >= n {
		d.emit("payload.method", at, unknown(idx))
		d.finding(dissect.Warn, dissect.Protocol, at, "method index %d out of range (%d methods)", idx, n)
		return d.done(false)
	}
	me := s.Methods[idx]
	d.emit("payload.method", at, me.Name)
	d.res.Method = me.Name
	d.sub = me.Name
	d.method(me)
	return d.done(true)
}

// Decode decodes a method's instance NetID and parameters from r, for a
// vanilla InvokeMethod whose index the caller has read (its width is the
// profile's, wire.md 3). indexBit is where that index started: the
// payload.method entry covers it up to r's position (schema.md section 3).
// r is left untouched.
func (m *Method) Decode(r *netpak.Reader, indexBit int) Result {
	return m.DecodeBuf(r, indexBit, nil)
}

// DecodeBuf is Decode appending the fields to buf[:0] (Listener.DecodeBuf).
func (m *Method) DecodeBuf(r *netpak.Reader, indexBit int, buf []dissect.Field) Result {
	if m == nil {
		return Result{End: r.Pos()}
	}
	d := newDecoder(r, m.Name)
	d.res.Fields = buf[:0]
	at := min(max(indexBit, 0), d.r.Pos())
	d.res.Fields = append(d.res.Fields, dissect.Field{Name: "payload.method", Bit: at, Bits: d.r.Pos() - at, Value: m.Name})
	d.res.Method = m.Name
	d.method(m)
	return d.done(true)
}

// DecodeFields decodes a bare field list with names prefix+name (a prefix
// of "payload." gives schema.md's names). It reads from r's position to
// the end of its range and leaves r untouched; context names the payload
// in findings.
func DecodeFields(fields []*Field, prefix, context string, r *netpak.Reader) Result {
	d := newDecoder(r, context)
	d.fields(fields, prefix, 0)
	return d.done(true)
}

type decoder struct {
	r       *netpak.Reader
	ctx     string // "Chat": what findings name
	sub     string // and the message or method, "Say" (joined only for a finding)
	res     Result
	pend    int // first bit of alignment padding not yet given to a field, or -1
	work    int
	stopped bool // a read failed or a bound was hit: nothing more is read
}

func newDecoder(r *netpak.Reader, ctx string) *decoder {
	// A sub-reader over the rest of r: reads from the same bits, starts
	// without r's error if it has one, and leaves r as it was.
	return &decoder{r: r.Sub(r.Pos(), -1), ctx: ctx, pend: -1}
}

func unknown(v uint32) string { return "Unknown(" + strconv.FormatUint(uint64(v), 10) + ")" }

// rel is a field's name relative to the payload, as findings give it.
func rel(name string) string { return strings.TrimPrefix(name, "payload.") }

// context is what findings name: "Chat.Say".
func (d *decoder) context() string {
	if d.sub == "" {
		return d.ctx
	}
	return d.ctx + "." + d.sub
}

func (d *decoder) finding(sev dissect.Severity, g dissect.Group, bit int, format string, args ...any) {
	d.res.Findings = append(d.res.Findings, dissect.Finding{Severity: sev, Group: g, Bit: bit,
		Text: "schema " + d.context() + ": " + fmt.Sprintf(format, args...)})
}

// failed reports whether the last read failed; if so it records the error
// finding that names the field and the bits (schema.md section 3:
// "hello: need 11 bits at bit 57, have 3") and stops the decoder.
func (d *decoder) failed(name string) bool {
	err := d.r.Err()
	if err == nil {
		return false
	}
	d.stopped = true
	bit := d.r.Pos()
	var se *netpak.ShortError
	var be *netpak.BitError
	switch {
	case errors.As(err, &se):
		bit = se.Bit
	case errors.As(err, &be):
		bit = be.Bit
	}
	d.finding(dissect.Error, dissect.Malformed, bit, "%s: %v", rel(name), err)
	return true
}

// limit stops the decoder at a work bound with a warning.
func (d *decoder) limit() {
	if d.stopped {
		return
	}
	d.stopped = true
	what := fmt.Sprintf("%d fields", MaxFields)
	if d.work > maxWork {
		what = fmt.Sprintf("%d reads", maxWork)
	}
	d.finding(dissect.Warn, dissect.Undecoded, d.r.Pos(), "more than %s; the rest is not decoded", what)
}

// start is the first bit of the next field: the pending alignment padding
// if there is one (schema.md section 3: an align's bits belong to the next
// field), else the reader's position.
func (d *decoder) start() int {
	if at := d.pend; at >= 0 {
		d.pend = -1
		return at
	}
	return d.r.Pos()
}

// emit records a field from start to the reader's position and returns its
// index, or -1 past MaxFields.
func (d *decoder) emit(name string, start int, v any) int {
	if len(d.res.Fields) >= MaxFields {
		d.limit()
		return -1
	}
	d.res.Fields = append(d.res.Fields, dissect.Field{Name: name, Bit: start, Bits: d.r.Pos() - start, Value: v})
	return len(d.res.Fields) - 1
}

// close sets a container's length once its items are read; padding still
// pending belongs to whatever follows.
func (d *decoder) close(idx, start int) {
	end := d.r.Pos()
	if d.pend >= start && d.pend < end {
		end = d.pend
	}
	d.res.Fields[idx].Bits = end - start
}

// done finishes: End, then the trailing-bit rule of schema.md section 3
// when the whole schema was read.
func (d *decoder) done(trailing bool) Result {
	d.res.End = d.r.Pos()
	if !trailing || d.stopped {
		return d.res
	}
	pos, extra := d.r.Pos(), d.r.Remaining()
	if extra <= 0 {
		return d.res
	}
	// Up to 7 trailing zero bits are the writer's padding of the last byte
	// (wire.md 1.1); non-zero ones are a warning, and anything past the
	// byte is extra bits, counted as 8 × length − the end of the last field.
	if pad := (8 - pos&7) & 7; extra <= pad {
		if v := d.r.Bits(extra); v != 0 {
			d.finding(dissect.Warn, dissect.Malformed, pos, "non-zero trailing pad bits %#x (%d bits)", v, extra)
		}
		return d.res
	}
	d.finding(dissect.Warn, dissect.Undecoded, pos, "%d extra bits after the last field", extra)
	return d.res
}

func (d *decoder) method(m *Method) {
	if m.Instance {
		at := d.start()
		v := d.r.NetID()
		if d.failed("instance") {
			return
		}
		d.emit("payload.instance", at, uint64(v))
	}
	d.fields(m.Params, "payload.", 0)
}

func (d *decoder) fields(fs []*Field, prefix string, depth int) {
	for _, f := range fs {
		if d.stopped {
			return
		}
		name := f.top
		if prefix != "payload." || name == "" {
			name = prefix + f.Name
		}
		d.value(f, name, depth)
	}
}

// value decodes one field and returns the index of its own entry, or -1
// when it has none (struct, align) or it failed.
func (d *decoder) value(f *Field, name string, depth int) int {
	if d.stopped {
		return -1
	}
	if d.work++; d.work > maxWork {
		d.limit()
		return -1
	}
	if f == nil {
		// Parse never leaves a list or optional without an item; a Field
		// built by hand might.
		d.stopped = true
		d.finding(dissect.Error, dissect.Undecoded, d.r.Pos(), "%s: no item type", rel(name))
		return -1
	}
	if depth > MaxDepth {
		// Parse refuses such schemas; a Field built by hand might be
		// cyclic, and recursion must end anyway.
		d.stopped = true
		d.finding(dissect.Error, dissect.Undecoded, d.r.Pos(), "%s: nested deeper than %d levels", rel(name), MaxDepth)
		return -1
	}
	switch f.Type.Kind {
	case Align:
		d.align(name, true)
		return -1
	case Struct:
		for _, c := range f.Fields {
			if d.stopped {
				break
			}
			d.value(c, name+"."+c.Name, depth+1)
		}
		return -1
	case List:
		return d.list(f, name, depth)
	case Optional:
		return d.optional(f, name, depth)
	}
	at := d.start()
	v := d.scalar(f, name)
	if d.failed(name) {
		return -1
	}
	return d.emit(name, at, v)
}

// align reads padding to the next byte. Non-zero padding is an error
// finding but not a stop (wire.md 1.2, schema.md section 3): the bits
// after it still have a defined meaning. own marks an align field, whose
// bits go to the next field.
func (d *decoder) align(name string, own bool) {
	at := d.r.Pos()
	pad := (8 - at&7) & 7
	if own {
		// A payload cut inside an align field's padding: its bits belong
		// to the next field (schema.md section 3), so that field's read is
		// the one that reports what is missing.
		pad = min(pad, d.r.Remaining())
	}
	if pad == 0 {
		return
	}
	v := d.r.Bits(pad)
	if d.r.Err() != nil {
		if own {
			d.failed(name)
		}
		return
	}
	if v != 0 {
		d.finding(dissect.Error, dissect.Malformed, at, "%s: non-zero alignment padding %#x (%d bits)", rel(name), v, pad)
	}
	if own && d.pend < 0 {
		d.pend = at
	}
}

func (d *decoder) list(f *Field, name string, depth int) int {
	at := d.start()
	maxCount := f.Type.A
	cnt := d.r.Pos()
	n := int(d.r.Bits(netpak.CountBits(uint32(min(max(maxCount, 0), maxListCount)))))
	if d.failed(name) {
		return -1
	}
	idx := d.emit(name, at, uint64(n))
	if idx < 0 {
		return -1
	}
	if n > maxCount {
		// The game's writer never sends more than MAX (wire.md 1.3); go on
		// and show what the bits hold, within the work bounds.
		d.finding(dissect.Error, dissect.Malformed, cnt, "%s: count %d above the maximum %d", rel(name), n, maxCount)
	}
	for i := 0; i < n && !d.stopped; i++ {
		d.value(f.Item, index(name, i), depth+1)
	}
	d.close(idx, at)
	return idx
}

// optional is one entry at its flag covering flag and item, valued as the
// item or nil (schema.md section 3). A scalar, list or optional item's own
// entry becomes that entry by starting at the flag; a struct item has none,
// so the optional gets one valued true.
func (d *decoder) optional(f *Field, name string, depth int) int {
	at := d.start()
	has := d.r.Bit()
	if d.failed(name) {
		return -1
	}
	if !has {
		return d.emit(name, at, nil)
	}
	if f.Item == nil {
		return d.value(nil, name, depth+1)
	}
	if k := f.Item.Type.Kind; k == Struct || k == Align {
		idx := d.emit(name, at, true)
		if idx < 0 {
			return -1
		}
		d.value(f.Item, name, depth+1)
		d.close(idx, at)
		return idx
	}
	d.pend = at
	return d.value(f.Item, name, depth+1)
}

// scalar reads one value of a kind that has no children. A failed read
// returns anything; the caller checks the reader's error.
func (d *decoder) scalar(f *Field, name string) any {
	r, t := d.r, f.Type
	switch t.Kind {
	case Bool:
		return r.Bit()
	case UInt8:
		return uint64(r.UInt8())
	case Int8:
		return int64(r.Int8())
	case UInt16:
		return uint64(r.UInt16())
	case Int16:
		return int64(r.Int16())
	case UInt32:
		return uint64(r.UInt32())
	case Int32:
		return int64(r.Int32())
	case UInt64:
		return r.UInt64()
	case Int64:
		return r.Int64()
	case Float:
		return f64(r.Float())
	case UInt:
		return uint64(r.Bits(t.A))
	case Signed:
		return int64(r.SignedInt(t.A))
	case Enum:
		at := r.Pos()
		v := r.Bits(t.A)
		if r.Err() != nil {
			return nil
		}
		if s, ok := f.Values[v]; ok {
			return s
		}
		d.finding(dissect.Warn, dissect.Protocol, at, "%s: value %d is not in the enum", rel(name), v)
		return unknown(v)
	case String:
		return d.str(name, t.A)
	case Bytes:
		d.align(name, false)
		return block(r.Bytes(t.A))
	case ByteArray:
		n := r.UInt8()
		d.align(name, false)
		return block(r.Bytes(int(n)))
	case NetID:
		return uint64(r.NetID())
	case SteamID:
		return r.SteamID()
	case GUID:
		return r.GUID().String()
	case DateTime:
		return r.DateTime().Time().Format(time.RFC3339Nano)
	case Vector3:
		return d.vector3(t.A, t.B)
	case Quaternion:
		return d.quaternion(t.A)
	case Normal3:
		return d.normal3(t.A)
	case ClampedFloat:
		return d.clamped(t.A, t.B, true)
	case UClampedFloat:
		return d.clamped(t.A, t.B, false)
	case UNorm:
		return d.unorm(t.A)
	case SNorm:
		return d.snorm(t.A)
	case Radians:
		return d.angle(t.A, 2*math.Pi)
	case Degrees:
		return d.angle(t.A, 360)
	case Yaw:
		return d.yaw(t.A)
	case Color32RGB:
		c := r.Color32RGB()
		return RGBA{c.R, c.G, c.B, c.A}
	case Color32RGBA:
		c := r.Color32RGBA()
		return RGBA{c.R, c.G, c.B, c.A}
	case Transform:
		// wire.md 1.3: a has-value bit, then a NetID and a String(7) path.
		if !r.Bit() {
			return nil
		}
		id := r.NetID()
		return TransformRef{NetID: id, Path: d.str(name, netpak.TransformPathBits)}
	}
	r.SetErr(fmt.Errorf("schema: field type %v cannot be read", t))
	return nil
}

// block keeps an empty byte block non-nil, so that it reads as an empty
// value rather than a missing one.
func block(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// str reads a NetPak string (wire.md 1.3) itself rather than through
// netpak.Reader.String, so that non-zero padding and invalid UTF-8 become
// findings on a value that is still shown, and decoding goes on.
func (d *decoder) str(name string, lenBits int) string {
	r := d.r
	if r.Bit() || r.Err() != nil {
		return ""
	}
	n := int(r.Bits(lenBits)) + 1
	if r.Err() != nil {
		return ""
	}
	d.align(name, false)
	b := r.Bytes(n)
	if r.Err() != nil {
		return ""
	}
	if !utf8.Valid(b) {
		d.finding(dissect.Error, dissect.Malformed, r.Pos()-8*n, "%s: invalid UTF-8 in a %d-byte string", rel(name), n)
	}
	return string(b)
}
