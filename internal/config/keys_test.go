package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysAndCopy: [keys] flattens to action names with their keys (one
// key or a list; a pane's table dotted), an error names the file and the
// line of the binding at fault, and copy_command splits into words with
// quotes grouping.
func TestKeysAndCopy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	text := "theme = \"dark\"\ncopy_command = \"xclip -selection 'clip board'\"\n\n[keys]\nquit = \"Q\"\ncopy = [\"c\", \"ctrl+y\"]\n\n[keys.messages]\ndown = \"J\"\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := f.Bindings()
	if err != nil || len(keys) != 3 || keys["quit"][0] != "Q" || len(keys["copy"]) != 2 || keys["messages.down"][0] != "J" {
		t.Fatalf("Bindings() = %v, %v", keys, err)
	}
	if argv, err := f.CopyArgv(); err != nil || strings.Join(argv, "|") != "xclip|-selection|clip board" {
		t.Errorf("CopyArgv() = %q, %v", argv, err)
	}
	for action, line := range map[string]int{"quit": 5, "copy": 6, "messages.down": 9} {
		_, err := f.CheckKeys(func(map[string][]string) error { return keyErr(action) })
		if want := fmt.Sprintf("config: %s:%d: keys.%s: clash", path, line, action); err == nil || err.Error() != want {
			t.Errorf("CheckKeys(a fault in %s) = %v; want %q", action, err, want)
		}
	}
	for _, tt := range []struct{ text, want string }{
		{"[keys]\nquit = 3\n", path + ":2: keys.quit: want a key"},
		{"[keys]\nquit = \"\"\n", path + ":2: keys.quit: an empty key"},
		{"[keys]\ncopy = [\"c\", 1]\n", path + ":2: keys.copy: a key is a non-empty string"},
		{"\ncopy_command = \"wl-copy 'x\"\n", path + ":2: copy_command: a ' quote is not closed"},
		{"keys.messages.down = \"J\"\nkeys.quit = 1\n", path + ":2: keys.quit: want a key"},
	} {
		os.WriteFile(path, []byte(tt.text), 0o644)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) = %v; want %q", tt.text, err, tt.want)
		}
	}
}

type keyErr string

func (e keyErr) Error() string     { return "keys." + string(e) + ": clash" }
func (e keyErr) KeyAction() string { return string(e) }
