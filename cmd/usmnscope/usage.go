package main

import "github.com/usmnscope/usmnscope/internal/usage"

// argNames is the Args check of a command taking the named arguments
// (usage.Args): its errors name what is missing or extra.
var argNames = usage.Args

// commandAliases are words a user may try for a command, which cobra then
// suggests it for (SuggestFor); near misses of the names themselves it
// finds by edit distance.
var commandAliases = map[string][]string{
	"open":     {"view", "show", "tui", "inspect", "read", "load"},
	"dump":     {"print", "list", "ls", "cat", "messages", "decode"},
	"bits":     {"hex", "decode", "parse", "bit"},
	"tables":   {"table", "listeners", "ids"},
	"live":     {"capture", "sniff", "listen"},
	"gen":      {"generate", "scenario", "fixture"},
	"simulate": {"sim", "replay", "server"},
	"profile":  {"config", "profiles", "settings"},
}
