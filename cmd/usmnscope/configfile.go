package main

import (
	"fmt"
	"io"
	"os"
)

// readConfig reads a config file (a schema or a profile) of at most max
// bytes. Only a regular file is read, or a symlink to one: a FIFO would
// block and a device (/dev/zero) never end (issue 29: schema files are
// loaded on their own from the config folder, so they are input). what
// names the kind of file in errors.
func readConfig(what, path string, max int64) ([]byte, error) {
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
