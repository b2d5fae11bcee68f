package schema

import (
	"runtime"
	"strings"
	"testing"
)

// hostileTOML are issue 29's hostile config shapes: a 60 KB nested inline
// table (49 s and 3.1 GiB in the TOML parser before), a 400 KB dotted key
// (past 15 minutes), invalid UTF-8; each with the line and text of its error.
func hostileTOML() []struct{ name, src, want string } {
	return []struct{ name, src, want string }{
		{"60 KB nested inline table", "[[listener]]\ntype = " + strings.Repeat("{a=", 20000) + "1" + strings.Repeat("}", 20000) + "\n",
			"h.toml:2: arrays and inline tables nested deeper than 64"},
		{"400 KB dotted key", "\n" + strings.Repeat("a.", 200000) + "b = 1\n", "h.toml:2: key longer than 1024 bytes"},
		{"invalid UTF-8", "[[listener]]\ntype = \"\xc3\x28\"\n", "h.toml:2: invalid UTF-8 (byte 0xc3 at byte offset 21): TOML files are UTF-8"},
	}
}

// TestParseHostile: each shape is one error naming the file and line, and
// parsing it allocates under 64 MB.
func TestParseHostile(t *testing.T) {
	for _, c := range hostileTOML() {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f, err := Parse("h.toml", []byte(c.src))
		runtime.ReadMemStats(&after)
		if f != nil || err == nil || err.Error() != c.want {
			t.Errorf("Parse(%s) = %v; want %q", c.name, err, c.want)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 64<<20 {
			t.Errorf("Parse(%s) allocated %d MiB; want under 64 MiB", c.name, a>>20)
		}
	}
}

// TestParseCyclicTypes: ULinkRPC DTO types that name each other (and
// themselves) are a valid schema; decoding under them is bounded by the
// MemoryPack nesting depth (ulinkrpc's own test), not by the schema.
func TestParseCyclicTypes(t *testing.T) {
	src := `[[ulinkrpc.type]]
name = "A"
members = [ { order = 0, name = "b", type = "B" }, { order = 1, name = "self", type = "A" } ]

[[ulinkrpc.type]]
name = "B"
members = [ { order = 0, name = "a", type = "A" } ]
`
	if _, err := Parse("cyclic.toml", []byte(src)); err != nil {
		t.Fatalf("Parse(cyclic types) = %v; want nil", err)
	}
}
