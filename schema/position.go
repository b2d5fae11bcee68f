package schema

import (
	"strconv"
	"strings"
)

// BurntSushi/toml keeps each key's position to itself (MetaData exposes
// keys and types, not lines), and keys inside inline tables of an array
// have no entry at all. schema.md asks that an invalid file name its line,
// so locate reads the source once more, only far enough to map each key
// path to the line where it starts.
//
// Paths are spelled as the parser's errors spell them: table keys joined
// by dots, array elements (inline or [[array of tables]]) as [i]:
// "listener[0].server.message[1].fields[0].type". locate runs only on
// text BurntSushi has accepted, but it is written to survive anything:
// every loop consumes input or stops, every index stays in the input
// (FuzzParse found an escape at the very end), and nesting is capped.

// maxLocateDepth bounds the nesting locate follows; deeper values keep the
// line of their outermost located parent.
const maxLocateDepth = 64

type locator struct {
	src   string
	i     int
	line  int
	lines map[string]int
	aot   map[string]int // array-of-tables path → elements seen so far
}

// locate maps key paths of a TOML document to their 1-based lines.
func locate(src string) map[string]int {
	l := &locator{src: src, line: 1, lines: map[string]int{}, aot: map[string]int{}}
	cur := ""
	for l.i < len(l.src) {
		l.space(true)
		if l.i >= len(l.src) {
			break
		}
		line := l.line
		if l.src[l.i] == '[' {
			arr := strings.HasPrefix(l.src[l.i:], "[[")
			l.i++
			if arr {
				l.i++
			}
			cur = l.resolve(l.key(), arr, line)
			l.set(cur, line)
			l.rest()
			continue
		}
		parts := l.key()
		if len(parts) == 0 {
			l.rest()
			continue
		}
		l.space(false)
		if l.i < len(l.src) && l.src[l.i] == '=' {
			l.i++
		}
		l.value(join(cur, parts...), line, 0)
	}
	return l.lines
}

func (l *locator) set(path string, line int) {
	if _, ok := l.lines[path]; !ok {
		l.lines[path] = line
	}
}

// join appends dotted parts to a path.
func join(path string, parts ...string) string {
	for _, p := range parts {
		if path == "" {
			path = p
		} else {
			path += "." + p
		}
	}
	return path
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// resolve turns a table header's dotted key into a path: each part that
// names an array of tables means its latest element, and a [[header]]
// starts a new element.
func (l *locator) resolve(parts []string, arr bool, line int) string {
	p := ""
	for k, part := range parts {
		p = join(p, part)
		if n, ok := l.aot[p]; arr && k == len(parts)-1 {
			l.set(p, line) // the array itself is where its first element is
			l.aot[p] = n + 1
			p = index(p, n)
		} else if ok {
			p = index(p, n-1)
		}
	}
	return p
}

// space skips blanks and comments, and newlines too when nl is set.
func (l *locator) space(nl bool) {
	for l.i < len(l.src) {
		switch c := l.src[l.i]; {
		case c == ' ' || c == '\t' || c == '\r':
			l.i++
		case c == '\n' && nl:
			l.line++
			l.i++
		case c == '#':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
		default:
			return
		}
	}
}

// rest skips to the end of the line.
func (l *locator) rest() {
	for l.i < len(l.src) && l.src[l.i] != '\n' {
		l.i++
	}
}

// key reads a dotted key: bare, "basic" or 'literal' parts.
func (l *locator) key() []string {
	var parts []string
	for {
		l.space(false)
		if l.i >= len(l.src) {
			return parts
		}
		var part string
		switch c := l.src[l.i]; {
		case c == '"' || c == '\'':
			start := l.i
			l.str()
			raw := l.src[start:l.i]
			part = strings.Trim(raw, `"'`)
			if c == '"' {
				if u, err := strconv.Unquote(raw); err == nil {
					part = u
				}
			}
		case bare(c):
			start := l.i
			for l.i < len(l.src) && bare(l.src[l.i]) {
				l.i++
			}
			part = l.src[start:l.i]
		default:
			return parts
		}
		parts = append(parts, part)
		l.space(false)
		if l.i >= len(l.src) || l.src[l.i] != '.' {
			return parts
		}
		l.i++
	}
}

func bare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// str skips one string of any of TOML's four kinds, counting newlines.
// An escape may be the input's last byte, so the end is clamped.
func (l *locator) str() {
	defer func() { l.i = min(l.i, len(l.src)) }()
	q := l.src[l.i]
	delim := string(q)
	if strings.HasPrefix(l.src[l.i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	l.i += len(delim)
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '\\' && q == '"':
			l.i++
			if l.i < len(l.src) && l.src[l.i] == '\n' {
				l.line++
			}
		case c == '\n':
			l.line++
		case strings.HasPrefix(l.src[l.i:], delim):
			l.i += len(delim)
			// A multi-line string may end with up to two extra quotes.
			for len(delim) == 3 && l.i < len(l.src) && l.src[l.i] == q {
				l.i++
			}
			return
		}
		l.i++
	}
}

// value skips one value, recording the lines of the paths inside it.
func (l *locator) value(path string, line, depth int) {
	l.space(false)
	l.set(path, line)
	if l.i >= len(l.src) {
		return
	}
	switch c := l.src[l.i]; {
	case depth > maxLocateDepth:
		l.rest()
	case c == '[':
		l.i++
		for n := 0; l.i < len(l.src); {
			l.space(true)
			if l.i >= len(l.src) {
				return
			}
			switch l.src[l.i] {
			case ']':
				l.i++
				return
			case ',':
				l.i++
				continue
			}
			at := l.i
			l.value(index(path, n), l.line, depth+1)
			n++
			if l.i == at {
				l.i++ // not a value: step over it rather than loop
			}
		}
	case c == '{':
		l.i++
		for l.i < len(l.src) {
			l.space(true)
			if l.i >= len(l.src) {
				return
			}
			switch l.src[l.i] {
			case '}':
				l.i++
				return
			case ',':
				l.i++
				continue
			}
			kline := l.line
			parts := l.key()
			if len(parts) == 0 {
				l.i++
				continue
			}
			l.space(false)
			if l.i < len(l.src) && l.src[l.i] == '=' {
				l.i++
			}
			l.value(join(path, parts...), kline, depth+1)
		}
	case c == '"' || c == '\'':
		l.str()
	default:
		for l.i < len(l.src) && !strings.ContainsRune(",]}\n#", rune(l.src[l.i])) {
			l.i++
		}
	}
}

// lineOf returns the line of path, or of its nearest located parent, or 0.
func lineOf(lines map[string]int, path string) int {
	for path != "" {
		if n, ok := lines[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			return 0
		}
		path = path[:i]
	}
	return 0
}
