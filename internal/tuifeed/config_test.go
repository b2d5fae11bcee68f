package tuifeed

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/views"
)

// TestShowConfig: the file's path and the TUI's default columns when it
// sets none; keys the TUI refuses are an error.
func TestShowConfig(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	text, err := ShowConfig()
	if err != nil || !strings.Contains(text, filepath.Join(dir, "usmnscope", "config.toml")) {
		t.Errorf("ShowConfig() = %q, %v; want the file's path", text, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "usmnscope"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "usmnscope", "config.toml"), []byte("[keys]\nquit = [\"q\"]\nhelp = [\"q\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ShowConfig(); err == nil {
		t.Error("ShowConfig() of a file binding q twice: no error")
	}
}

// TestFileConfig: the columns read and saved through the filter
// language, the theme from the file.
func TestFileConfig(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := os.MkdirAll(filepath.Join(dir, "usmnscope"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "usmnscope", "config.toml"), []byte("theme = \"light\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var cfg views.Config
	FileConfig(&cfg)
	if cfg.Theme != "light" || cfg.Columns.Lookup == nil || cfg.Columns.Save == nil || cfg.Columns.Field == nil {
		t.Errorf("FileConfig: theme %q, lookup %v, save %v; want light and both", cfg.Theme, cfg.Columns.Lookup != nil, cfg.Columns.Save != nil)
	}
}

// TestOpenNotTerminal: open refuses an output that is no terminal, and
// closes the decode's source.
func TestOpenNotTerminal(t *testing.T) {
	d, err := pipeline.Open(pipeline.Options{Path: filepath.Join("..", "..", "fixtures", "captures", "usmn-basic.pcapng")})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = Open(&out, nil, d, []string{"usmn-basic.pcapng"}, "", nil)
	if err == nil || !strings.Contains(err.Error(), "not a terminal") || out.Len() != 0 {
		t.Errorf("Open(a buffer) = %v, wrote %q; want not a terminal and nothing written", err, out.String())
	}
}
