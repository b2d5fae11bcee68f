package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

// Set is every schema in force: the files given with --schema and those
// of the schemas directory (schema.md). A nil *Set holds no schema, so
// callers without schemas pass nil.
type Set struct {
	files     []*File
	listeners []*Listener
	vanilla   [2]map[int]*Method // by dissect.Dir
	services  map[int32]*Service
	types     map[string]*DTO
}

// NewSet returns a Set of the given files, added in order.
func NewSet(files ...*File) (*Set, error) {
	s := &Set{}
	var errs ErrorList
	for _, f := range files {
		if err := s.Add(f); err != nil {
			errs = append(errs, err.(ErrorList)...)
		}
	}
	if len(errs) > 0 {
		return s, errs
	}
	return s, nil
}

// Add adds a parsed file. A definition that clashes with one already in
// the set (the same listener type with a shared version, the same vanilla
// index, ULinkRPC service id or DTO name) is an error naming both places;
// the rest of the file is still added.
func (s *Set) Add(f *File) error {
	if s.vanilla[0] == nil {
		s.vanilla = [2]map[int]*Method{{}, {}}
		s.services, s.types = map[int32]*Service{}, map[string]*DTO{}
	}
	var errs ErrorList
	clash := func(line int, key, format string, args ...any) {
		errs = append(errs, &Error{File: f.Name, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	s.files = append(s.files, f)
	for i, l := range f.Listeners {
		if o := s.clashing(l); o != nil {
			clash(l.Line, index("listener", i)+".type", "%q is also defined at %s:%d for the same versions", l.Type, o.File, o.Line)
			continue
		}
		s.listeners = append(s.listeners, l)
	}
	for dir, ms := range [2][]*Method{dissect.C2S: f.Vanilla.ServerMethods, dissect.S2C: f.Vanilla.ClientMethods} {
		for _, m := range ms {
			if o := s.vanilla[dir][m.Index]; o != nil {
				clash(m.Line, "vanilla", "%s method index %d is also defined as %q", dissect.Dir(dir), m.Index, o.Name)
				continue
			}
			s.vanilla[dir][m.Index] = m
		}
	}
	for _, sv := range f.ULinkRPC.Services {
		if o := s.services[sv.ID]; o != nil {
			clash(sv.Line, "ulinkrpc.service", "service id %d is also defined as %q", sv.ID, o.Name)
			continue
		}
		s.services[sv.ID] = sv
	}
	for _, t := range f.ULinkRPC.Types {
		if s.types[t.Name] != nil {
			clash(t.Line, "ulinkrpc.type", "type %q is defined twice", t.Name)
			continue
		}
		s.types[t.Name] = t
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func (s *Set) clashing(l *Listener) *Listener {
	for _, o := range s.listeners {
		if o.Type == l.Type && overlap(o.Versions, l.Versions) {
			return o
		}
	}
	return nil
}

// Files returns the files in the order they were added.
func (s *Set) Files() []*File {
	if s == nil {
		return nil
	}
	return s.files
}

// typePart is a Listener_Type_Name without its assembly: "Sample.ChatListener,
// Sample" → "Sample.ChatListener".
func typePart(t string) string {
	t, _, _ = strings.Cut(t, ",")
	return strings.TrimSpace(t)
}

// Listener returns the schema for a listener type and version as the wire
// names them. A schema written with the assembly matches that name
// exactly; one written without it matches the type in any assembly
// (schema.md section 1); an exact match wins. When a schema matches the
// type but not the version, Listener returns nil and a note naming the
// versions the schema covers: the payload is then shown as having no
// schema (schema.md section 3).
func (s *Set) Listener(typ string, version uint32) (*Listener, []dissect.Finding) {
	if s == nil {
		return nil, nil
	}
	typ = strings.TrimSpace(typ)
	var other []*Listener
	for _, exact := range []bool{true, false} {
		for _, l := range s.listeners {
			match := l.Type == typ
			if !exact {
				match = !strings.Contains(l.Type, ",") && l.Type == typePart(typ)
			}
			if !match {
				continue
			}
			if l.Covers(version) {
				return l, nil
			}
			other = append(other, l)
		}
	}
	if len(other) == 0 {
		return nil, nil
	}
	var vs []uint32
	for _, l := range other {
		vs = append(vs, l.Versions...)
	}
	slices.Sort(vs)
	return nil, []dissect.Finding{{Severity: dissect.Note, Group: dissect.Protocol, Bit: -1,
		Text: fmt.Sprintf("schema %s: version %d has no schema; the schema covers versions %s", other[0].Name(), version, joinVersions(slices.Compact(vs)))}}
}

func joinVersions(vs []uint32) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.FormatUint(uint64(v), 10)
	}
	return strings.Join(s, ", ")
}

// DecodeListener finds the schema of a listener (type, version) and
// decodes the payload at r with it. ok is false when no schema applies;
// the Result may then still carry the version note of Listener.
func (s *Set) DecodeListener(typ string, version uint32, dir dissect.Dir, r *netpak.Reader) (res Result, ok bool) {
	l, notes := s.Listener(typ, version)
	if l == nil {
		return Result{End: r.Pos(), Findings: notes}, false
	}
	return l.Decode(dir, r), true
}

// VanillaMethod returns the schema of a vanilla InvokeMethod by direction
// (C2S: EServerMessage's server methods; S2C: EClientMessage's client
// methods) and index, or nil (schema.md section 2).
func (s *Set) VanillaMethod(dir dissect.Dir, index int) *Method {
	if s == nil || int(dir) >= len(s.vanilla) || s.vanilla[dir] == nil {
		return nil
	}
	return s.vanilla[dir][index]
}

// Service returns a ULinkRPC service by id, or nil.
func (s *Set) Service(id int32) *Service {
	if s == nil {
		return nil
	}
	return s.services[id]
}

// DTO returns a MemoryPack type by name, or nil.
func (s *Set) DTO(name string) *DTO {
	if s == nil {
		return nil
	}
	return s.types[name]
}

// Method returns a service's request method by id, or nil.
func (sv *Service) Method(id int32) *ServiceMethod {
	for _, m := range sv.Methods {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// Push returns a service's push by id, or nil.
func (sv *Service) Push(id int32) *Push {
	for _, p := range sv.Pushes {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// Defines lists what the file defines, one line per definition, indented
// under its listener or service: what `usmnscope schema check` prints.
func (f *File) Defines() []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, l := range f.Listeners {
		vs := "every version"
		if l.Versions != nil {
			vs = "versions " + joinVersions(l.Versions)
		}
		add("listener %q (%s), line %d", l.Type, vs, l.Line)
		for _, sd := range []struct {
			dir  string
			side *Side
		}{{"c2s", l.Server}, {"s2c", l.Client}} {
			if sd.side == nil {
				continue
			}
			add("  %s: %d-bit message enum", sd.dir, sd.side.EnumBits)
			for _, m := range sd.side.Messages {
				if m.RPC {
					add("    message %d %s: rpc, %d methods", m.Value, m.Name, len(sd.side.Methods))
					continue
				}
				add("    message %d %s(%s)", m.Value, m.Name, signature(m.Fields))
			}
			for _, m := range sd.side.Methods {
				add("    method %d %s", m.Index, methodText(m))
			}
		}
	}
	for _, v := range []struct {
		dir string
		ms  []*Method
	}{{"c2s", f.Vanilla.ServerMethods}, {"s2c", f.Vanilla.ClientMethods}} {
		for _, m := range v.ms {
			add("vanilla %s method %d %s, line %d", v.dir, m.Index, methodText(m), m.Line)
		}
	}
	for _, sv := range f.ULinkRPC.Services {
		add("ulinkrpc service %d %s, line %d", sv.ID, sv.Name, sv.Line)
		for _, m := range sv.Methods {
			reply := m.Reply
			if reply == "" {
				reply = "void"
			}
			add("  method %d %s(%s) %s", m.ID, m.Name, m.Request, reply)
		}
		for _, p := range sv.Pushes {
			add("  push %d %s(%s)", p.ID, p.Name, p.Arg)
		}
	}
	for _, t := range f.ULinkRPC.Types {
		tol := ""
		if t.VersionTolerant {
			tol = ", version tolerant"
		}
		ms := make([]string, len(t.Members))
		for i, m := range t.Members {
			ms[i] = fmt.Sprintf("%d %s %s", m.Order, m.Name, m.Type)
		}
		add("ulinkrpc type %s {%s}%s, line %d", t.Name, strings.Join(ms, "; "), tol, t.Line)
	}
	return out
}

func methodText(m *Method) string {
	inst := ""
	if m.Instance {
		inst = "instance "
	}
	return inst + m.Name + "(" + signature(m.Params) + ")"
}

// signature spells a field list compactly: "hello string, pos vector3:13,7".
func signature(fs []*Field) string {
	s := make([]string, 0, len(fs))
	for _, f := range fs {
		s = append(s, strings.TrimSpace(f.Name+" "+typeText(f)))
	}
	return strings.Join(s, ", ")
}

func typeText(f *Field) string {
	switch f.Type.Kind {
	case List, Optional:
		if f.Item != nil {
			return f.Type.String() + " of " + typeText(f.Item)
		}
	case Struct:
		return "{" + signature(f.Fields) + "}"
	}
	return f.Type.String()
}
