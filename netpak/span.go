package netpak

// Span records one decoded field: its name, where its bits are and what
// they decoded to. The field trees, the bit-level hexdump highlight and the
// JSON output all come from spans, so each field's position is recorded once.
type Span struct {
	Name  string // field name; nested fields use dotted names ("marker.magic")
	Bit   int    // stream bit of the field's first bit
	Bits  int    // number of bits the field covers (0 for zero-width fields)
	Value any    // bool, uint64, int64, float64, string, []byte or nil
}

// End returns one past the field's last bit.
func (s Span) End() int { return s.Bit + s.Bits }

// Spans collects spans. A nil *Spans records nothing and costs one branch
// per field, so decoders take a *Spans and callers pass nil when they do not
// want a field tree.
type Spans struct {
	List []Span
	// Bare records each field's name and bits only, every Value nil: for a
	// consumer that reads where the fields are and not what they hold
	// (`usmnscope stats`' bit split, issue 26). The typed adders then box
	// nothing, so a bare decoding allocates nothing per field beyond List.
	Bare bool
}

// Add records a field that started at bit from and ends at the reader's
// position (with a nil Value when Bare). It is a no-op on a nil receiver.
func (s *Spans) Add(name string, from int, r *Reader, v any) {
	if s == nil {
		return
	}
	if s.Bare {
		v = nil
	}
	s.List = append(s.List, Span{Name: name, Bit: from, Bits: r.Pos() - from, Value: v})
}

// bare records a field without its value.
func (s *Spans) bare(name string, from int, r *Reader) {
	s.List = append(s.List, Span{Name: name, Bit: from, Bits: r.Pos() - from})
}

// AddSpan records a span given in full. It is a no-op on a nil receiver.
func (s *Spans) AddSpan(sp Span) {
	if s == nil {
		return
	}
	s.List = append(s.List, sp)
}

// Enabled reports whether spans are being recorded, so a caller can skip
// building an expensive value.
func (s *Spans) Enabled() bool { return s != nil }

// The typed adders below box the value only after the nil and Bare checks,
// so a decoder that is not asked for spans pays one branch per field and
// allocates nothing, and a bare one allocates nothing per field; Add with a
// non-constant value boxes it before the call.

// AddUint records an unsigned field (Value is a uint64).
func (s *Spans) AddUint(name string, from int, r *Reader, v uint64) {
	switch {
	case s == nil:
	case s.Bare:
		s.bare(name, from, r)
	default:
		s.Add(name, from, r, v)
	}
}

// AddInt records a signed field (Value is an int64).
func (s *Spans) AddInt(name string, from int, r *Reader, v int64) {
	switch {
	case s == nil:
	case s.Bare:
		s.bare(name, from, r)
	default:
		s.Add(name, from, r, v)
	}
}

// AddFloat records a float field (Value is a float64).
func (s *Spans) AddFloat(name string, from int, r *Reader, v float64) {
	switch {
	case s == nil:
	case s.Bare:
		s.bare(name, from, r)
	default:
		s.Add(name, from, r, v)
	}
}

// AddBool records a one-bit flag (Value is a bool).
func (s *Spans) AddBool(name string, from int, r *Reader, v bool) {
	switch {
	case s == nil:
	case s.Bare:
		s.bare(name, from, r)
	default:
		s.Add(name, from, r, v)
	}
}

// AddString records a string field (Value is a string, unescaped: escape it
// for the terminal when showing it).
func (s *Spans) AddString(name string, from int, r *Reader, v string) {
	switch {
	case s == nil:
	case s.Bare:
		s.bare(name, from, r)
	default:
		s.Add(name, from, r, v)
	}
}

// AddBytes records a raw byte field (Value is a []byte aliasing the input).
func (s *Spans) AddBytes(name string, from int, r *Reader, v []byte) {
	switch {
	case s == nil:
	case s.Bare:
		s.bare(name, from, r)
	default:
		s.Add(name, from, r, v)
	}
}

// AddText records a string field read as bytes (Value is string(v), the
// bytes copied only when values are recorded: not when Bare).
func (s *Spans) AddText(name string, from int, r *Reader, v []byte) {
	switch {
	case s == nil:
	case s.Bare:
		s.bare(name, from, r)
	default:
		s.Add(name, from, r, string(v))
	}
}

// Reset empties s, keeping its storage, so one Spans can serve many messages.
func (s *Spans) Reset() {
	if s != nil {
		s.List = s.List[:0]
	}
}
