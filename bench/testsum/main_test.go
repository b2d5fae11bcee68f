package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A go test -json stream of one package with a skip (its reason logged),
// a pass and a subtest skipped without a reason, and of a package without
// tests.
const passing = `{"Action":"start","Package":"m/a"}
{"Action":"run","Package":"m/a","Test":"TestTmux"}
{"Action":"output","Package":"m/a","Test":"TestTmux","Output":"=== RUN   TestTmux\n"}
{"Action":"output","Package":"m/a","Test":"TestTmux","Output":"    e2e_test.go:12: tmux is not on PATH\n"}
{"Action":"output","Package":"m/a","Test":"TestTmux","Output":"--- SKIP: TestTmux (0.00s)\n"}
{"Action":"skip","Package":"m/a","Test":"TestTmux","Elapsed":0}
{"Action":"run","Package":"m/a","Test":"TestOK"}
{"Action":"output","Package":"m/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"output","Package":"m/a","Test":"TestOK","Output":"    ok_test.go:3: chatter\n"}
{"Action":"output","Package":"m/a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}
{"Action":"pass","Package":"m/a","Test":"TestOK","Elapsed":0}
{"Action":"run","Package":"m/a","Test":"TestT/sub"}
{"Action":"output","Package":"m/a","Test":"TestT/sub","Output":"    --- SKIP: TestT/sub (0.00s)\n"}
{"Action":"skip","Package":"m/a","Test":"TestT/sub","Elapsed":0}
{"Action":"output","Package":"m/a","Output":"PASS\n"}
{"Action":"output","Package":"m/a","Output":"ok  \tm/a\t0.010s\n"}
{"Action":"pass","Package":"m/a","Elapsed":0.01}
{"Action":"start","Package":"m/b"}
{"Action":"output","Package":"m/b","Output":"?   \tm/b\t[no test files]\n"}
{"Action":"skip","Package":"m/b","Elapsed":0}
`

const failing = `{"Action":"run","Package":"m/c","Test":"TestBad"}
{"Action":"output","Package":"m/c","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"m/c","Test":"TestBad","Output":"    bad_test.go:9: F(1) = 2; want 3\n"}
{"Action":"output","Package":"m/c","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"m/c","Test":"TestBad","Elapsed":0}
{"Action":"output","Package":"m/c","Output":"FAIL\n"}
{"Action":"output","Package":"m/c","Output":"FAIL\tm/c\t0.003s\n"}
{"Action":"fail","Package":"m/c","Elapsed":0.003}
`

func TestSummarise(t *testing.T) {
	tests := []struct {
		name, in, want string
		failed         bool
	}{
		{"passing", passing, "--- SKIP: TestTmux (0.00s)\n    e2e_test.go:12: tmux is not on PATH\n" +
			"--- SKIP: TestT/sub (0.00s)\n    (no reason given)\n" +
			"ok  \tm/a\t0.010s\n?   \tm/b\t[no test files]\n", false},
		{"failing", failing, "--- FAIL: TestBad (0.00s)\n    bad_test.go:9: F(1) = 2; want 3\nFAIL\nFAIL\tm/c\t0.003s\nFAIL\n", true},
		{"vet text passes through", "# m/d\nvet: d.go:1: oops\n", "# m/d\nvet: d.go:1: oops\n", false},
		{"build failure", `{"ImportPath":"m/e [m/e.test]","Action":"build-output","Output":"e_test.go:3:2: declared and not used: x\n"}
{"ImportPath":"m/e [m/e.test]","Action":"build-fail"}
{"Action":"output","Package":"m/e","Output":"FAIL\tm/e [build failed]\n"}
{"Action":"fail","Package":"m/e","Elapsed":0,"FailedBuild":"m/e [m/e.test]"}
`, "e_test.go:3:2: declared and not used: x\nFAIL\tm/e [build failed]\nFAIL\n", true},
	}
	for _, tt := range tests {
		var out strings.Builder
		failed, err := summarise(strings.NewReader(tt.in), &out)
		if err != nil || failed != tt.failed || out.String() != tt.want {
			t.Errorf("%s: summarise = %v, %v,\n%s\nwant %v, nil,\n%s", tt.name, failed, err, out.String(), tt.failed, tt.want)
		}
	}
}

// TestGoTestSkipReasons runs the real go test -json over a throw-away
// module whose tests skip as the tshark and tmux tests do, and checks
// that each skip and its reason come out before the package's ok line.
func TestGoTestSkipReasons(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot run go test -json")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module skipdemo\n\ngo 1.22\n")
	write("s_test.go", `package skipdemo

import "testing"

func TestNeedsTmux(t *testing.T)   { t.Skip("tmux is not on PATH") }
func TestNeedsTshark(t *testing.T) { t.Run("export", func(t *testing.T) { t.Skipf("tshark is not on PATH") }) }
func TestFine(t *testing.T)        { t.Log("not shown") }
`)
	cmd := exec.Command(goBin, "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	js, err := cmd.Output()
	if err != nil {
		t.Fatalf("go test -json: %v\n%s", err, js)
	}
	var out strings.Builder
	failed, err := summarise(strings.NewReader(string(js)), &out)
	want := regexp.MustCompile(`^--- SKIP: TestNeedsTmux \(\d+\.\d+s\)\n    s_test\.go:5: tmux is not on PATH\n` +
		`--- SKIP: TestNeedsTshark/export \(\d+\.\d+s\)\n    s_test\.go:6: tshark is not on PATH\n` +
		`ok  \tskipdemo\t\S+\n$`)
	if failed || err != nil || !want.MatchString(out.String()) {
		t.Errorf("go test -json | testsum = %v, %v,\n%s\nwant the two skips with their reasons, then the ok line", failed, err, out.String())
	}
}

// TestMakeTestListsSkips holds the Makefile's test target to running the
// tests through bench/gotest.sh, which runs them through this summariser:
// plain `go test ./...` there prints no skip reasons (issue 16 defect 11).
func TestMakeTestListsSkips(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(mk), "\ntest:")
	if !ok {
		t.Fatal("Makefile has no test target")
	}
	recipe, _, _ := strings.Cut(rest, "\n\n")
	if !strings.Contains(recipe, "bench/gotest.sh") {
		t.Errorf("make test's recipe%s\ndoes not run bench/gotest.sh: skipped tests would print no reasons", recipe)
	}
	sh, err := os.ReadFile("../gotest.sh")
	if err != nil || !strings.Contains(string(sh), "test -json") || !strings.Contains(string(sh), "testsum") || !strings.Contains(string(sh), "pipefail") {
		t.Errorf("bench/gotest.sh = %q, %v; want go test -json through testsum, failing as go test fails", sh, err)
	}
}
