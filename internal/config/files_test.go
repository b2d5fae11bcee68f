package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSchemaFiles: the config folder's schemas in name order, then the
// flagged ones in their order; a schema file is read only if regular.
func TestSchemaFiles(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", base)
	dir := filepath.Join(base, "usmnscope", "schemas")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"b.toml", "a.toml", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := SchemaFiles([]string{"z.toml", "y.toml"})
	want := []string{filepath.Join(dir, "a.toml"), filepath.Join(dir, "b.toml"), "z.toml", "y.toml"}
	if !slices.Equal(got, want) {
		t.Errorf("SchemaFiles = %q; want %q", got, want)
	}
	if b, err := ReadSchema(want[0]); err != nil || string(b) != "x" {
		t.Errorf("ReadSchema(%s) = %q, %v", want[0], b, err)
	}
	if _, err := ReadProfile(dir); err == nil || !strings.HasPrefix(err.Error(), "profile: ") {
		t.Errorf("ReadProfile(a folder) = %v; want a profile error", err)
	}
}
