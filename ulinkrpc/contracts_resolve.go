package ulinkrpc

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// resolve evaluates the ids and joins callbacks to their services.
func (p *csParser) resolve() (*Contracts, error) {
	c := &Contracts{Types: p.types}
	byName := map[string]*csIface{}
	for _, f := range p.ifaces {
		byName[f.name] = f
	}
	// The callback of each service, from either side's attribute.
	callbackOf := map[string]string{}
	for _, f := range p.ifaces {
		if a := findAttr(f.attrs, "RpcCallback", "RpcNotificationContract"); a != nil && len(a.args) == 1 {
			if svc := typeofName(a.args[0]); svc != "" {
				callbackOf[svc] = f.name
			}
		}
	}
	for _, f := range p.ifaces {
		a := findAttr(f.attrs, "RpcService")
		if a == nil {
			continue
		}
		p.file = f.file
		s := Service{Name: f.name, Callback: callbackOf[f.name]}
		for i, arg := range a.args {
			if len(arg) >= 2 && arg[1].text == "=" {
				switch arg[0].text {
				case "Callback", "NotificationContract":
					s.Callback = typeofName(arg[2:])
				case "ServiceId":
					s.ID = p.id(arg[2:], f.scope, a.line, f.name)
				}
				continue
			}
			if i == 0 {
				s.ID = p.id(arg, f.scope, a.line, f.name)
			}
		}
		s.Methods = p.methods(f, f.name, false)
		if cb := byName[s.Callback]; cb != nil {
			s.Pushes = p.methods(cb, f.name, true)
		} else if s.Callback != "" {
			p.errorf(a.line, "%s: callback interface %s not found", f.name, s.Callback)
		}
		c.Services = append(c.Services, s)
	}
	slices.SortStableFunc(c.Services, func(a, b Service) int { return int(a.ID) - int(b.ID) })
	return c, errors.Join(p.errs...)
}

// methods lists an interface's [RpcMethod] (or, for a callback, [RpcPush]
// and [RpcNotification]) methods.
func (p *csParser) methods(f *csIface, owner string, push bool) []Method {
	names := []string{"RpcMethod"}
	if push {
		names = []string{"RpcPush", "RpcNotification"}
	}
	p.file = f.file
	var out []Method
	for _, m := range f.methods {
		a := findAttr(m.attrs, names...)
		if a == nil {
			continue
		}
		if len(a.args) == 0 {
			p.errorf(m.line, "%s.%s: [%s] without an id", f.name, m.name, a.name)
			continue
		}
		meth := Method{ID: p.id(a.args[0], f.scope, m.line, owner+"."+m.name), Name: m.name, Request: m.arg}
		if !push {
			meth.Reply = m.ret
		}
		out = append(out, meth)
	}
	return out
}

// typeofName reads typeof(X) (or a bare X).
func typeofName(ts []token) string {
	var parts []token
	for _, t := range ts {
		if t.text != "typeof" && t.text != "(" && t.text != ")" {
			parts = append(parts, t)
		}
	}
	return typeText(parts)
}

func (p *csParser) id(expr []token, scope []string, line int, what string) int32 {
	v, err := p.evalInt(expr, scope, 0)
	if err == nil && (v < math.MinInt32 || v > math.MaxInt32) {
		err = fmt.Errorf("%d does not fit an int", v)
	}
	if err != nil {
		p.errorf(line, "%s: id: %v", what, err)
		return 0
	}
	return int32(v)
}

// evalInt evaluates an id: integer literals (decimal, hex, binary, with
// suffixes and separators), const names (qualified or not), casts,
// parentheses, unary minus and binary + and -.
func (p *csParser) evalInt(expr []token, scope []string, depth int) (int64, error) {
	if depth > 32 {
		return 0, errors.New("const definitions nested deeper than 32 (a cycle?)")
	}
	e := exprEval{p: p, toks: expr, scope: scope, depth: depth}
	v := e.sum()
	if e.err == nil && e.pos < len(e.toks) {
		e.err = fmt.Errorf("unexpected %q", e.toks[e.pos].text)
	}
	return v, e.err
}

type exprEval struct {
	p     *csParser
	toks  []token
	pos   int
	scope []string
	depth int
	err   error
}

func (e *exprEval) sum() int64 {
	v := e.unary()
	for e.err == nil && e.pos < len(e.toks) && (e.toks[e.pos].text == "+" || e.toks[e.pos].text == "-") {
		op := e.toks[e.pos].text
		e.pos++
		w := e.unary()
		if op == "+" {
			v += w
		} else {
			v -= w
		}
	}
	return v
}

func (e *exprEval) unary() int64 {
	if e.err != nil {
		return 0
	}
	if e.pos >= len(e.toks) {
		e.err = errors.New("missing value")
		return 0
	}
	t := e.toks[e.pos]
	switch {
	case t.text == "-":
		e.pos++
		return -e.unary()
	case t.text == "+":
		e.pos++
		return e.unary()
	case t.text == "(":
		// A cast (int) or a parenthesised sum.
		if e.pos+2 < len(e.toks) && e.toks[e.pos+2].text == ")" && e.toks[e.pos+1].kind == tokIdent && csTypes[e.toks[e.pos+1].text] != "" {
			e.pos += 3
			return e.unary()
		}
		e.pos++
		v := e.sum()
		if e.err == nil && (e.pos >= len(e.toks) || e.toks[e.pos].text != ")") {
			e.err = errors.New("missing )")
		}
		e.pos++
		return v
	case t.kind == tokNumber:
		e.pos++
		return e.number(t.text)
	case t.kind == tokIdent:
		name := t.text
		e.pos++
		for e.pos+1 < len(e.toks) && e.toks[e.pos].text == "." && e.toks[e.pos+1].kind == tokIdent {
			name += "." + e.toks[e.pos+1].text
			e.pos += 2
		}
		return e.name(name)
	}
	e.err = fmt.Errorf("unexpected %q", t.text)
	return 0
}

func (e *exprEval) number(s string) int64 {
	s = strings.ReplaceAll(strings.TrimRight(s, "uUlL"), "_", "")
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(s, 0, 64)
		if uerr != nil {
			e.err = fmt.Errorf("bad number %q", s)
			return 0
		}
		v = int64(u)
	}
	return v
}

// name resolves a const: the innermost enclosing scope that defines it
// wins, then a unique match of the dotted suffix anywhere.
func (e *exprEval) name(name string) int64 {
	p := e.p
	var c *csConst
	for i := len(e.scope); i >= 0 && c == nil; i-- {
		c = p.consts[strings.Join(append(slices.Clone(e.scope[:i]), name), ".")]
	}
	if c == nil {
		var found []string
		for k := range p.consts {
			if k == name || strings.HasSuffix(k, "."+name) {
				found = append(found, k)
			}
		}
		switch len(found) {
		case 0:
			e.err = fmt.Errorf("const %s not found", name)
			return 0
		case 1:
			c = p.consts[found[0]]
		default:
			slices.Sort(found)
			e.err = fmt.Errorf("const %s is ambiguous: %s", name, strings.Join(found, ", "))
			return 0
		}
	}
	switch c.state {
	case 1:
		e.err = fmt.Errorf("const %s refers to itself", name)
		return 0
	case 2:
		if c.err != nil {
			e.err = c.err
		}
		return c.val
	}
	c.state = 1
	c.val, c.err = p.evalInt(c.expr, c.scope, e.depth+1)
	c.state = 2
	if c.err != nil {
		e.err = c.err
	}
	return c.val
}
