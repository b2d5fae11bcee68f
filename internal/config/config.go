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
	// CopyCommand is the program, with its arguments, that the terminal
	// UI's copy key pipes the text to ("wl-copy", "xclip -selection
	// clipboard", "pbcopy"): words split at spaces, quotes group them, no
	// shell. Empty: OSC 52 to the terminal.
	CopyCommand string `toml:"copy_command,omitempty"`
	// Keys rebinds the terminal UI's keys: [keys] ACTION = "KEY" or
	// ["KEY", …] ([] turns the action off), a pane's actions in its table
	// ([keys.messages] down = "J"). Bindings flattens it; which actions
	// exist and which keys clash is the UI's to say (CheckKeys).
	Keys map[string]any `toml:"keys,omitempty"`

	path  string         // the file read, for errors
	lines map[string]int // each key's line in it ("keys.messages.down": 7)
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
	f.path, f.lines = path, keyLines(data)
	for _, k := range md.Undecoded() {
		if len(k) > 1 && k[0] == "keys" {
			continue // [keys] is read as a whole (Bindings)
		}
		return f, fmt.Errorf("config: %s: unknown key %q (docs/cli.md lists the keys)", f.Where(k.String()), k.String())
	}
	switch f.Theme {
	case "", "dark", "light":
	default:
		return f, fmt.Errorf("config: %s: theme = %q; want \"dark\", \"light\" or none", path, f.Theme)
	}
	if _, err := f.CopyArgv(); err != nil {
		return f, err
	}
	if _, err := f.Bindings(); err != nil {
		return f, err
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

// ColumnSets are the file's column sets, parsed; a column that does not
// parse (Load refuses them) or whose field ok refuses is left out. Nil
// when the file sets none.
func (f File) ColumnSets(ok func(field string) bool) map[string][]Column {
	if len(f.Columns) == 0 {
		return nil
	}
	out := map[string][]Column{}
	for set, cols := range f.Columns {
		for _, s := range cols {
			if c, err := ParseColumn(s); err == nil && (ok == nil || ok(c.Field)) {
				out[set] = append(out[set], c)
			}
		}
	}
	return out
}

// WithColumns returns f with the column sets sets.
func (f File) WithColumns(sets map[string][]Column) File {
	f.Columns = map[string][]string{}
	for set, cols := range sets {
		out := []string{}
		for _, c := range cols {
			out = append(out, FormatColumn(c))
		}
		f.Columns[set] = out
	}
	return f
}

// SaveColumns writes the column sets into the config file at path,
// keeping its other keys.
func SaveColumns(path string, sets map[string][]Column) error {
	f, err := Load(path)
	if err != nil {
		return err
	}
	return Save(path, f.WithColumns(sets))
}

// Show is what config show prints: the file's path, then its keys as
// TOML, the column sets defaults when it sets none (said so).
func (f File) Show(path string, defaults map[string][]Column) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", path)
	if len(f.Columns) == 0 {
		f.Columns = map[string][]string{}
		for set, cols := range defaults {
			for _, c := range cols {
				f.Columns[set] = append(f.Columns[set], FormatColumn(c))
			}
		}
		b.WriteString("# columns: the defaults (the file sets none)\n")
	}
	b.WriteString(f.Text())
	return b.String()
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

// Where names the place of a key of the file ("keys.quit",
// "copy_command") as PATH:LINE, or the file's path when the line is not
// known.
func (f File) Where(key string) string {
	for k := key; k != ""; {
		if n := f.lines[k]; n > 0 {
			return fmt.Sprintf("%s:%d", f.path, n)
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return f.path
}

// CopyArgv is CopyCommand split into the program and its arguments: at
// spaces, with '…' and "…" grouping (no shell, no escapes); nil when none
// is set.
func (f File) CopyArgv() ([]string, error) {
	var (
		out   []string
		word  strings.Builder
		in    bool // in a word
		quote rune
	)
	for _, r := range f.CopyCommand {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out, in = append(out, word.String()), false
				word.Reset()
			}
		default:
			word.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("config: %s: copy_command: a %c quote is not closed", f.Where("copy_command"), quote)
	}
	if in {
		out = append(out, word.String())
	}
	return out, nil
}

// Bindings is Keys flattened: each action ("quit", "messages.down") and
// its keys.
func (f File) Bindings() (map[string][]string, error) {
	out := map[string][]string{}
	var walk func(prefix string, m map[string]any) error
	walk = func(prefix string, m map[string]any) error {
		for k, v := range m {
			name := prefix + k
			switch v := v.(type) {
			case string:
				out[name] = []string{v}
			case []any:
				keys := []string{}
				for _, e := range v {
					s, ok := e.(string)
					if !ok || s == "" {
						return fmt.Errorf("config: %s: keys.%s: a key is a non-empty string, not %v", f.Where("keys."+name), name, e)
					}
					keys = append(keys, s)
				}
				out[name] = keys
			case map[string]any:
				if err := walk(name+".", v); err != nil {
					return err
				}
			default:
				return fmt.Errorf("config: %s: keys.%s: want a key (\"J\") or a list of keys ([\"J\", \"down\"])", f.Where("keys."+name), name)
			}
			if s, ok := v.(string); ok && s == "" {
				return fmt.Errorf("config: %s: keys.%s: an empty key (turn an action off with [])", f.Where("keys."+name), name)
			}
		}
		return nil
	}
	if err := walk("", f.Keys); err != nil {
		return nil, err
	}
	return out, nil
}

// CheckKeys checks the file's bindings with check (the terminal UI's
// views.CheckKeys) and names the file and line of the binding at fault:
// an error with a KeyAction method names its action.
func (f File) CheckKeys(check func(map[string][]string) error) (map[string][]string, error) {
	keys, err := f.Bindings()
	if err != nil || len(keys) == 0 {
		return keys, err
	}
	if err := check(keys); err != nil {
		where := f.Where("keys")
		if a, ok := err.(interface{ KeyAction() string }); ok {
			where = f.Where("keys." + a.KeyAction())
		}
		return nil, fmt.Errorf("config: %s: %w", where, err)
	}
	return keys, nil
}

// keyLines maps each key the TOML text sets ("theme", "keys.quit",
// "keys.messages.down") to its first line: a line scan of table headers
// and "KEY =" lines, enough to name where a key is (a key inside an
// inline table or a multi-line value is named by its table's line).
func keyLines(data []byte) map[string]int {
	out := map[string]int{}
	table := ""
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t[0] == '#':
			continue
		case strings.HasPrefix(t, "[["):
			table = ""
			continue
		case t[0] == '[':
			if j := strings.IndexByte(t, ']'); j > 0 {
				table = dottedKey(t[1:j])
				if _, ok := out[table]; !ok {
					out[table] = i + 1
				}
			}
			continue
		}
		eq := strings.IndexByte(t, '=')
		if eq <= 0 {
			continue
		}
		k := dottedKey(t[:eq])
		if table != "" {
			k = table + "." + k
		}
		for p := k; ; {
			if _, ok := out[p]; !ok {
				out[p] = i + 1
			}
			j := strings.LastIndexByte(p, '.')
			if j < 0 {
				break
			}
			p = p[:j]
		}
	}
	return out
}

// dottedKey normalises a TOML key as written (a.b, "a".b, 'a . b') to
// its parts joined by dots, quotes and spaces taken off.
func dottedKey(s string) string {
	var parts []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == ' ' || c == '\t':
		default:
			cur.WriteByte(c)
		}
	}
	return strings.Join(append(parts, strings.TrimSpace(cur.String())), ".")
}
