package config

import (
	"path/filepath"
	"sort"
)

// The bounds of the files the config folder or a flag names: a schema is
// a few kilobytes (and schema.Parse holds the whole file), a real profile
// a few hundred bytes.
const (
	maxSchema  = 4 << 20
	maxProfile = 1 << 20
)

// SchemaDir is $XDG_CONFIG_HOME/usmnscope/schemas (default
// ~/.config/usmnscope/schemas, schema.md), or "" when neither is known.
func SchemaDir() string {
	if d := Dir(); d != "" {
		return filepath.Join(d, "schemas")
	}
	return ""
}

// SchemaFiles lists the schema files in force: SchemaDir's *.toml in name
// order, then flagged (every --schema, in command-line order).
func SchemaFiles(flagged []string) []string {
	var files []string
	if dir := SchemaDir(); dir != "" {
		found, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
		sort.Strings(found)
		files = append(files, found...)
	}
	return append(files, flagged...)
}

// ReadSchema reads one schema file, bounded in size and kind
// (ReadBounded).
func ReadSchema(path string) ([]byte, error) { return ReadBounded("schema", path, maxSchema) }

// ReadProfile reads one profile file, bounded in size and kind
// (ReadBounded).
func ReadProfile(path string) ([]byte, error) { return ReadBounded("profile", path, maxProfile) }
