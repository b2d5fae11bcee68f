package tomlcap

import (
	"fmt"
	"unicode/utf8"
)

// Limits are the bounds Check holds a file to.
type Limits struct {
	// MaxBytes is the largest file.
	MaxBytes int
	// MaxDepth is the deepest nesting of arrays and inline tables in a
	// value (a table header's brackets do not count).
	MaxDepth int
	// MaxKey is the longest key in bytes, every part of a dotted key and
	// its quotes and dots included, in a key/value pair, a table header or
	// an inline table.
	MaxKey int
}

// Default is what schema and profile files are held to: far past any real
// file (a schema nests at most 16 deep, schema.md), far below where the
// parser slows.
var Default = Limits{MaxBytes: 4 << 20, MaxDepth: 64, MaxKey: 1024}

// Error is a file past a bound: the file, the 1-based line where the shape
// passes it, and what it is.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Check returns nil when src (the file name, for errors) is within lim, and
// otherwise an *Error at the first place past a bound. It runs in time
// linear in len(src) and allocates only its nesting stack.
func Check(name string, src []byte, lim Limits) error {
	if lim.MaxBytes > 0 && len(src) > lim.MaxBytes {
		return &Error{File: name, Msg: fmt.Sprintf("larger than %d bytes", lim.MaxBytes)}
	}
	if !utf8.Valid(src) {
		line := 1
		for i := 0; i < len(src); {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				return &Error{File: name, Line: line, Msg: fmt.Sprintf("invalid UTF-8 (byte 0x%02x at byte offset %d): TOML files are UTF-8", src[i], i)}
			}
			if r == '\n' {
				line++
			}
			i += n
		}
	}
	s := scanner{src: src, line: 1, lim: lim, name: name}
	return s.run()
}

type scanner struct {
	src   []byte
	i     int
	line  int
	lim   Limits
	name  string
	stack []byte // the open '[' and '{' of values
}

func (s *scanner) fail(format string, args ...any) error {
	return &Error{File: s.name, Line: s.line, Msg: fmt.Sprintf(format, args...)}
}

func (s *scanner) run() error {
	keyCtx := true // a key may start here: a line's start outside values, after '{' or ',' in an inline table
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.line++
			s.i++
			if len(s.stack) == 0 {
				keyCtx = true
			}
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
		case c == '#':
			for s.i < len(s.src) && s.src[s.i] != '\n' {
				s.i++
			}
		case keyCtx && c == '[' && len(s.stack) == 0:
			// A table header: [key] or [[key]].
			s.i++
			if s.i < len(s.src) && s.src[s.i] == '[' {
				s.i++
			}
			if err := s.key(); err != nil {
				return err
			}
			keyCtx = false
		case keyCtx && c != '}' && c != ']':
			if err := s.key(); err != nil {
				return err
			}
			keyCtx = false
		case c == '"' || c == '\'':
			s.str()
		case c == '[' || c == '{':
			if s.lim.MaxDepth > 0 && len(s.stack) >= s.lim.MaxDepth {
				return s.fail("arrays and inline tables nested deeper than %d", s.lim.MaxDepth)
			}
			s.stack = append(s.stack, c)
			s.i++
			keyCtx = c == '{'
		case c == ']' || c == '}':
			if len(s.stack) > 0 {
				s.stack = s.stack[:len(s.stack)-1]
			}
			s.i++
			keyCtx = false
		case c == ',':
			s.i++
			keyCtx = len(s.stack) > 0 && s.stack[len(s.stack)-1] == '{'
		default:
			s.i++
		}
	}
	return nil
}

// key reads a key, dotted or not, from s.i and holds it to MaxKey.
func (s *scanner) key() error {
	start, line := s.i, s.line
	for {
		for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t') {
			s.i++
		}
		if s.i >= len(s.src) {
			break
		}
		switch c := s.src[s.i]; {
		case c == '"' || c == '\'':
			s.str()
		case bare(c):
			for s.i < len(s.src) && bare(s.src[s.i]) {
				s.i++
			}
		default:
			s.i++ // not a key: the parser says what it is
			return nil
		}
		if s.lim.MaxKey > 0 && s.i-start > s.lim.MaxKey {
			s.line = line
			return s.fail("key longer than %d bytes", s.lim.MaxKey)
		}
		for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t') {
			s.i++
		}
		if s.i >= len(s.src) || s.src[s.i] != '.' {
			break
		}
		s.i++
	}
	return nil
}

func bare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// str skips a string of any of TOML's four kinds from its opening quote,
// counting the lines of a multi-line one; an unterminated string ends at
// the end of its line (single-line) or of the file.
func (s *scanner) str() {
	q := s.src[s.i]
	if s.i+2 < len(s.src) && s.src[s.i+1] == q && s.src[s.i+2] == q {
		s.i += 3
		for s.i < len(s.src) {
			c := s.src[s.i]
			switch {
			case c == '\n':
				s.line++
			case c == '\\' && q == '"':
				s.i++
				if s.i < len(s.src) && s.src[s.i] == '\n' {
					s.line++
				}
			case c == q && s.i+2 < len(s.src) && s.src[s.i+1] == q && s.src[s.i+2] == q:
				s.i += 3
				// Up to two more quotes belong to the string ("""a"""").
				for k := 0; k < 2 && s.i < len(s.src) && s.src[s.i] == q; k++ {
					s.i++
				}
				return
			}
			s.i++
		}
		return
	}
	s.i++
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			return
		case c == '\\' && q == '"':
			if s.i+1 < len(s.src) && s.src[s.i+1] == '\n' {
				s.i++
				return
			}
			s.i++
		case c == q:
			s.i++
			return
		}
		s.i++
	}
}
