package schema

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
	"github.com/usmnscope/usmnscope/internal/tomlcap"
	"github.com/usmnscope/usmnscope/netpak"
)

// Error is one problem in a schema file: where it is (file, line, key path)
// and what is wrong. schema.md: "an invalid file is an error that names the
// file, the line and the key".
type Error struct {
	File string
	Line int    // 1-based; 0 when not known
	Key  string // "listener[0].server.message[1].fields[0].type"
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in a file, in file order as far as the
// walk allows. Parse returns one as its error.
type ErrorList []*Error

func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Bounds on what a file may declare, so that a hostile schema cannot make a
// decoder recurse or loop without end (SECURITY.md's bounded-work rule).
const (
	// MaxDepth is the deepest nesting of list, optional and struct.
	MaxDepth = 16
	// MaxFieldDefs is the most field definitions one file may hold.
	MaxFieldDefs = 10000
	// maxErrors stops reporting after this many problems in one file.
	maxErrors = 100
)

// Reserved payload names: a top-level field or parameter with one of these
// names would collide with the entries the decoder adds itself (schema.md
// section 3: payload.message, payload.method, payload.instance).
var reserved = []string{"message", "method", "instance"}

// Parse parses and validates one schema file (schema.md). name is used in
// errors only; src is the file's bytes. On any problem it returns nil and
// an ErrorList naming each one's file, line and key.
func Parse(name string, src []byte) (*File, error) {
	// The shapes that make the TOML parser slow or large are refused
	// before it sees them (issue 29: schema files are input).
	if err := tomlcap.Check(name, src, tomlcap.Default); err != nil {
		var be *tomlcap.Error
		errors.As(err, &be)
		return nil, ErrorList{{File: name, Line: be.Line, Msg: be.Msg}}
	}
	var raw map[string]any
	if _, err := toml.Decode(string(src), &raw); err != nil {
		e := &Error{File: name, Msg: err.Error()}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			e.Line, e.Key, e.Msg = pe.Position.Line, pe.LastKey, pe.Message
		}
		return nil, ErrorList{e}
	}
	p := &parser{f: &File{Name: name}, lines: locate(string(src))}
	p.file(raw)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return p.f, nil
}

type parser struct {
	f       *File
	lines   map[string]int
	errs    ErrorList
	nfields int
}

func (p *parser) errorf(key, format string, args ...any) {
	if len(p.errs) == maxErrors {
		p.errs = append(p.errs, &Error{File: p.f.Name, Msg: "too many errors"})
	}
	if len(p.errs) > maxErrors {
		return
	}
	p.errs = append(p.errs, &Error{File: p.f.Name, Line: lineOf(p.lines, key), Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) line(key string) int { return lineOf(p.lines, key) }

// table checks that v is a table with only the allowed keys.
func (p *parser) table(key string, v any, allowed ...string) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.errorf(key, "want a table, have %s", typeName(v))
		return nil, false
	}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(allowed, k) {
			p.errorf(join(key, k), "unknown key %q (want one of %s)", k, strings.Join(allowed, ", "))
		}
	}
	return m, true
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// list returns v as a list: an inline array or an array of tables.
func (p *parser) list(key string, v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case []map[string]any:
		out := make([]any, len(l))
		for i, m := range l {
			out[i] = m
		}
		return out, true
	}
	p.errorf(key, "want an array, have %s", typeName(v))
	return nil, false
}

func (p *parser) str(m map[string]any, key, name string, required bool) string {
	v, ok := m[name]
	if !ok {
		if required {
			p.errorf(join(key, name), "missing")
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		p.errorf(join(key, name), "want a string, have %s", typeName(v))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		p.errorf(join(key, name), "empty")
	}
	return s
}

func (p *parser) integer(m map[string]any, key, name string, lo, hi int64, required bool) (int64, bool) {
	v, ok := m[name]
	if !ok {
		if required {
			p.errorf(join(key, name), "missing")
		}
		return 0, false
	}
	n, ok := v.(int64)
	if !ok {
		p.errorf(join(key, name), "want an integer, have %s", typeName(v))
		return 0, false
	}
	if n < lo || n > hi {
		p.errorf(join(key, name), "%d not in %d…%d", n, lo, hi)
		return 0, false
	}
	return n, true
}

func (p *parser) boolean(m map[string]any, key, name string) bool {
	v, ok := m[name]
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		p.errorf(join(key, name), "want true or false, have %s", typeName(v))
	}
	return b
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case nil:
		return "nothing"
	}
	return "a date or time"
}

// name checks a field, method or message name. Names become parts of dotted
// field names (schema.md section 3), so dots, brackets and blanks would make
// them ambiguous; control characters would reach terminals.
func (p *parser) name(key, s string) {
	if s == "" {
		return // reported as missing or empty already
	}
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-') {
			p.errorf(key, "name %q: only letters, digits, _ and - are allowed", s)
			return
		}
	}
}

func (p *parser) file(raw map[string]any) {
	m, _ := p.table("", raw, "listener", "vanilla", "ulinkrpc")
	if v, ok := m["listener"]; ok {
		ls, _ := p.list("listener", v)
		for i, lv := range ls {
			if l := p.listener(index("listener", i), lv); l != nil {
				p.f.Listeners = append(p.f.Listeners, l)
			}
		}
	}
	if v, ok := m["vanilla"]; ok {
		p.vanilla(v)
	}
	if v, ok := m["ulinkrpc"]; ok {
		p.ulinkrpc(v)
	}
}

func (p *parser) listener(key string, v any) *Listener {
	m, ok := p.table(key, v, "type", "versions", "server", "client")
	if !ok {
		return nil
	}
	l := &Listener{Type: strings.TrimSpace(p.str(m, key, "type", true)), Line: p.line(key), File: p.f.Name}
	l.short = shortName(l.Type)
	if vv, ok := m["versions"]; ok {
		vk := join(key, "versions")
		vs, _ := p.list(vk, vv)
		if vs != nil && len(vs) == 0 {
			p.errorf(vk, "empty (leave versions out to cover every version)")
		}
		l.Versions = []uint32{}
		for i, x := range vs {
			n, ok := x.(int64)
			if !ok || n < 0 || n > math.MaxUint32 {
				p.errorf(index(vk, i), "want a version 0…4294967295, have %v", x)
				continue
			}
			if slices.Contains(l.Versions, uint32(n)) {
				p.errorf(index(vk, i), "version %d listed twice", n)
			}
			l.Versions = append(l.Versions, uint32(n))
		}
	}
	for _, other := range p.f.Listeners {
		if other.Type == l.Type && overlap(other.Versions, l.Versions) {
			p.errorf(join(key, "type"), "%q already defined at line %d for the same versions", l.Type, other.Line)
		}
	}
	if sv, ok := m["server"]; ok {
		l.Server = p.side(join(key, "server"), sv, l)
	}
	if cv, ok := m["client"]; ok {
		l.Client = p.side(join(key, "client"), cv, l)
	}
	return l
}

// overlap reports whether two version lists share a version (nil = all).
func overlap(a, b []uint32) bool {
	if a == nil || b == nil {
		return true
	}
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func (p *parser) side(key string, v any, l *Listener) *Side {
	m, ok := p.table(key, v, "enum_bits", "message", "method")
	if !ok {
		return nil
	}
	s := &Side{Line: p.line(key), byValue: map[uint32]*Message{}, listener: l}
	names := map[string]bool{}
	hasRPC := false
	if mv, ok := m["message"]; ok {
		ms, _ := p.list(join(key, "message"), mv)
		for i, x := range ms {
			mk := index(join(key, "message"), i)
			msg := p.message(mk, x)
			if msg == nil {
				continue
			}
			if s.byValue[msg.Value] != nil {
				p.errorf(join(mk, "value"), "value %d already used by %q", msg.Value, s.byValue[msg.Value].Name)
			}
			if names[msg.Name] {
				p.errorf(join(mk, "name"), "name %q used twice", msg.Name)
			}
			names[msg.Name] = true
			hasRPC = hasRPC || msg.RPC
			s.byValue[msg.Value] = msg
			s.Messages = append(s.Messages, msg)
		}
	}
	var highest uint32
	for _, msg := range s.Messages {
		highest = max(highest, msg.Value)
	}
	// schema.md section 1: CountBits(highest value) unless enum_bits says
	// otherwise; a narrower enum_bits could not hold every listed value.
	s.EnumBits = netpak.CountBits(highest)
	if n, ok := p.integer(m, key, "enum_bits", 0, 32, false); ok {
		if int(n) < s.EnumBits {
			p.errorf(join(key, "enum_bits"), "%d bits cannot hold message value %d", n, highest)
		}
		s.EnumBits = int(n)
	}
	if mv, ok := m["method"]; ok {
		ms, _ := p.list(join(key, "method"), mv)
		s.Methods = p.methods(join(key, "method"), ms, false)
		if !hasRPC && len(s.Methods) > 0 {
			p.errorf(join(key, "method"), "methods but no message with rpc = true to invoke them")
		}
	}
	if hasRPC && len(s.Methods) == 0 {
		p.errorf(key, "a message has rpc = true but no [[…method]] is listed")
	}
	return s
}

func (p *parser) message(key string, v any) *Message {
	m, ok := p.table(key, v, "value", "name", "rpc", "fields")
	if !ok {
		return nil
	}
	msg := &Message{Name: p.str(m, key, "name", true), RPC: p.boolean(m, key, "rpc"), Line: p.line(key)}
	p.name(join(key, "name"), msg.Name)
	n, _ := p.integer(m, key, "value", 0, math.MaxUint32, true)
	msg.Value = uint32(n)
	if fv, ok := m["fields"]; ok {
		if msg.RPC {
			// schema.md section 1: an RPC message "lists no fields"; its
			// parameters belong to the methods.
			p.errorf(join(key, "fields"), "an rpc message lists no fields (give them as method params)")
		}
		msg.Fields = p.fields(join(key, "fields"), fv, 1, true)
	}
	return msg
}

// methods parses listener methods (vanilla = false: index is the position)
// or vanilla ones (index given).
func (p *parser) methods(key string, ms []any, vanilla bool) []*Method {
	var out []*Method
	seen := map[int]int{}
	for i, x := range ms {
		mk := index(key, i)
		allowed := []string{"name", "instance", "params"}
		if vanilla {
			allowed = append(allowed, "index")
		}
		m, ok := p.table(mk, x, allowed...)
		if !ok {
			continue
		}
		me := &Method{Index: i, Name: p.str(m, mk, "name", true), Instance: p.boolean(m, mk, "instance"), Line: p.line(mk)}
		p.name(join(mk, "name"), me.Name)
		if vanilla {
			// wire.md 3: the index is CountBits(methodCount) bits, at most 32.
			n, ok := p.integer(m, mk, "index", 0, math.MaxUint32, true)
			if !ok {
				continue
			}
			me.Index = int(n)
			if line, dup := seen[me.Index]; dup {
				p.errorf(join(mk, "index"), "index %d already defined at line %d", n, line)
			}
			seen[me.Index] = me.Line
		}
		if pv, ok := m["params"]; ok {
			me.Params = p.fields(join(mk, "params"), pv, 1, true)
		}
		out = append(out, me)
	}
	return out
}

// fields parses a field list. top marks a payload's top level, where the
// reserved names are refused.
func (p *parser) fields(key string, v any, depth int, top bool) []*Field {
	fs, ok := p.list(key, v)
	if !ok {
		return nil
	}
	out := make([]*Field, 0, len(fs))
	seen := map[string]bool{}
	for i, x := range fs {
		fk := index(key, i)
		f := p.field(fk, x, depth, true)
		if f == nil {
			continue
		}
		if f.Name != "" {
			if seen[f.Name] {
				p.errorf(join(fk, "name"), "name %q used twice", f.Name)
			}
			seen[f.Name] = true
			if top && slices.Contains(reserved, f.Name) {
				p.errorf(join(fk, "name"), "%q is reserved for payload.%s", f.Name, f.Name)
			}
			if top {
				f.top = "payload." + f.Name
			}
		}
		out = append(out, f)
	}
	return out
}

// field parses one field (named = true) or a list's or optional's item.
func (p *parser) field(key string, v any, depth int, named bool) *Field {
	allowed := []string{"type", "values", "item", "fields"}
	if named {
		allowed = append(allowed, "name")
	}
	m, ok := p.table(key, v, allowed...)
	if !ok {
		return nil
	}
	if p.nfields++; p.nfields == MaxFieldDefs+1 {
		p.errorf(key, "more than %d field definitions in one file", MaxFieldDefs)
	}
	if depth > MaxDepth {
		p.errorf(key, "nested deeper than %d levels", MaxDepth)
		return nil
	}
	f := &Field{Line: p.line(key)}
	ts := p.str(m, key, "type", true)
	t, err := ParseType(ts)
	if err != nil && ts != "" {
		p.errorf(join(key, "type"), "%v", err)
	}
	f.Type = t
	if named {
		f.Name = p.str(m, key, "name", t.Kind != Align)
		p.name(join(key, "name"), f.Name)
	}
	if t.Kind == Invalid {
		return nil // reported above; the kind-specific checks would only add noise
	}
	has := func(k string) bool { _, ok := m[k]; return ok }
	refuse := func(k, why string) {
		if has(k) {
			p.errorf(join(key, k), "only %s takes %s", why, k)
		}
	}
	if t.Kind != Enum {
		refuse("values", "enum:N")
	}
	if t.Kind != List && t.Kind != Optional {
		refuse("item", "list or optional")
	}
	if t.Kind != List && t.Kind != Struct {
		refuse("fields", "list or struct")
	}
	switch t.Kind {
	case Enum:
		f.Values = p.values(join(key, "values"), m["values"], t.A)
	case List:
		switch {
		case has("item") && has("fields"):
			p.errorf(key, "a list takes item or fields, not both")
		case has("item"):
			f.Item = p.field(join(key, "item"), m["item"], depth+1, false)
		case has("fields"):
			f.Item = &Field{Type: Type{Kind: Struct}, Line: f.Line,
				Fields: p.fields(join(key, "fields"), m["fields"], depth+1, false)}
		default:
			p.errorf(key, "a list needs item = { type = … } or fields = [ … ]")
		}
	case Optional:
		if !has("item") {
			p.errorf(key, "an optional needs item = { type = … }")
			break
		}
		f.Item = p.field(join(key, "item"), m["item"], depth+1, false)
	case Struct:
		if !has("fields") {
			p.errorf(key, "a struct needs fields = [ … ]")
			break
		}
		f.Fields = p.fields(join(key, "fields"), m["fields"], depth+1, false)
	}
	return f
}

// values parses an enum's names, { 0 = "A", 1 = "B" }: each value must fit
// the enum's n bits.
func (p *parser) values(key string, v any, n int) map[uint32]string {
	if v == nil {
		p.errorf(key, "an enum needs values = { 0 = \"Name\", … }")
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.errorf(key, "want a table, have %s", typeName(v))
		return nil
	}
	out := make(map[uint32]string, len(m))
	names := map[string]bool{}
	for _, k := range sortedKeys(m) {
		vk := join(key, k)
		x, err := strconv.ParseUint(k, 0, 32)
		if err != nil {
			p.errorf(vk, "key %q is not an integer", k)
			continue
		}
		if netpak.CountBits(uint32(x)) > n {
			p.errorf(vk, "value %d does not fit in %d bits", x, n)
		}
		s, ok := m[k].(string)
		if !ok || s == "" {
			p.errorf(vk, "want a name, have %s", typeName(m[k]))
			continue
		}
		p.name(vk, s)
		if names[s] {
			p.errorf(vk, "name %q used twice", s)
		}
		names[s] = true
		out[uint32(x)] = s
	}
	return out
}

func (p *parser) vanilla(v any) {
	m, ok := p.table("vanilla", v, "client_method", "server_method")
	if !ok {
		return
	}
	if cv, ok := m["client_method"]; ok {
		ms, _ := p.list("vanilla.client_method", cv)
		p.f.Vanilla.ClientMethods = p.methods("vanilla.client_method", ms, true)
	}
	if sv, ok := m["server_method"]; ok {
		ms, _ := p.list("vanilla.server_method", sv)
		p.f.Vanilla.ServerMethods = p.methods("vanilla.server_method", ms, true)
	}
}
