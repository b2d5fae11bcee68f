package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadBoundsShape: a config file is input like a schema file; a deeply
// nested inline table is refused by the bounded check, naming the file,
// before the TOML parser sees it (issue 29's config shapes).
func TestLoadBoundsShape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	deep := "theme = \"dark\"\nx = " + strings.Repeat("{a = ", 5000) + "1" + strings.Repeat("}", 5000) + "\n"
	if err := os.WriteFile(path, []byte(deep), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("Load(5000-deep inline tables) = %v; want the nesting bound, naming %s", err, path)
	}
}

// TestDirHoldsPath: the config file lies in Dir.
func TestDirHoldsPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x")
	if got, want := Path(), filepath.Join(Dir(), "config.toml"); got != want || Dir() != "/x/usmnscope" {
		t.Fatalf("Path() = %q, Dir() = %q; want %q in /x/usmnscope", got, Dir(), want)
	}
}
