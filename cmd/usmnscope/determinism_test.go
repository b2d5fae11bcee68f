package main

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
)

// TestSameBytesEveryRun decodes every fixture capture, every capture of the
// shared tcpdump corpus, committed cuts (testdata/determinism: editcap -s 80
// of two-conns.pcapng, issue 29's reproduction) and cut and mutated captures
// made here 5 times each through the in-process dump --json path, under
// GOMAXPROCS of the machine, 1, 2, the machine's and 1 again (issue 29's
// "5 times each (also with GOMAXPROCS=1 and GOMAXPROCS=2)"), and requires
// the same bytes every time
// (issue 29 point 3: the reassembler's end-of-capture flush walked its
// connections in Go map order, so numbering, connections and even protocols
// changed from run to run). Go randomises every map's iteration start, so
// repeated runs in one process show such an order as well as new processes
// would. Text dump is compared too for the fixtures and their cuts.
func TestSameBytesEveryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: decodes every corpus capture 5 times")
	}
	fixtures, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "captures", "*.pcap*"))
	scale, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "captures", "scale", "*.pcap*"))
	cuts, _ := filepath.Glob(filepath.Join("testdata", "determinism", "*.pcap*"))
	fixtures = append(append(fixtures, scale...), cuts...)
	sort.Strings(fixtures)
	if len(fixtures) == 0 {
		t.Fatal("no fixture captures found")
	}
	made := t.TempDir()
	var derived []string
	rng := rand.New(rand.NewPCG(29, 3))
	for _, f := range fixtures {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(f)
		// Cuts: the file ends mid-capture, so flows are still open (and
		// holding out-of-order data) at the end-of-capture flush.
		for _, frac := range []int{3, 2} {
			p := filepath.Join(made, base+".cut"+string(rune('0'+frac)))
			writeFile(t, p, data[:len(data)*(frac-1)/frac])
			derived = append(derived, p)
		}
		// Mutants: a few bytes past the section header changed, which makes
		// holes, lying lengths and odd flags.
		for m := range 3 {
			b := bytes.Clone(data)
			for range 4 + 4*m {
				if len(b) > 64 {
					b[64+rng.IntN(len(b)-64)] ^= byte(1 + rng.IntN(255))
				}
			}
			p := filepath.Join(made, base+".mut"+string(rune('0'+m)))
			writeFile(t, p, b)
			derived = append(derived, p)
		}
		// editcap's snap length cuts, as issue 29 made them, when it is here.
		if editcap, err := exec.LookPath("editcap"); err == nil {
			for _, s := range []string{"60", "120"} {
				p := filepath.Join(made, base+".s"+s+".pcapng")
				if exec.Command(editcap, "-s", s, f, p).Run() == nil {
					derived = append(derived, p)
				}
			}
		}
	}
	corpus, _ := filepath.Glob(filepath.Join(sharedDir(t), "corpus", "tcpdump", "*"))
	sort.Strings(corpus)
	if len(corpus) == 0 {
		t.Logf("no corpus at %s: fixtures and their cuts only", filepath.Join(sharedDir(t), "corpus", "tcpdump"))
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	procs := []int{runtime.GOMAXPROCS(0), 1, 2, runtime.GOMAXPROCS(0), 1}
	check := func(f string, args ...string) {
		var first [32]byte
		for i, p := range procs {
			runtime.GOMAXPROCS(p)
			code, out, errs := run(t, nil, append(args, f)...)
			sum := sha256.Sum256([]byte(out + "\x00" + errs + string(rune('0'+code))))
			if i == 0 {
				first = sum
			} else if sum != first {
				t.Errorf("%v %s: run %d (GOMAXPROCS=%d) printed other bytes than run 1", args, f, i+1, p)
				return
			}
		}
	}
	for _, f := range append(fixtures, derived...) {
		check(f, "dump", "--json")
		check(f, "dump")
	}
	for _, f := range corpus {
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			check(f, "dump", "--json")
		}
	}
	t.Logf("%d fixtures, %d cuts and mutants, %d corpus captures, %d runs each", len(fixtures), len(derived), len(corpus), len(procs))
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
