package ulinkrpc

import (
	"fmt"
	"strings"

	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// SchemaTOML prints contracts as schema.md section 4's TOML: the services
// with their methods and pushes, then the DTO types (`usmnscope schema
// import --contracts DIR`). A void method leaves `reply` out.
func SchemaTOML(c *Contracts) string {
	var b strings.Builder
	for i, s := range c.Services {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[[ulinkrpc.service]]\nid = %d\nname = %s\n", s.ID, tomlString(s.Name))
		for _, m := range s.Methods {
			fmt.Fprintf(&b, "[[ulinkrpc.service.method]]\nid = %d\nname = %s\n", m.ID, tomlString(m.Name))
			if m.Request != "" {
				fmt.Fprintf(&b, "request = %s\n", tomlString(m.Request))
			}
			if m.Reply != "" {
				fmt.Fprintf(&b, "reply = %s\n", tomlString(m.Reply))
			}
		}
		for _, m := range s.Pushes {
			fmt.Fprintf(&b, "[[ulinkrpc.service.push]]\nid = %d\nname = %s\n", m.ID, tomlString(m.Name))
			if m.Request != "" {
				fmt.Fprintf(&b, "arg = %s\n", tomlString(m.Request))
			}
		}
	}
	for _, t := range c.Types {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[[ulinkrpc.type]]\nname = %s\nversion_tolerant = %v\nmembers = [", tomlString(t.Name), t.VersionTolerant)
		for i, m := range t.Members {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "\n  { order = %d, name = %s, type = %s }", m.Order, tomlString(m.Name), tomlString(listSpelling(m.Type)))
		}
		if len(t.Members) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// listSpelling writes every list type as list:T, schema.md's spelling.
func listSpelling(t string) string {
	if elem, ok := listElem(t); ok {
		return "list:" + listSpelling(elem)
	}
	return t
}

// tomlString quotes s as a TOML basic string. Names come from contract
// files, which are input: every rune the terminal rule escapes
// (termsafe.Unsafe: controls, bidi overrides, invalid bytes) is written
// as a TOML \u escape, so the output is safe on a terminal and reads back
// as the same name (issue 29).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r > 0xffff && termsafe.Unsafe(r):
			fmt.Fprintf(&b, "\\U%08X", r)
		case termsafe.Unsafe(r):
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
