package views_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/usmnscope/usmnscope/views"
)

// TestRebindKeys (issue 30, the config file's [keys]): under teatest, a
// rebound key does the action and the key it replaced no longer does:
// mark moved from m to *, the message list's down from j/down to J.
func TestRebindKeys(t *testing.T) {
	cfg := views.Config{Keys: map[string][]string{"mark": {"*"}, "messages.down": {"J"}}}
	m, _ := run16(t, 80, 24, cfg, keys("J", "J", "*")...)
	if got := m.Messages().Selected(); got != 3 {
		t.Errorf("J J: selected %d; want 3 (J is down)", got)
	}
	if !m.Messages().Marked(3) || m.Messages().Marks() != 1 {
		t.Errorf("*: marks %d, 3 marked %v; want message 3 marked alone", m.Messages().Marks(), m.Messages().Marked(3))
	}
	m, _ = run16(t, 80, 24, cfg, keys("j", "m")...)
	if got := m.Messages().Selected(); got != 1 || m.Messages().Marks() != 0 {
		t.Errorf("j m after the rebinding: selected %d, %d marks; want 1 and none (j and m are no longer bound)", got, m.Messages().Marks())
	}
	// The help lists the new keys.
	_, out := run16(t, 160, 48, cfg, keys("?")...)
	help := ansi.Strip(string(out))
	if !regexp.MustCompile(`\*\s+mark or unmark the selected message`).MatchString(help) || regexp.MustCompile(`\bm\s+mark or unmark`).MatchString(help) {
		t.Errorf("the help does not list * (and not m) for mark:\n%s", help)
	}
}

// TestCheckKeys: an unknown action, a key that names no key, and a key two
// actions have where both are active are refused, naming the action the
// rebinding set; a key shared by actions never active together is not.
func TestCheckKeys(t *testing.T) {
	for _, tt := range []struct {
		keys   map[string][]string
		action string // "" accepted
		want   string
	}{
		{map[string][]string{"mark": {"*"}, "messages.down": {"J", "down"}}, "", ""},
		{map[string][]string{"expert": {}}, "", ""}, // off
		{map[string][]string{"quit": {}}, "quit", "cannot be turned off"},
		{map[string][]string{"bogus": {"x"}}, "bogus", "no such action"},
		{map[string][]string{"copy": {"ctlr+c"}}, "copy", `"ctlr+c" is not a key`},
		{map[string][]string{"copy": {"j"}}, "copy", `"j" is also conns.down's key in the connections pane`},
		{map[string][]string{"messages.down": {"y"}}, "messages.down", `"y" is also copy's key`},
		{map[string][]string{"mark": {"x"}}, "", ""},                   // x is the bits pane's; mark acts in the list only
		{map[string][]string{"graph.add": {"q"}}, "graph.add", "quit"}, // q quits in the graph too
		{map[string][]string{"filter.accept": {"ctrl+j"}, "stats.up": {"K"}}, "", ""},
	} {
		err := views.CheckKeys(tt.keys)
		var ke *views.KeyError
		switch {
		case tt.action == "" && err != nil:
			t.Errorf("CheckKeys(%v) = %v; want nil", tt.keys, err)
		case tt.action != "" && (!errors.As(err, &ke) || ke.Action != tt.action || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckKeys(%v) = %v; want an error for %s saying %q", tt.keys, err, tt.action, tt.want)
		}
	}
	if n := len(views.Actions()); n < 60 {
		t.Errorf("Actions() lists %d; want every binding of the root and the panes", n)
	}
}

// TestCopyCommand (issue 30, the config file's copy_command): y runs the
// configured program with the copied text on its standard input (a
// script writing it to a file), and says so when it ends; a failing
// program's error is the note.
func TestCopyCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "clip")
	script := filepath.Join(dir, "copy.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat > \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m, term := run16(t, 80, 24, views.Config{CopyCommand: []string{script, out}}, keys("y")...)
	var got []byte
	for range 100 { // the command runs in a tea.Cmd; the model may quit first
		if got, _ = os.ReadFile(out); len(got) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) == 0 || strings.Trim(string(got), "0123456789abcdef") != "" {
		t.Fatalf("y with copy_command: the program got %q; want the selected message's hex", got)
	}
	if len(oscs(term)) != 0 {
		t.Errorf("y with copy_command also wrote OSC %v to the terminal", oscs(term))
	}
	if n := m.Note(); !strings.Contains(n, "copied message 1") && !strings.Contains(n, "copying message 1") {
		t.Errorf("note %q; want it to say message 1 is copied", n)
	}
}

// TestDocsListActions: docs/cli.md's table of actions lists every action
// Config.Keys may rebind, and no other.
func TestDocsListActions(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "| table | actions |")
	if i < 0 {
		t.Fatal("docs/cli.md has no table of actions")
	}
	documented := map[string]bool{}
	row := regexp.MustCompile("^\\| `\\[keys(?:\\.([a-z]+))?\\]`[^|]*\\| (.*) \\|$")
	name := regexp.MustCompile("`([a-z_]+)`")
	for _, line := range strings.Split(text[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("docs/cli.md: a row of the actions table does not read: %q", line)
		}
		prefix := ""
		if m[1] != "" {
			prefix = m[1] + "."
		}
		for _, n := range name.FindAllStringSubmatch(regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(m[2], ""), -1) {
			documented[prefix+n[1]] = true
		}
	}
	for _, a := range views.Actions() {
		if !documented[a] {
			t.Errorf("docs/cli.md does not list the action %s", a)
		}
		delete(documented, a)
	}
	for a := range documented {
		t.Errorf("docs/cli.md lists %s, which is no action", a)
	}
}

// TestGoldenRebound: the screens a rebinding changes, at 80×24 and
// 160×48: the key legend (quit on Q, help on H) and the help overlay,
// which lists the bound keys (mark on *, the list's down on J and down).
func TestGoldenRebound(t *testing.T) {
	cfg := views.Config{Keys: map[string][]string{"quit": {"Q"}, "help": {"H"}, "mark": {"*"}, "messages.down": {"J", "down"}}}
	for _, sc := range []struct {
		name string
		keys []string
	}{
		{"rebound-start", []string{"J", "*"}},
		{"rebound-help", []string{"H"}},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}} {
			name := sc.name + "-" + map[int]string{80: "80x24", 160: "160x48"}[sz[0]]
			t.Run(name, func(t *testing.T) {
				m, _ := run16(t, sz[0], sz[1], cfg, keys(sc.keys...)...)
				golden(t, name, ansi.Strip(m.View().Content))
			})
		}
	}
}
