package scenario

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary TOML to Parse and generates whatever parses:
// neither may panic, and a generated capture must be readable again.
func FuzzParse(f *testing.F) {
	fs, _ := filepath.Glob("../fixtures/scenarios/*.toml")
	small, _ := filepath.Glob("../fixtures/scenarios/scale/hostile-lyinglengths.toml")
	fs = append(fs, small...)
	for _, p := range fs {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// go test -fuzz has no per-input time limit; a hang becomes a crash
		// that names the input.
		watchdog := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("slow input %q", data)) })
		defer watchdog.Stop()
		s, err := Parse("fuzz", data)
		if err != nil {
			return
		}
		work := 0
		for _, c := range s.Conns {
			for _, a := range c.Actions {
				work += max(a.Count, 1)
			}
		}
		for _, fl := range s.Floods {
			work += max(fl.Conns, 1) * max(fl.Frames, 1)
		}
		if work > 2000 || len(s.Conns) > 50 {
			return // valid but slow; not what the fuzzer is for
		}
		var buf bytes.Buffer
		st, err := s.Generate(&buf, PCAPNG)
		if err != nil {
			return
		}
		ps, _ := readCapture(t, buf.Bytes())
		if len(s.Lies) > 0 {
			return // a lie ends reading early by design: reading it must only not panic
		}
		if len(ps) != st.Packets {
			t.Fatalf("capture has %d packets; Stats says %d", len(ps), st.Packets)
		}
	})
}
