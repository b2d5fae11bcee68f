package rpc

import "github.com/usmnscope/usmnscope/internal/termsafe"

// MethodText is a method's `Service.Method` for text outputs (the tables
// of `tables` and of the TUI), escaped, with "?" for a name the contracts
// do not give (outputs.md: the names are null without contracts).
func MethodText(service, method *string) string {
	return nameText(service) + "." + nameText(method)
}

func nameText(p *string) string {
	if p == nil {
		return "?"
	}
	return termsafe.Escape(*p)
}
