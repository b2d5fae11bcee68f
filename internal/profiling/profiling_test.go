package profiling

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStart: with both variables set, stopping writes both profiles;
// with neither, Start does nothing.
func TestStart(t *testing.T) {
	t.Setenv("USMNSCOPE_CPUPROFILE", "")
	t.Setenv("USMNSCOPE_MEMPROFILE", "")
	Start()()
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	t.Setenv("USMNSCOPE_CPUPROFILE", cpu)
	t.Setenv("USMNSCOPE_MEMPROFILE", mem)
	Start()()
	for _, p := range []string{cpu, mem} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v; want a profile", p, err)
		}
	}
}
