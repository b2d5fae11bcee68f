package filter

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
)

// Filter is a compiled message filter: the small expression language that
// `usmnscope dump --filter` and the TUI's filter box share. A nil *Filter
// (the result of an empty expression) matches every message.
//
// Grammar (precedence from loose to tight):
//
//	expr    = and { "||" and }
//	and     = unary { "&&" unary }
//	unary   = "!" unary | "(" expr ")" | test
//	test    = FIELD OP VALUE | WORD
//	OP      = "==" | "!=" | "~" | "<" | "<=" | ">" | ">="
//
// Wireshark's words are accepted for the operators: eq ne lt le gt ge,
// contains (~), and (&&), or (||), not (!).
//
// A VALUE is a bare word or a quoted string ("…" or '…', with Go escapes).
// A bare WORD on its own is c2s/s2c (the direction), widened, or else a
// case-insensitive substring of the message name, so `InvokeMessageListener`
// and `Negotiate` work as filters. String comparisons are case-insensitive;
// `~` is a substring test. Numbers are decimal or 0x hex.
type Filter struct {
	expr         string
	root         filterNode
	needsMessage bool // a test reads more than the message's Head
}

// Error is a syntax or meaning error in a filter expression. Pos is
// the byte offset of the bad part in the expression and Len its length in
// bytes (at least 1), so an editor can underline it.
type Error struct {
	Expr string
	Pos  int
	Len  int
	Msg  string
}

// Error shows the expression with a caret line under the bad part, e.g.
//
//	filter: unknown field "lisener" at 1
//	  lisener~Chat
//	  ^^^^^^^
//
// The position in the first line is 1-based; the expression is escaped so
// that a pasted control character cannot disturb the terminal.
func (e *Error) Error() string {
	pos := min(max(e.Pos, 0), len(e.Expr))
	n := max(e.Len, 1)
	pre := termsafe.Escape(e.Expr[:pos])
	bad := termsafe.Escape(e.Expr[pos:min(pos+n, len(e.Expr))])
	width := max(utf8.RuneCountInString(bad), 1)
	return fmt.Sprintf("filter: %s at %d\n  %s\n  %s%s", e.Msg, pos+1, termsafe.Escape(e.Expr),
		strings.Repeat(" ", utf8.RuneCountInString(pre)), strings.Repeat("^", width))
}

// Parse compiles expr. An expression of only spaces gives a nil
// *Filter, which matches everything. Errors are *Error.
func Parse(expr string) (*Filter, error) {
	p := &filterParser{expr: expr}
	if err := p.lex(); err != nil {
		return nil, err
	}
	if len(p.toks) == 1 { // only the end token
		return nil, nil
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEnd {
		return nil, p.errAt(t, "unexpected %s", t.describe())
	}
	return &Filter{expr: expr, root: n, needsMessage: p.needsMessage}, nil
}

// String returns the expression the filter was compiled from.
func (f *Filter) String() string {
	if f == nil {
		return ""
	}
	return f.expr
}

// Match reports whether m passes the filter. A nil filter matches any
// non-nil message.
func (f *Filter) Match(m *session.Message) bool {
	if m == nil {
		return false
	}
	if f == nil {
		return true
	}
	h := m.Head()
	return f.root.match(&subject{h: &h, m: m})
}

// HeadOnly reports whether the filter tests only what a message's index
// record holds (n, conn, dir, msg and severity, and bare words naming a
// direction or a message), so MatchHead decides without the message's bytes.
// A nil filter is HeadOnly.
func (f *Filter) HeadOnly() bool { return f == nil || !f.needsMessage }

// MatchHead reports whether a message with head h passes a HeadOnly filter.
// A filter that is not HeadOnly matches nothing here: use Match.
func (f *Filter) MatchHead(h session.Head) bool {
	if f == nil {
		return true
	}
	if f.needsMessage {
		return false
	}
	return f.root.match(&subject{h: &h})
}

// subject is what a compiled filter tests: a message's Head, and the
// message itself unless the filter is HeadOnly.
type subject struct {
	h *session.Head
	m *session.Message
}

// filterNode is one node of a compiled filter.
type filterNode interface{ match(*subject) bool }

type (
	orNode  struct{ a, b filterNode }
	andNode struct{ a, b filterNode }
	notNode struct{ a filterNode }
	// testNode is a compiled FIELD OP VALUE.
	testNode struct{ fn func(*subject) bool }
)

func (n orNode) match(s *subject) bool   { return n.a.match(s) || n.b.match(s) }
func (n andNode) match(s *subject) bool  { return n.a.match(s) && n.b.match(s) }
func (n notNode) match(s *subject) bool  { return !n.a.match(s) }
func (n testNode) match(s *subject) bool { return n.fn(s) }

// Tokens.

type tokKind uint8

const (
	tokEnd tokKind = iota
	tokWord
	tokString // quoted
	tokOp     // comparison operator
	tokAnd
	tokOr
	tokNot
	tokLParen
	tokRParen
)

type token struct {
	kind tokKind
	text string // the word, the unquoted string or the operator
	pos  int    // byte offset in the expression
	len  int    // byte length in the expression
}

func (t token) describe() string {
	switch t.kind {
	case tokEnd:
		return "end of expression"
	case tokWord:
		return fmt.Sprintf("word %q", t.text)
	case tokString:
		return fmt.Sprintf("string %q", t.text)
	default:
		return fmt.Sprintf("%q", t.text)
	}
}

type filterParser struct {
	expr         string
	toks         []token
	i            int
	needsMessage bool // a compiled test reads more than the Head
}

// operators in the order the lexer tries them: two-character ones first.
var filterOps = []struct {
	text string
	kind tokKind
}{
	{"&&", tokAnd}, {"||", tokOr}, {"==", tokOp}, {"!=", tokOp}, {"<=", tokOp}, {">=", tokOp},
	{"<", tokOp}, {">", tokOp}, {"~", tokOp}, {"!", tokNot}, {"(", tokLParen}, {")", tokRParen},
}

// isWordByte reports bytes that may appear in a bare word: anything but
// space, quotes and the operator characters, so that connection strings
// ("[::1]:27016"), dotted type names and negative numbers are bare words.
func isWordByte(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '&', '|', '=', '!', '<', '>', '~', '(', ')':
		return false
	}
	return true
}

func (p *filterParser) lex() error {
	s := p.expr
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		if c == '"' || c == '\'' {
			j, text, err := p.lexString(i)
			if err != nil {
				return err
			}
			p.toks = append(p.toks, token{kind: tokString, text: text, pos: i, len: j - i})
			i = j
			continue
		}
		if isWordByte(c) {
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			p.toks = append(p.toks, token{kind: tokWord, text: s[i:j], pos: i, len: j - i})
			i = j
			continue
		}
		matched := false
		for _, op := range filterOps {
			if strings.HasPrefix(s[i:], op.text) {
				p.toks = append(p.toks, token{kind: op.kind, text: op.text, pos: i, len: len(op.text)})
				i += len(op.text)
				matched = true
				break
			}
		}
		if !matched { // a lone '&', '|' or '='
			hint := ""
			switch c {
			case '&':
				hint = " (did you mean \"&&\"?)"
			case '|':
				hint = " (did you mean \"||\"?)"
			case '=':
				hint = " (did you mean \"==\"?)"
			}
			return &Error{Expr: s, Pos: i, Len: 1, Msg: fmt.Sprintf("unexpected %q%s", c, hint)}
		}
	}
	p.toks = append(p.toks, token{kind: tokEnd, pos: len(s)})
	p.wordOps()
	return nil
}

// wordAliases are the operators as Wireshark's display filters also spell
// them (issue 30): `msg eq Ping and not n gt 3`, `method contains Login`.
var wordAliases = map[string]token{
	"eq": {kind: tokOp, text: "=="}, "ne": {kind: tokOp, text: "!="},
	"lt": {kind: tokOp, text: "<"}, "le": {kind: tokOp, text: "<="},
	"gt": {kind: tokOp, text: ">"}, "ge": {kind: tokOp, text: ">="},
	"contains": {kind: tokOp, text: "~"},
	"and":      {kind: tokAnd, text: "&&"}, "or": {kind: tokOr, text: "||"},
	"not": {kind: tokNot, text: "!"},
}

// wordOps turns the words of wordAliases into their operators where an
// operator stands: a comparison word right after a field name, "and" and
// "or" after a test or ")", "not" where a test may start. Elsewhere (a
// value: `method == and`) a word stays a word.
func (p *filterParser) wordOps() {
	for i := range p.toks {
		t := &p.toks[i]
		if t.kind != tokWord {
			continue
		}
		alias, ok := wordAliases[strings.ToLower(t.text)]
		if !ok {
			continue
		}
		prev := func(k int) tokKind {
			if i-k < 0 {
				return tokEnd
			}
			return p.toks[i-k].kind
		}
		// A word or string after an operator is a value; one after
		// anything else starts a test (a field, or a bare word).
		afterOperand := (prev(1) == tokWord || prev(1) == tokString) || prev(1) == tokRParen
		afterField := (prev(1) == tokWord) && prev(2) != tokOp
		var use bool
		switch alias.kind {
		case tokOp:
			use = afterField
		case tokAnd, tokOr:
			use = afterOperand
		case tokNot:
			use = !afterOperand && prev(1) != tokOp
		}
		if use {
			t.kind, t.text = alias.kind, alias.text
		}
	}
}

// lexString reads a quoted string starting at i and returns the offset after
// its closing quote and its unquoted text.
func (p *filterParser) lexString(i int) (int, string, error) {
	s := p.expr
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			raw := s[i : j+1]
			if q == '\'' {
				raw = `"` + strings.ReplaceAll(raw[1:len(raw)-1], `"`, `\"`) + `"`
			}
			text, err := strconv.Unquote(raw)
			if err != nil {
				return 0, "", &Error{Expr: s, Pos: i, Len: j + 1 - i, Msg: "bad escape in string"}
			}
			return j + 1, text, nil
		}
	}
	return 0, "", &Error{Expr: s, Pos: i, Len: len(s) - i, Msg: "unterminated string"}
}

func (p *filterParser) peek() token { return p.toks[p.i] }

func (p *filterParser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEnd {
		p.i++
	}
	return t
}

func (p *filterParser) errAt(t token, format string, args ...any) error {
	return &Error{Expr: p.expr, Pos: t.pos, Len: max(t.len, 1), Msg: fmt.Sprintf(format, args...)}
}

func (p *filterParser) or() (filterNode, error) {
	a, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tokOr {
		p.next()
		b, err := p.and()
		if err != nil {
			return nil, err
		}
		a = orNode{a, b}
	}
	return a, nil
}

func (p *filterParser) and() (filterNode, error) {
	a, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tokAnd {
		p.next()
		b, err := p.unary()
		if err != nil {
			return nil, err
		}
		a = andNode{a, b}
	}
	return a, nil
}

func (p *filterParser) unary() (filterNode, error) {
	t := p.next()
	switch t.kind {
	case tokNot:
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		return notNode{a}, nil
	case tokLParen:
		a, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tokRParen {
			return nil, p.errAt(c, "expected \")\" to close \"(\" at %d, found %s", t.pos+1, c.describe())
		}
		return a, nil
	case tokWord, tokString:
		if op := p.peek(); op.kind == tokOp {
			p.next()
			v := p.next()
			if v.kind != tokWord && v.kind != tokString {
				return nil, p.errAt(v, "expected a value after %q, found %s", op.text, v.describe())
			}
			return p.test(t, op, v)
		}
		return p.bare(t)
	default:
		return nil, p.errAt(t, "expected a field or word, found %s", t.describe())
	}
}

// bare compiles a lone word (see Filter).
func (p *filterParser) bare(t token) (filterNode, error) {
	w := strings.ToLower(t.text)
	switch w {
	case "c2s":
		return testNode{func(s *subject) bool { return s.h.Dir == dissect.C2S }}, nil
	case "s2c":
		return testNode{func(s *subject) bool { return s.h.Dir == dissect.S2C }}, nil
	case "widened":
		p.needsMessage = true
		return testNode{func(s *subject) bool { return s.m.Enum.Widened }}, nil
	}
	if _, ok := filterFields[w]; ok && t.kind == tokWord {
		return nil, p.errAt(t, "field %q needs an operator and a value (e.g. %s)", t.text, filterFields[w].example)
	}
	return testNode{func(s *subject) bool { return containsFold(headName(s.h), w) }}, nil
}

// test compiles FIELD OP VALUE through the field table.
func (p *filterParser) test(f, op, v token) (filterNode, error) {
	if f.kind != tokWord {
		return nil, p.errAt(f, "expected a field name before %q, found %s", op.text, f.describe())
	}
	if isPayloadField(f.text) {
		return p.payloadTest(f, op, v)
	}
	def, ok := filterFields[strings.ToLower(f.text)]
	if !ok {
		return nil, p.errAt(f, "unknown field %q (fields: %s)", f.text, filterFieldList)
	}
	if strings.EqualFold(f.text, "proto") {
		def.choices = protoNames() // the registered protocols now
	}
	if !strings.Contains(def.kind.ops(), " "+op.text+" ") {
		return nil, p.errAt(op, "operator %q does not apply to %s field %q (use %s)", op.text, def.kind, f.text, strings.TrimSpace(def.kind.ops()))
	}
	return def.compile(p, op, v)
}

// Field kinds and their operators.

type fieldKind uint8

const (
	fieldString fieldKind = iota
	fieldNumber
	fieldChoice // a string with a fixed set of values (dir, group, …)
	fieldOrdered
	fieldBool
	fieldDuration // nanoseconds, given as a Go duration (1.5ms) or a number of nanoseconds
)

var fieldKindNames = [...]string{fieldString: "text", fieldNumber: "number", fieldChoice: "choice", fieldOrdered: "ordered", fieldBool: "boolean", fieldDuration: "duration"}

func (k fieldKind) String() string { return enum.Name(fieldKindNames[:], k) }

// ops lists the operators a kind accepts, space-delimited on both ends.
func (k fieldKind) ops() string {
	switch k {
	case fieldString:
		return " == != ~ "
	case fieldNumber, fieldOrdered, fieldDuration:
		return " == != < <= > >= "
	case fieldChoice:
		return " == != ~ "
	default:
		return " == != "
	}
}

// filterField describes one filterable field: how to read it from a message
// and the values it accepts.
type filterField struct {
	kind    fieldKind
	example string
	// str returns the field's string values (several for group: one per
	// finding); num returns numbers (id: both IDs); ok false means absent.
	str func(*session.Message) []string
	num func(*session.Message) []int64
	// head, when set, reads the field from the message's Head instead:
	// the index record holds it, and no bytes need decoding.
	headStr func(*session.Head) []string
	headNum func(*session.Head) []int64
	choices []string // fieldChoice, fieldOrdered (in order)
	// known, when set, lists the values == and != accept (msg: the
	// message names), so a misspelt name is an error, not an empty list.
	known func(string) bool
}

// accessors returns the field's readers over a subject, and marks the
// parse as needing the message when the field is not in the Head.
func (d filterField) accessors(p *filterParser) (str func(*subject) []string, num func(*subject) []int64) {
	if d.headStr != nil || d.headNum != nil {
		hs, hn := d.headStr, d.headNum
		return func(s *subject) []string { return hs(s.h) }, func(s *subject) []int64 { return hn(s.h) }
	}
	p.needsMessage = true
	ms, mn := d.str, d.num
	return func(s *subject) []string { return ms(s.m) }, func(s *subject) []int64 { return mn(s.m) }
}

// compile turns an operator and a value into a test over the field.
func (d filterField) compile(p *filterParser, op, v token) (filterNode, error) {
	str, num := d.accessors(p)
	switch d.kind {
	case fieldNumber, fieldDuration:
		want, err := strconv.ParseInt(v.text, 0, 64)
		if d.kind == fieldDuration && err != nil {
			var dur time.Duration
			dur, err = time.ParseDuration(v.text)
			want = int64(dur)
		}
		if err != nil && d.kind == fieldDuration {
			return nil, p.errAt(v, "%q is not a duration (1.5ms, 2s, or nanoseconds)", v.text)
		}
		if err != nil {
			return nil, p.errAt(v, "%q is not a number", v.text)
		}
		cmp := numCmp[op.text]
		if op.text == "!=" { // "id != 5": no ID equals 5
			return testNode{func(s *subject) bool { return !anyNum(num(s), want, numCmp["=="]) }}, nil
		}
		return testNode{func(s *subject) bool { return anyNum(num(s), want, cmp) }}, nil
	case fieldBool:
		var want bool
		switch strings.ToLower(v.text) {
		case "true", "1", "yes":
			want = true
		case "false", "0", "no":
		default:
			return nil, p.errAt(v, "%q is not true or false", v.text)
		}
		if op.text == "!=" {
			want = !want
		}
		return testNode{func(s *subject) bool { return (len(str(s)) > 0) == want }}, nil
	case fieldOrdered:
		rank := -1
		for i, c := range d.choices {
			if strings.EqualFold(c, v.text) {
				rank = i
			}
		}
		if rank < 0 {
			return nil, p.errAt(v, "%q is not one of %s", v.text, strings.Join(d.choices, ", "))
		}
		cmp := numCmp[op.text]
		return testNode{func(s *subject) bool { return anyNum(num(s), int64(rank), cmp) }}, nil
	}
	want := strings.ToLower(v.text)
	if d.known != nil && op.text != "~" && !d.known(v.text) {
		return nil, p.errAt(v, "%q is not a message name (msg~ matches part of one)", v.text)
	}
	if d.kind == fieldChoice && op.text != "~" {
		known := false
		for _, c := range d.choices {
			known = known || strings.EqualFold(c, want)
		}
		if !known {
			return nil, p.errAt(v, "%q is not one of %s", v.text, strings.Join(d.choices, ", "))
		}
	}
	switch op.text {
	case "~":
		return testNode{func(s *subject) bool {
			for _, v := range str(s) {
				if containsFold(v, want) {
					return true
				}
			}
			return false
		}}, nil
	case "!=":
		return testNode{func(s *subject) bool { return !anyEqualFold(str(s), want) }}, nil
	default:
		return testNode{func(s *subject) bool { return anyEqualFold(str(s), want) }}, nil
	}
}

var numCmp = map[string]func(a, b int64) bool{
	"==": func(a, b int64) bool { return a == b },
	"!=": func(a, b int64) bool { return a != b },
	"<":  func(a, b int64) bool { return a < b },
	"<=": func(a, b int64) bool { return a <= b },
	">":  func(a, b int64) bool { return a > b },
	">=": func(a, b int64) bool { return a >= b },
}

func anyNum(vs []int64, want int64, cmp func(a, b int64) bool) bool {
	for _, v := range vs {
		if cmp(v, want) {
			return true
		}
	}
	return false
}

func anyEqualFold(vs []string, want string) bool {
	for _, v := range vs {
		if strings.EqualFold(v, want) {
			return true
		}
	}
	return false
}

// containsFold reports whether sub (already lower-case) is in s, ignoring case.
func containsFold(s, sub string) bool { return strings.Contains(strings.ToLower(s), sub) }
