package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is -update: rewrite the golden files from the current output.
// teatest's golden package (imported by the TUI tests) defines the same
// flag, so when it exists already update follows it (see TestMain).
var update = updateFlag()

func updateFlag() *bool {
	if flag.Lookup("update") != nil {
		return new(bool)
	}
	return flag.Bool("update", false, "rewrite the golden files under fixtures/golden from the current output")
}

func TestMain(m *testing.M) {
	flag.Parse()
	*update = flag.Lookup("update").Value.String() == "true"
	// Schemas in the developer's own config directory must not change
	// the outputs the tests compare (schema.md: the schemas directory).
	cfg, err := os.MkdirTemp("", "usmnscope-config")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", cfg)
	code := m.Run()
	os.RemoveAll(cfg)
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

const (
	capturesDir = "../../fixtures/captures"
	goldenDir   = "../../fixtures/golden"
)

// plainOnly skips a test in make test's race run (-short) that checks
// outputs over many captures with no concurrency of its own: the plain run
// has checked it, and under -race it costs many times as long. The race
// run keeps the tests that drive the concurrent paths (TestDumpJSONParallel,
// TestEveryPathAgrees, the live and TUI tests).
func plainOnly(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: the plain run checks %s", what)
	}
}

// run drives the command line through its cobra entry point with buffered
// IO (cli/cli iostreams.Test) and returns the exit code and both outputs.
func run(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errw bytes.Buffer
	code = Execute(args, bytes.NewReader(stdin), &out, &errw)
	return code, out.String(), errw.String()
}

// golden compares got with the golden file name, rewriting it with -update
// and writing name.got next to it on a mismatch, for diffing.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + ".got")
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run `go test ./cmd/usmnscope -run Golden -update` to create it)", err)
	}
	if got != string(want) {
		_ = os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs from the golden file; see %s.got (diff it; -update accepts it)", name, path)
		return
	}
	os.Remove(path + ".got")
}

// fixtureCaptures lists the fixture captures (colleague D's generator
// writes them from fixtures/scenarios).
func fixtureCaptures(t *testing.T) []string {
	t.Helper()
	caps, err := filepath.Glob(filepath.Join(capturesDir, "*.pcapng"))
	if err != nil || len(caps) == 0 {
		t.Skipf("no fixture captures in %s", capturesDir)
	}
	return caps
}

// TestGoldenCommands runs dump (lines, -V, --json) and tables (text, --json)
// over every fixture capture and compares with fixtures/golden. The golden
// outputs were checked by hand against wire.md and the scenarios; the
// properties that must hold whatever the golden says are asserted in the
// other tests of this file.
func TestGoldenCommands(t *testing.T) {
	for _, c := range fixtureCaptures(t) {
		name := strings.TrimSuffix(filepath.Base(c), ".pcapng")
		for _, v := range []struct {
			suffix string
			args   []string
		}{
			{"dump.txt", []string{"dump", c}},
			{"dump-V.txt", []string{"dump", "-V", c}},
			{"dump.ndjson", []string{"dump", "--json", c}},
			{"tables.txt", []string{"tables", c}},
			{"tables.json", []string{"tables", "--json", c}},
		} {
			t.Run(name+"/"+v.suffix, func(t *testing.T) {
				code, out, errOut := run(t, nil, v.args...)
				if code != exitOK || errOut != "" {
					t.Fatalf("usmnscope %s: exit %d, stderr %q; want 0 and nothing (findings do not fail a capture)", strings.Join(v.args, " "), code, errOut)
				}
				golden(t, name+"."+v.suffix, out)
			})
		}
	}
}

// bitsCases are messages of wire.md 3 ("Computed examples") and USMN
// headers, decoded by `usmnscope bits`.
var bitsCases = []struct {
	name string
	args []string
}{
	{"kicked", []string{"--dir", "s2c", "8c 00 00 62 79 65"}},
	{"rejected", []string{"--dir", "s2c", "6a", "70", "00", "33", "2e", "32", "36", "2e", "33", "2e", "34"}},
	{"accepted", []string{"--dir", "s2c", "0x8960402", "0e0300d"}},
	{"invoke-c2s-cut", []string{"--dir", "c2s", "--widened", "31", "00"}},
}

func TestGoldenBits(t *testing.T) {
	for _, tt := range bitsCases {
		for _, json := range []bool{false, true} {
			args := append([]string{"bits"}, tt.args...)
			suffix := ".txt"
			if json {
				args = append(args, "--json")
				suffix = ".json"
			}
			t.Run(tt.name+suffix, func(t *testing.T) {
				code, out, errOut := run(t, nil, args...)
				if code != exitOK || errOut != "" {
					t.Fatalf("usmnscope %s: exit %d, stderr %q; want 0", strings.Join(args, " "), code, errOut)
				}
				golden(t, "bits-"+tt.name+suffix, out)
			})
		}
	}
}
