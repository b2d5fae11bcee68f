package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportUsage: export's flags are checked before any capture is read.
func TestExportUsage(t *testing.T) {
	c := fixture(t, "pings.pcapng")
	out := filepath.Join(t.TempDir(), "x.parquet")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "-o", out, c}, "--format parquet or --format ndjson is required"},
		{[]string{"export", "--format", "csv", "-o", out, c}, `--format "csv": want parquet or ndjson`},
		{[]string{"export", "--format", "parquet", c}, "-o FILE is required"},
		{[]string{"export", "--format", "ndjson", "--hex", "-o", out, c}, "are for --format parquet"},
		{[]string{"export", "--format", "parquet", "--payload-columns", "-o", out, c}, "--payload-columns needs schemas"},
		{[]string{"export", "--format", "parquet", "--host", "other.pcapng=x", "-o", out, c}, "other.pcapng is not a capture given"},
		{[]string{"export", "--format", "ndjson", "--time-shift", "nope", "-o", out, c, c}, "want FILE=±DURATION"},
		{[]string{"export", "--format", "ndjson", "--time-shift", "other.pcapng=1s", "-o", out, c, c}, "other.pcapng is not a capture given"},
		{[]string{"export", "--format", "parquet", "-o", out, c, "-"}, "standard input (-) cannot be one of several captures"},
		{[]string{"export", "--format", "parquet", "-o", out}, "missing CAPTURE"},
	} {
		code, _, errOut := run(t, nil, tt.args...)
		if code != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("usmnscope %s = exit %d, %q; want exit %d and %q", strings.Join(tt.args, " "), code, errOut, exitUsage, tt.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused export wrote %s", out)
	}
}

// TestExportNDJSON: --format ndjson writes the dump --json records, with
// the host --host names (bare, or FILE=NAME by path or base name).
func TestExportNDJSON(t *testing.T) {
	c := fixture(t, "two-conns.pcapng")
	_, want, _ := run(t, nil, "dump", "--json", c)
	dir := t.TempDir()
	for _, tt := range []struct {
		host []string
		name string
	}{
		{nil, "two-conns"},
		{[]string{"--host", "eu1"}, "eu1"},
		{[]string{"--host", c + "=eu2"}, "eu2"},
		{[]string{"--host", "two-conns.pcapng=eu3"}, "eu3"},
	} {
		out := filepath.Join(dir, "x.ndjson")
		args := append(append([]string{"export", "--format", "ndjson", "-o", out}, tt.host...), c)
		if code, _, errOut := run(t, nil, args...); code != exitOK || errOut != "" {
			t.Fatalf("usmnscope %s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		w := strings.ReplaceAll(want, `"host":"two-conns"`, `"host":"`+tt.name+`"`)
		if string(got) != w {
			t.Errorf("export --format ndjson %v: %d bytes; want dump --json's records with host %s (%d bytes)", tt.host, len(got), tt.name, len(w))
		}
	}
}
