package ulinkrpc

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// Contracts are the names of ulinkrpc.md 6 read from C# contract sources
// or a schema: services with their methods and pushes, and DTO types.
type Contracts struct {
	Services []Service
	Types    []DTO
}

// Service is an [RpcService] interface.
type Service struct {
	ID       int32
	Name     string
	Callback string   // the callback / notification interface, "" if none
	Methods  []Method // [RpcMethod]
	Pushes   []Method // [RpcPush] / [RpcNotification] of the callback, keyed by this service's id
}

// Method is one method or push: its id, name and DTO types. For a push
// Request is the argument type (schema.md `arg`) and Reply is empty; a void
// method has an empty Reply.
type Method struct {
	ID      int32
	Name    string
	Request string
	Reply   string
}

// SourceFile is one C# file: a name for errors and its text.
type SourceFile struct {
	Name string
	Text []byte
}

// ContractError is a problem in a contract source, with its place.
type ContractError struct {
	File   string
	Line   int
	Detail string
}

func (e *ContractError) Error() string {
	return fmt.Sprintf("ulinkrpc contracts: %s:%d: %s", e.File, e.Line, e.Detail)
}

// Lookup names a frame: a Request by (service_id, method_id) among the
// methods, a Push among the pushes of the service that owns the callback
// (ulinkrpc.md 5: ids overlap, so the frame type is part of the key).
func (c *Contracts) Lookup(t FrameType, serviceID, methodID int32) (*Service, *Method) {
	for i := range c.Services {
		s := &c.Services[i]
		if s.ID != serviceID {
			continue
		}
		list := s.Methods
		if t == Push {
			list = s.Pushes
		}
		for j := range list {
			if list[j].ID == methodID {
				return s, &list[j]
			}
		}
		return s, nil
	}
	return nil, nil
}

// DTOs indexes the types by name.
func (c *Contracts) DTOs() DTOs {
	m := make(DTOs, len(c.Types))
	for i := range c.Types {
		m[c.Types[i].Name] = &c.Types[i]
	}
	return m
}

// Bounds of the contract sources ParseContractsFS reads: contract folders
// are often third-party repositories, so they are input, not trusted code
// (issue 29).
const (
	// MaxContractBytes is the most bytes of *.cs files read in all.
	MaxContractBytes = 64 << 20
	// MaxTypeDepth is the deepest nesting of generic arguments and arrays
	// in one type (List<List<int>>[] is 3).
	MaxTypeDepth = 32
)

// ParseContractsFS reads every *.cs file under root of fsys (for
// `--contracts DIR`, an os.Root's FS, which refuses symlinks leaving the
// folder), in lexical order. Only regular files are read, and a symlink
// only to one: a FIFO would block and a device never end. The files hold at
// most MaxContractBytes together.
func ParseContractsFS(fsys fs.FS, root string) (*Contracts, error) {
	return parseContractsFS(fsys, root, MaxContractBytes)
}

func parseContractsFS(fsys fs.FS, root string, maxBytes int64) (*Contracts, error) {
	var files []SourceFile
	total := int64(0)
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".cs" {
			return err
		}
		if !d.Type().IsRegular() {
			st, err := fs.Stat(fsys, p) // a symlink: where it leads, within the root
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if !st.Mode().IsRegular() {
				return fmt.Errorf("%s: not a regular file (%s)", p, st.Mode().Type())
			}
		}
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		b, err := io.ReadAll(io.LimitReader(f, maxBytes-total+1))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if total += int64(len(b)); total > maxBytes {
			return fmt.Errorf("%s: the *.cs files hold more than %d bytes together", p, maxBytes)
		}
		files = append(files, SourceFile{Name: p, Text: b})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ulinkrpc contracts: %w", err)
	}
	return ParseContracts(files)
}

// ParseContracts reads service interfaces, callback interfaces and
// [MemoryPackable] DTOs from C# sources (ulinkrpc.md 6): both attribute
// spellings (Callback/RpcCallback/RpcPush and
// NotificationContract/RpcNotificationContract/RpcNotification), ids as
// integer literals or `const int` names, possibly nested
// (RpcContractIds.Services.Player) and defined in any of the files. It
// returns what it could read and every problem, joined.
func ParseContracts(files []SourceFile) (*Contracts, error) {
	p := &csParser{consts: map[string]*csConst{}, cur: csScope{dto: -1}}
	for _, f := range files {
		p.file = f.Name
		if !utf8.Valid(f.Text) {
			line, i := 1, 0
			for i < len(f.Text) {
				r, n := utf8.DecodeRune(f.Text[i:])
				if r == utf8.RuneError && n <= 1 {
					break
				}
				if r == '\n' {
					line++
				}
				i += n
			}
			p.errorf(line, "invalid UTF-8 at byte offset %d: C# sources are UTF-8; file skipped", i)
			continue
		}
		p.toks, p.pos = tokenize(string(f.Text)), 0
		p.block(nil, 0)
	}
	return p.resolve()
}

type csAttr struct {
	name string
	args [][]token
	line int
}

type csConst struct {
	scope []string
	expr  []token
	file  string
	line  int
	state uint8 // 0 new, 1 evaluating, 2 done
	val   int64
	err   error
}

type csIface struct {
	name    string
	attrs   []csAttr
	scope   []string
	file    string
	methods []csMethod
}

type csMethod struct {
	attrs    []csAttr
	name     string
	ret, arg string
	line     int
}

type csParser struct {
	file   string
	toks   []token
	pos    int
	consts map[string]*csConst
	ifaces []*csIface
	types  []DTO
	errs   []error
	cur    csScope
}

func (p *csParser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, &ContractError{File: p.file, Line: line, Detail: fmt.Sprintf(format, args...)})
}

func (p *csParser) peek() *token {
	if p.pos < len(p.toks) {
		return &p.toks[p.pos]
	}
	return nil
}

// skipBalanced moves past tokens from an opening bracket at pos to its
// match.
func (p *csParser) skipBalanced(open, close string) {
	depth := 0
	for ; p.pos < len(p.toks); p.pos++ {
		switch p.toks[p.pos].text {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				p.pos++
				return
			}
		}
	}
}

// attributes reads one [ ... ] section at pos.
func (p *csParser) attributes() []csAttr {
	start := p.pos
	p.skipBalanced("[", "]")
	inner := p.toks[start+1 : max(start+1, p.pos-1)]
	var out []csAttr
	for _, part := range splitTop(inner, ",") {
		if len(part) > 1 && part[1].text == ":" { // a target: [return: X]
			part = part[2:]
		}
		if len(part) == 0 {
			continue
		}
		a := csAttr{line: part[0].line}
		i := 0
		for ; i < len(part) && part[i].text != "("; i++ {
			if part[i].kind == tokIdent {
				a.name = part[i].text
			}
		}
		a.name = strings.TrimSuffix(a.name, "Attribute")
		if i < len(part) && part[len(part)-1].text == ")" {
			a.args = splitTop(part[i+1:len(part)-1], ",")
		}
		out = append(out, a)
	}
	return out
}

// splitTop splits tokens at sep outside brackets.
func splitTop(ts []token, sep string) [][]token {
	var out [][]token
	depth, start := 0, 0
	for i, t := range ts {
		switch t.text {
		case "(", "[", "<", "{":
			depth++
		case ")", "]", ">", "}":
			depth--
		case sep:
			if depth == 0 {
				out = append(out, ts[start:i])
				start = i + 1
			}
		}
	}
	if start < len(ts) {
		out = append(out, ts[start:])
	}
	return out
}

var typeKeywords = map[string]bool{"class": true, "struct": true, "interface": true, "record": true, "enum": true, "namespace": true}

// block parses declarations until the closing brace of the current scope
// (or the end of the file); scope names the enclosing types, for consts.
func (p *csParser) block(scope []string, depth int) {
	if depth > 64 {
		p.errorf(p.toks[min(p.pos, len(p.toks)-1)].line, "declarations nested deeper than 64")
		p.pos = len(p.toks)
		return
	}
	var attrs []csAttr
	for p.pos < len(p.toks) {
		t := p.peek()
		switch t.text {
		case "}":
			p.pos++
			return
		case "[":
			attrs = append(attrs, p.attributes()...)
			continue
		case ";":
			p.pos++
			attrs = nil
			continue
		}
		start := p.pos
		paren := 0
		for p.pos < len(p.toks) {
			x := p.toks[p.pos].text
			if paren == 0 && (x == ";" || x == "{" || x == "}") {
				break
			}
			switch x {
			case "(", "[":
				paren++
			case ")", "]":
				paren--
			}
			p.pos++
		}
		stmt := p.toks[start:p.pos]
		end := p.peek()
		if end == nil || end.text == "}" {
			return // an enum's members, or the end of the file
		}
		p.pos++
		kw, name := declName(stmt)
		switch {
		case end.text == "{" && kw == "namespace":
			p.block(scope, depth+1) // namespaces do not qualify const names here
		case end.text == "{" && kw != "":
			p.typeDecl(kw, name, attrs, scope, depth)
		case end.text == "{":
			// A property's accessors or a method body; an initializer may
			// follow (`{ get; set; } = "";`).
			p.pos--
			p.skipBalanced("{", "}")
			p.member(stmt, attrs, scope)
			if n := p.peek(); n != nil && n.text == "=" {
				for p.pos < len(p.toks) && p.toks[p.pos].text != ";" {
					p.pos++
				}
			}
		default:
			p.member(stmt, attrs, scope)
		}
		attrs = nil
	}
}

// declName finds `class|struct|interface|record|enum|namespace NAME` in a
// statement before any parenthesis or `=`.
func declName(stmt []token) (string, string) {
	for i, t := range stmt {
		if t.text == "(" || t.text == "=" {
			return "", ""
		}
		if t.kind == tokIdent && typeKeywords[t.text] {
			kw := t.text
			for _, n := range stmt[i+1:] {
				if n.kind == tokIdent && n.text != "class" && n.text != "struct" {
					return kw, n.text // record class X, record struct X
				}
			}
			return kw, ""
		}
	}
	return "", ""
}

// csScope is the type being read, whose members join it.
type csScope struct {
	iface *csIface
	dto   int // index in types, -1 when not in a DTO
	order int // the next member's implicit order
}

func (p *csParser) typeDecl(kw, name string, attrs []csAttr, scope []string, depth int) {
	inner := append(slices.Clone(scope), name)
	saved := p.cur
	p.cur = csScope{dto: -1}
	switch {
	case kw == "interface":
		p.cur.iface = &csIface{name: name, attrs: attrs, scope: scope, file: p.file}
		p.ifaces = append(p.ifaces, p.cur.iface)
	case hasAttr(attrs, "MemoryPackable") && kw != "enum":
		dto := DTO{Name: name}
		for _, a := range attrs {
			if a.name == "MemoryPackable" {
				for _, arg := range a.args {
					for _, t := range arg {
						dto.VersionTolerant = dto.VersionTolerant || t.text == "VersionTolerant"
					}
				}
			}
		}
		p.types = append(p.types, dto)
		p.cur.dto = len(p.types) - 1
	}
	p.block(inner, depth+1)
	p.cur = saved
}

func hasAttr(attrs []csAttr, name string) bool {
	return slices.ContainsFunc(attrs, func(a csAttr) bool { return a.name == name })
}

func findAttr(attrs []csAttr, names ...string) *csAttr {
	for i := range attrs {
		if slices.Contains(names, attrs[i].name) {
			return &attrs[i]
		}
	}
	return nil
}

var csModifiers = map[string]bool{"public": true, "private": true, "internal": true, "protected": true, "readonly": true,
	"required": true, "virtual": true, "override": true, "new": true, "sealed": true, "abstract": true, "partial": true,
	"unsafe": true, "volatile": true, "async": true, "extern": true}

// member reads a const, an interface method or a DTO field or property.
func (p *csParser) member(stmt []token, attrs []csAttr, scope []string) {
	if len(stmt) == 0 {
		return
	}
	line := stmt[0].line
	if typeDepth(stmt) > MaxTypeDepth {
		p.errorf(line, "a type nested deeper than %d generic arguments and arrays: member skipped", MaxTypeDepth)
		return
	}
	if i := slices.IndexFunc(stmt, func(t token) bool { return t.text == "const" }); i >= 0 {
		// const TYPE NAME = EXPR (one declarator; more are split on commas)
		rest := stmt[i+1:]
		for _, decl := range splitTop(rest[min(1, len(rest)):], ",") {
			if len(decl) >= 3 && decl[0].kind == tokIdent && decl[1].text == "=" {
				p.consts[strings.Join(append(slices.Clone(scope), decl[0].text), ".")] =
					&csConst{scope: scope, expr: decl[2:], file: p.file, line: line}
			}
		}
		return
	}
	var words []token
	for _, t := range stmt {
		if !(t.kind == tokIdent && (csModifiers[t.text] || t.text == "static")) {
			words = append(words, t)
		}
	}
	static := slices.ContainsFunc(stmt, func(t token) bool { return t.text == "static" })
	lp := slices.IndexFunc(words, func(t token) bool { return t.text == "(" })
	if p.cur.iface != nil && lp > 0 {
		m := csMethod{attrs: attrs, name: words[lp-1].text, ret: typeText(words[:lp-1]), line: line}
		if rp := len(words) - 1; rp > lp && words[rp].text == ")" {
			for _, param := range splitTop(words[lp+1:rp], ",") {
				if ty := typeText(param[:max(0, len(param)-1)]); ty != "" && ty != "CancellationToken" && m.arg == "" {
					m.arg = ty
				}
			}
		}
		p.cur.iface.methods = append(p.cur.iface.methods, m)
		return
	}
	if p.cur.dto < 0 || lp >= 0 || static || hasAttr(attrs, "MemoryPackIgnore") {
		return
	}
	public := slices.ContainsFunc(stmt, func(t token) bool { return t.text == "public" })
	if !public && !hasAttr(attrs, "MemoryPackInclude") && !hasAttr(attrs, "MemoryPackOrder") {
		return
	}
	if eq := slices.IndexFunc(words, func(t token) bool { return t.text == "=" || t.text == "=>" }); eq >= 0 {
		words = words[:eq]
	}
	if len(words) < 2 || words[len(words)-1].kind != tokIdent {
		return
	}
	dto := &p.types[p.cur.dto]
	m := DTOMember{Order: p.cur.order, Name: words[len(words)-1].text, Type: typeText(words[:len(words)-1])}
	if a := findAttr(attrs, "MemoryPackOrder"); a != nil && len(a.args) == 1 {
		if v, err := p.evalInt(a.args[0], scope, 0); err == nil {
			m.Order = int(v)
		} else {
			p.errorf(line, "%s.%s: MemoryPackOrder: %v", dto.Name, m.Name, err)
		}
	}
	p.cur.order++
	dto.Members = append(dto.Members, m)
}

// csTypes maps C# type names to schema.md's.
var csTypes = map[string]string{
	"bool": "bool", "Boolean": "bool", "byte": "byte", "Byte": "byte", "sbyte": "sbyte", "SByte": "sbyte",
	"short": "short", "Int16": "short", "ushort": "ushort", "UInt16": "ushort", "int": "int", "Int32": "int",
	"uint": "uint", "UInt32": "uint", "long": "long", "Int64": "long", "ulong": "ulong", "UInt64": "ulong",
	"float": "float", "Single": "float", "double": "double", "Double": "double", "string": "string", "String": "string",
}

var csLists = map[string]bool{"List": true, "IList": true, "IReadOnlyList": true, "ICollection": true, "IReadOnlyCollection": true, "IEnumerable": true}

// typeText turns a C# type's tokens into schema.md's spelling: built-in
// names, list:T for arrays and lists, the last segment of a qualified name,
// ValueTask<T> and Task<T> as T, ValueTask, Task and void as "".
func typeText(ts []token) string {
	if typeDepth(ts) > MaxTypeDepth {
		return "" // normType's work grows with the square of the depth
	}
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.text)
	}
	return normType(strings.ReplaceAll(b.String(), "global::", ""))
}

func normType(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '<'); i >= 0 && strings.HasSuffix(s, ">") {
		outer := s[:i]
		if j := strings.LastIndexByte(outer, '.'); j >= 0 {
			outer = outer[j+1:]
		}
		inner := s[i+1 : len(s)-1]
		switch {
		case outer == "ValueTask" || outer == "Task":
			return normType(inner)
		case csLists[outer]:
			return "list:" + normType(inner)
		}
		return outer + "<" + inner + ">"
	}
	if strings.HasSuffix(s, "[]") {
		return "list:" + normType(s[:len(s)-2])
	}
	if strings.HasSuffix(s, "?") {
		inner := normType(s[:len(s)-1])
		if _, fixed := mpFixed[inner]; fixed {
			return inner + "?" // Nullable<T>: raw memory, not read by this package
		}
		return inner
	}
	if j := strings.LastIndexByte(s, '.'); j >= 0 {
		s = s[j+1:]
	}
	switch s {
	case "ValueTask", "Task", "void":
		return ""
	}
	if v, ok := csTypes[s]; ok {
		return v
	}
	return s
}

// typeDepth is the deepest nesting of generic arguments and array ranks in
// the types of ts: each < opens a level until its >, each [ adds a level
// (int[][] is 2 deep) until the next parameter or the end of the type.
func typeDepth(ts []token) int {
	generic, ranks, deepest := 0, 0, 0
	for _, t := range ts {
		for i := 0; i < len(t.text); i++ {
			switch t.text[i] {
			case '<':
				generic++
			case '>':
				generic--
			case '[':
				ranks++
			case ',', '(', ')':
				if generic <= 0 {
					ranks = 0
				}
			}
			deepest = max(deepest, generic+ranks)
		}
	}
	return deepest
}
