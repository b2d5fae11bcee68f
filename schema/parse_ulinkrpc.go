package schema

import (
	"math"
	"slices"
	"strings"
	"unicode"
)

// memoryPackTypes are the MemoryPack member types of schema.md section 4.
var memoryPackTypes = []string{"bool", "byte", "sbyte", "short", "ushort", "int", "uint",
	"long", "ulong", "float", "double", "string"}

// maxMemberOrder: a MemoryPack object's member count is one byte 0…249
// (ulinkrpc.md section 6), so orders run below 250.
const maxMemberOrder = 249

// ValidMemberType reports whether s is a MemoryPack member type as
// schema.md section 4 writes them: a primitive, list:T, or a type name
// (resolved against the declared DTOs by whoever decodes MemoryPack).
func ValidMemberType(s string) bool {
	for depth := 0; depth <= MaxDepth; depth++ {
		rest, ok := strings.CutPrefix(s, "list:")
		if !ok {
			return slices.Contains(memoryPackTypes, s) || typeIdent(s)
		}
		s = rest
	}
	return false
}

// typeIdent accepts a C# type name, possibly namespace-qualified.
func typeIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || r == '_':
		case (unicode.IsDigit(r) || r == '.') && i > 0:
		default:
			return false
		}
	}
	return !strings.HasSuffix(s, ".")
}

func (p *parser) ulinkrpc(v any) {
	m, ok := p.table("ulinkrpc", v, "service", "type")
	if !ok {
		return
	}
	if sv, ok := m["service"]; ok {
		ss, _ := p.list("ulinkrpc.service", sv)
		ids := map[int32]int{}
		for i, x := range ss {
			key := index("ulinkrpc.service", i)
			s := p.service(key, x)
			if s == nil {
				continue
			}
			if line, dup := ids[s.ID]; dup {
				p.errorf(join(key, "id"), "service id %d already defined at line %d", s.ID, line)
			}
			ids[s.ID] = s.Line
			p.f.ULinkRPC.Services = append(p.f.ULinkRPC.Services, s)
		}
	}
	if tv, ok := m["type"]; ok {
		ts, _ := p.list("ulinkrpc.type", tv)
		names := map[string]int{}
		for i, x := range ts {
			key := index("ulinkrpc.type", i)
			d := p.dto(key, x)
			if d == nil {
				continue
			}
			if line, dup := names[d.Name]; dup {
				p.errorf(join(key, "name"), "type %q already defined at line %d", d.Name, line)
			}
			names[d.Name] = d.Line
			p.f.ULinkRPC.Types = append(p.f.ULinkRPC.Types, d)
		}
	}
}

// id reads a service, method or push id: a signed 32-bit integer in the
// envelope (ulinkrpc.md section 8).
func (p *parser) id(m map[string]any, key string) int32 {
	n, _ := p.integer(m, key, "id", math.MinInt32, math.MaxInt32, true)
	return int32(n)
}

// memberType reads a type-valued key and checks its spelling.
func (p *parser) memberType(m map[string]any, key, name string, required bool) string {
	s := p.str(m, key, name, required)
	if s != "" && !ValidMemberType(s) {
		p.errorf(join(key, name), "%q is not a MemoryPack member type (%s, list:T or a type name)", s, strings.Join(memoryPackTypes, " "))
	}
	return s
}

func (p *parser) service(key string, v any) *Service {
	m, ok := p.table(key, v, "id", "name", "method", "push")
	if !ok {
		return nil
	}
	s := &Service{ID: p.id(m, key), Name: p.str(m, key, "name", true), Line: p.line(key)}
	p.name(join(key, "name"), s.Name)
	if mv, ok := m["method"]; ok {
		ms, _ := p.list(join(key, "method"), mv)
		ids := map[int32]bool{}
		for i, x := range ms {
			mk := index(join(key, "method"), i)
			mm, ok := p.table(mk, x, "id", "name", "request", "reply")
			if !ok {
				continue
			}
			sm := &ServiceMethod{ID: p.id(mm, mk), Name: p.str(mm, mk, "name", true), Line: p.line(mk),
				Request: p.memberType(mm, mk, "request", false), Reply: p.memberType(mm, mk, "reply", false)}
			p.name(join(mk, "name"), sm.Name)
			if ids[sm.ID] {
				p.errorf(join(mk, "id"), "method id %d used twice in service %q", sm.ID, s.Name)
			}
			ids[sm.ID] = true
			s.Methods = append(s.Methods, sm)
		}
	}
	if pv, ok := m["push"]; ok {
		ps, _ := p.list(join(key, "push"), pv)
		ids := map[int32]bool{}
		for i, x := range ps {
			pk := index(join(key, "push"), i)
			pm, ok := p.table(pk, x, "id", "name", "arg")
			if !ok {
				continue
			}
			pu := &Push{ID: p.id(pm, pk), Name: p.str(pm, pk, "name", true), Arg: p.memberType(pm, pk, "arg", false), Line: p.line(pk)}
			p.name(join(pk, "name"), pu.Name)
			if ids[pu.ID] {
				p.errorf(join(pk, "id"), "push id %d used twice in service %q", pu.ID, s.Name)
			}
			ids[pu.ID] = true
			s.Pushes = append(s.Pushes, pu)
		}
	}
	return s
}

func (p *parser) dto(key string, v any) *DTO {
	m, ok := p.table(key, v, "name", "version_tolerant", "members")
	if !ok {
		return nil
	}
	d := &DTO{Name: p.str(m, key, "name", true), VersionTolerant: p.boolean(m, key, "version_tolerant"), Line: p.line(key)}
	if d.Name != "" && !typeIdent(d.Name) {
		p.errorf(join(key, "name"), "%q is not a type name", d.Name)
	}
	mv, ok := m["members"]
	if !ok {
		return d
	}
	ms, _ := p.list(join(key, "members"), mv)
	orders, names := map[int]bool{}, map[string]bool{}
	for i, x := range ms {
		mk := index(join(key, "members"), i)
		mm, ok := p.table(mk, x, "order", "name", "type")
		if !ok {
			continue
		}
		o, _ := p.integer(mm, mk, "order", 0, maxMemberOrder, true)
		me := &Member{Order: int(o), Name: p.str(mm, mk, "name", true), Type: p.memberType(mm, mk, "type", true), Line: p.line(mk)}
		p.name(join(mk, "name"), me.Name)
		if orders[me.Order] {
			p.errorf(join(mk, "order"), "order %d used twice in %q", me.Order, d.Name)
		}
		if names[me.Name] {
			p.errorf(join(mk, "name"), "member %q listed twice in %q", me.Name, d.Name)
		}
		orders[me.Order], names[me.Name] = true, true
		d.Members = append(d.Members, me)
	}
	// MemoryPack writes members in order; keep them sorted so a decoder
	// can walk them as the wire has them.
	slices.SortStableFunc(d.Members, func(a, b *Member) int { return a.Order - b.Order })
	return d
}
