package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/usmnscope/usmnscope/internal/tomlcap"
)

// File is the config file's content. Every key is optional.
type File struct {
	// Defaults for the flags of the same names, used when the flag is not
	// given.
	Profile       string   `toml:"profile,omitempty"`
	Schemas       []string `toml:"schemas,omitempty"`
	Contracts     string   `toml:"contracts,omitempty"`
	ULinkRPCKey   string   `toml:"ulinkrpc_key,omitempty"`
	KeyDerivation string   `toml:"ulinkrpc_key_derivation,omitempty"`
	// Theme is "dark", "light" or "" (ask the terminal).
	Theme string `toml:"theme,omitempty"`
	// Columns are the message list's added columns per view ("all",
	// "unturned", "ulinkrpc"), each "FIELD" or "FIELD:WIDTH".
	Columns map[string][]string `toml:"columns,omitempty"`
}

// Column is one parsed column.
type Column struct {
	Field string
	Width int
}

// maxFile bounds the config file read.
const maxFile = 1 << 20

// Dir is usmnscope's config folder, $XDG_CONFIG_HOME/usmnscope (default
// ~/.config/usmnscope), or "" when neither is known. The config file and
// the schemas folder live in it.
func Dir() string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "usmnscope")
}

// Path is the config file's path, or "" when no config folder is known.
func Path() string {
	if d := Dir(); d != "" {
		return filepath.Join(d, "config.toml")
	}
	return ""
}

// Load reads the config file at path; a missing file is an empty File.
func Load(path string) (File, error) {
	var f File
	if path == "" {
		return f, nil
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("config: %w", err)
	}
	if !st.Mode().IsRegular() {
		return f, fmt.Errorf("config: %s: not a regular file (%s)", path, st.Mode().Type())
	}
	if st.Size() > maxFile {
		return f, fmt.Errorf("config: %s: %d bytes; at most %d", path, st.Size(), maxFile)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return f, fmt.Errorf("config: %w", err)
	}
	// The config file is input like a schema file: its shape is bounded
	// before the parser sees it (nesting, key length, UTF-8; SECURITY.md).
	if err := tomlcap.Check(path, data, tomlcap.Default); err != nil {
		return f, fmt.Errorf("config: %w", err)
	}
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return f, fmt.Errorf("config: %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return f, fmt.Errorf("config: %s: unknown key %q (docs/cli.md lists the keys)", path, und[0].String())
	}
	switch f.Theme {
	case "", "dark", "light":
	default:
		return f, fmt.Errorf("config: %s: theme = %q; want \"dark\", \"light\" or none", path, f.Theme)
	}
	for view, cols := range f.Columns {
		switch view {
		case "all", "unturned", "ulinkrpc":
		default:
			return f, fmt.Errorf("config: %s: columns.%s: the views are all, unturned and ulinkrpc", path, view)
		}
		for _, c := range cols {
			if _, err := ParseColumn(c); err != nil {
				return f, fmt.Errorf("config: %s: columns.%s: %w", path, view, err)
			}
		}
	}
	return f, nil
}

// ParseColumn reads "FIELD" or "FIELD:WIDTH".
func ParseColumn(s string) (Column, error) {
	field, w, ok := strings.Cut(s, ":")
	c := Column{Field: strings.TrimSpace(field), Width: 12}
	if c.Field == "" {
		return c, fmt.Errorf("column %q: no field", s)
	}
	if ok {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 3 || n > 60 {
			return c, fmt.Errorf("column %q: the width is a number from 3 to 60", s)
		}
		c.Width = n
	}
	return c, nil
}

// FormatColumn is ParseColumn's inverse.
func FormatColumn(c Column) string { return c.Field + ":" + strconv.Itoa(c.Width) }

// Text is the file as TOML.
func (f File) Text() string {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(f); err != nil {
		return "# " + err.Error() + "\n"
	}
	return b.String()
}

// Save writes f to path (its folder made when missing), replacing the
// file at once (a temporary file renamed over it).
func Save(path string, f File) error {
	if path == "" {
		return errors.New("config: no config folder ($XDG_CONFIG_HOME and $HOME unset)")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.toml")
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if _, err := tmp.WriteString(f.Text()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("config: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("config: %w", err)
	}
	return nil
}
