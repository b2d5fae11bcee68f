package config

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// ReadBounded reads a file the config folder or a flag names (a schema
// or a profile) of at most max bytes. Only a regular file is read, or a symlink to one: a FIFO would
// block and a device (/dev/zero) never end (issue 29: schema files are
// loaded on their own from the config folder, so they are input). what
// names the kind of file in errors.
func ReadBounded(what, path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s: not a regular file (%s)", what, path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	// What was opened is checked too: the path may have changed since.
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %s: not a regular file", what, path)
	}
	src, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", what, path, err)
	}
	if int64(len(src)) > max {
		return nil, fmt.Errorf("%s: %s: larger than %d bytes", what, path, max)
	}
	return src, nil
}

// flagKeys are the file's keys that are defaults for the flags of those
// names (docs/cli.md "The config file").
func (f File) flagKeys() [][2]string {
	return [][2]string{{"profile", f.Profile}, {"contracts", f.Contracts}, {"ulinkrpc-key", f.ULinkRPCKey}, {"ulinkrpc-key-derivation", f.KeyDerivation}}
}

// SetFlags gives the flags of fs that the command line did not set the
// file's defaults: profile, contracts, ulinkrpc-key,
// ulinkrpc-key-derivation, and each of schemas as a --schema. A flag the
// command lacks is passed over.
func (f File) SetFlags(fs *pflag.FlagSet) error {
	set := func(name, v string) error {
		fl := fs.Lookup(name)
		if fl == nil || fl.Changed || v == "" {
			return nil
		}
		return fs.Set(name, v)
	}
	for _, kv := range f.flagKeys() {
		if err := set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("config: %s: %s: %w", f.Where(strings.ReplaceAll(kv[0], "-", "_")), kv[0], err)
		}
	}
	if fl := fs.Lookup("schema"); fl != nil && !fl.Changed {
		for _, sc := range f.Schemas {
			if err := fs.Set("schema", sc); err != nil {
				return fmt.Errorf("config: %s: schemas: %w", f.Where("schemas"), err)
			}
		}
	}
	return nil
}
