package schema

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/usmnscope/usmnscope/internal/termsafe"
)

// Load reads and parses the schema files at paths, in order, into one
// Set (read gives a file's bytes: the CLI bounds their size and kind);
// with none it returns nil, which decodes as before. A file that does not
// parse, or a definition that clashes with another file's, is an error
// naming the file, the line and the key, escaped for a terminal (file
// names and keys come from the user's files).
func Load(paths []string, read func(path string) ([]byte, error)) (*Set, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var files []*File
	for _, p := range paths {
		f, err := parseWith(p, read)
		if err != nil {
			return nil, escaped(err)
		}
		files = append(files, f)
	}
	set, err := NewSet(files...)
	if err != nil {
		return nil, escaped(err)
	}
	return set, nil
}

// Check is `schema check`: it parses each file at paths, writes every
// problem to errw (a line each, with its file, line and key), checks that
// the files do not define one thing twice, and lists on out what each
// file that parsed defines. It returns the number of problems found: files
// that did not parse, and one for clashes.
func Check(out, errw io.Writer, paths []string, read func(path string) ([]byte, error)) int {
	var files []*File
	bad := 0
	for _, p := range paths {
		f, err := parseWith(p, read)
		if err != nil {
			bad++
			for _, l := range ErrorLines(err) {
				fmt.Fprintln(errw, l)
			}
			continue
		}
		files = append(files, f)
	}
	if _, err := NewSet(files...); err != nil {
		bad++
		for _, l := range ErrorLines(err) {
			fmt.Fprintln(errw, l)
		}
	}
	for _, f := range files {
		fmt.Fprintf(out, "%s: ok\n", termsafe.Escape(f.Name))
		for _, d := range f.Defines() {
			fmt.Fprintf(out, "  %s\n", termsafe.Escape(d))
		}
	}
	return bad
}

// parseWith reads and parses one schema file.
func parseWith(path string, read func(string) ([]byte, error)) (*File, error) {
	src, err := read(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// ErrorLines splits an error into its lines (an ErrorList has one per
// problem), each escaped for a terminal.
func ErrorLines(err error) []string {
	var l ErrorList
	if errors.As(err, &l) {
		out := make([]string, len(l))
		for i, e := range l {
			out[i] = termsafe.Escape(e.Error())
		}
		return out
	}
	return []string{termsafe.Escape(err.Error())}
}

func escaped(err error) error { return errors.New(strings.Join(ErrorLines(err), "\n")) }
