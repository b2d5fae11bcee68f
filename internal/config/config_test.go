package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSaveLoad: what Save writes, Load reads back the same; a missing
// file is empty; unknown keys, views, themes and widths are errors that
// name them.
func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "usmnscope", "config.toml")
	if f, err := Load(path); err != nil || f.Text() != (File{}).Text() {
		t.Fatalf("Load(missing) = %+v, %v; want empty, nil", f, err)
	}
	want := File{Profile: "p.toml", Contracts: "c", Theme: "light", Columns: map[string][]string{"ulinkrpc": {"latency:10", "status"}}}
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil || got.Text() != want.Text() {
		t.Fatalf("Load(Save(f)) = %q, %v; want %q", got.Text(), err, want.Text())
	}
	for _, tt := range []struct{ text, want string }{
		{"bogus = 1\n", `unknown key "bogus"`},
		{"theme = \"blue\"\n", `theme = "blue"`},
		{"[columns]\nother = [\"n\"]\n", "columns.other"},
		{"[columns]\nall = [\"latency:1\"]\n", "width"},
	} {
		os.WriteFile(path, []byte(tt.text), 0o644)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%q) = %v; want an error naming %q", tt.text, err, tt.want)
		}
	}
}

func TestParseColumn(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Column
		ok   bool
	}{
		{"latency", Column{"latency", 12}, true},
		{"payload.text:30", Column{"payload.text", 30}, true},
		{":3", Column{}, false},
		{"n:x", Column{}, false},
	} {
		got, err := ParseColumn(tt.in)
		if (err == nil) != tt.ok || tt.ok && got != tt.want {
			t.Errorf("ParseColumn(%q) = %+v, %v; want %+v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
