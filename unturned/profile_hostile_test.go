package unturned

import (
	"runtime"
	"strings"
	"testing"
)

// TestParseProfileHostile: issue 29's hostile config shapes in a profile
// are one error naming the file and line, under 64 MB of allocation (the
// nested inline table took 49 s and 3.1 GiB before).
func TestParseProfileHostile(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"60 KB nested inline table", "[limits]\nmax_flows = " + strings.Repeat("{a=", 20000) + "1" + strings.Repeat("}", 20000) + "\n",
			"profile p.toml:2: arrays and inline tables nested deeper than 64"},
		{"400 KB dotted key", "[limits]\n" + strings.Repeat("a.", 200000) + "b = 1\n", "profile p.toml:2: key longer than 1024 bytes"},
		{"invalid UTF-8", "name = \"\xff\"\n", "profile p.toml:1: invalid UTF-8 (byte 0xff at byte offset 8): TOML files are UTF-8"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p, err := ParseProfile("p.toml", []byte(c.src))
		runtime.ReadMemStats(&after)
		if p != nil || err == nil || err.Error() != c.want {
			t.Errorf("ParseProfile(%s) = %v; want %q", c.name, err, c.want)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 64<<20 {
			t.Errorf("ParseProfile(%s) allocated %d MiB; want under 64 MiB", c.name, a>>20)
		}
	}
}
