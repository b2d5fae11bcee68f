package ulinkrpc

import "strings"

// A small C# tokenizer, enough for contract sources: identifiers, numbers,
// strings (skipped as one token), punctuation; comments and preprocessor
// lines dropped. It never fails: an unterminated string or comment ends at
// the end of the file.

type tokKind uint8

const (
	tokIdent tokKind = iota
	tokNumber
	tokString
	tokPunct
)

type token struct {
	kind tokKind
	text string
	line int
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '@' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func tokenize(src string) []token {
	var toks []token
	line := 1
	lineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			lineStart = true
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#' && lineStart:
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				end = len(src) - i - 4
			}
			line += strings.Count(src[i:i+4+end], "\n")
			i += 4 + end
			continue
		}
		lineStart = false
		start := i
		switch {
		case c == '"' || c == '\'' || (c == '@' || c == '$') && i+1 < len(src) && (src[i+1] == '"' || src[i+1] == '@' || src[i+1] == '$'):
			i = skipString(src, i)
			toks = append(toks, token{tokString, src[start:i], line})
			line += strings.Count(src[start:i], "\n")
		case isIdentStart(c):
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
			toks = append(toks, token{tokIdent, strings.TrimPrefix(src[start:i], "@"), line})
		case c >= '0' && c <= '9':
			for i < len(src) && (isIdentByte(src[i]) || src[i] == '.') {
				i++
			}
			toks = append(toks, token{tokNumber, src[start:i], line})
		default:
			i++
			if c == ':' && i < len(src) && src[i] == ':' {
				i++
			}
			toks = append(toks, token{tokPunct, src[start:i], line})
		}
	}
	return toks
}

// skipString returns the index after the string or char literal at i.
func skipString(src string, i int) int {
	verbatim := false
	for i < len(src) && (src[i] == '@' || src[i] == '$') {
		verbatim = verbatim || src[i] == '@'
		i++
	}
	if i >= len(src) {
		return i
	}
	q := src[i]
	i++
	for i < len(src) {
		switch {
		case src[i] == '\\' && !verbatim:
			i += 2
			continue
		case src[i] == q && verbatim && i+1 < len(src) && src[i+1] == q:
			i += 2
			continue
		case src[i] == q:
			return i + 1
		case src[i] == '\n' && !verbatim:
			return i
		}
		i++
	}
	return len(src)
}
