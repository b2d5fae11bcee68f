package pipeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/merge"
	"github.com/usmnscope/usmnscope/session"
)

// Captures turns a command line's captures, its --host values (NAME, or
// FILE=NAME) and its --time-shift values (FILE=±D) into the Several of
// Options (docs/json.md "Several captures"): nil for one capture. Every
// error is the command line's (a --host or --time-shift naming no
// capture given, a shift that does not parse, standard input among
// several) and says which value is wrong.
func Captures(paths, hosts, shifts []string) ([]Capture, error) {
	if err := CheckHosts(paths, hosts); err != nil {
		return nil, err
	}
	caps := make([]Capture, len(paths))
	for i, p := range paths {
		org := Origin(p, hosts)
		caps[i] = Capture{Path: p, Host: org.Host, Capture: org.Capture}
	}
	for _, s := range shifts {
		file, d, err := merge.ParseShift(s)
		if err != nil {
			return nil, errors.New(termsafe.Escape(err.Error()))
		}
		if !isCapture(paths, file) {
			return nil, fmt.Errorf("--time-shift %s: %s is not a capture given", termsafe.Escape(s), termsafe.Escape(file))
		}
		for i, p := range paths {
			if p == file || caps[i].Capture == file {
				caps[i].Shift, caps[i].HasShift = d, true
			}
		}
	}
	if len(paths) < 2 {
		return nil, nil
	}
	for _, p := range paths {
		if p == "-" {
			return nil, errStdinSeveral
		}
	}
	return caps, nil
}

// CheckHosts refuses a --host FILE=NAME whose FILE is none of paths.
func CheckHosts(paths, hosts []string) error {
	for _, h := range hosts {
		if file, _, ok := strings.Cut(h, "="); ok && !isCapture(paths, file) {
			return fmt.Errorf("--host %s: %s is not a capture given", termsafe.Escape(h), termsafe.Escape(file))
		}
	}
	return nil
}

// Origin names the capture at path (docs/export.md "Several captures"):
// its host from hosts (FILE=NAME for this file, else a bare NAME), else
// the file's base name without extension; its capture name is the file's
// base name. Standard input ("-") is "stdin".
func Origin(path string, hosts []string) session.Origin {
	o := session.Origin{Host: "stdin", Capture: "stdin"}
	if path != "-" {
		o.Capture = filepath.Base(path)
		o.Host = strings.TrimSuffix(o.Capture, filepath.Ext(o.Capture))
	}
	for _, h := range hosts {
		if file, name, ok := strings.Cut(h, "="); ok {
			if file == path || file == o.Capture {
				return session.Origin{Host: name, Capture: o.Capture}
			}
			continue
		}
		o.Host = h
	}
	return o
}

// errStdinSeveral refuses standard input among several captures.
var errStdinSeveral = errors.New("standard input (-) cannot be one of several captures: it cannot be read again")

// isCapture says whether file names one of paths, by path or base name.
func isCapture(paths []string, file string) bool {
	for _, c := range paths {
		if c == file || filepath.Base(c) == file {
			return true
		}
	}
	return false
}
